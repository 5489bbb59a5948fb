/** The cost confirmation in-process (memory terminal): balance now and after, and what each way out means. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxWorld, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_whois_history'; // 5 coins an item in the sandbox
let world: World;
let home: string;
const terminal = (stdin: string | readonly string[]) => ({
  home,
  stdin,
  stdinTTY: true,
  stdoutTTY: true,
  stderrTTY: true,
});

/** The question as one line: on a terminal it wraps at its width. */
const oneLine = (text: string) => text.replace(/\n/g, ' ');

beforeEach(async () => {
  world = await startSandboxWorld();
  home = mkdtempSync(join(tmpdir(), 'taskctl-prompt-'));
  expect((await world.run(['config', 'set', 'confirm-above', '5'], { home })).code).toBe(0);
});
afterEach(async () => {
  await world.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the confirmation', () => {
  it('shows the estimate with the balance now and after, in words for one item', async () => {
    const result = await world.run(['create', S, 'a.com', '-q'], terminal('y\n'));
    expect(oneLine(result.stderr)).toContain(`Create ${S} for 1 item: 5 coins (balance 10,000,000 → 9,999,995)? [y/N]`);
    expect(result.code).toBe(0);
    expect(await world.tasks()).toHaveLength(1);
  });

  it('a question wider than the terminal wraps at spaces, never inside a number', async () => {
    const result = await world.run(['create', S, 'a.com', 'b.com'], { ...terminal('n\n'), columns: 50 });
    // Without readline's own cursor moves before the question.
    const plain = result.stderr.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    const question = plain.slice(0, plain.indexOf('[y/N]') + 5);
    expect(question.split('\n').length).toBeGreaterThan(1);
    for (const line of question.split('\n')) expect(line.length).toBeLessThanOrEqual(49);
    expect(oneLine(question)).toContain(`for 2 items: 10 coins (balance 10,000,000 → 9,999,990)? [y/N]`);
    expect(result.code).toBe(13);
  });

  it('an estimate above the balance is refused before the question: never a negative balance shown', async () => {
    await fetch(`${world.sandbox.origin}/__sandbox/balance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ balance: 7 }),
    });
    const result = await world.run(['create', S, 'a.com', 'b.com'], terminal('y\n'));
    expect(result.stderr).not.toMatch(/\[y\/N\]/);
    expect(oneLine(result.stderr)).toContain('the estimate is 10 coins, above the balance of 7; nothing was created');
    expect(oneLine(result.stderr)).toContain('The balance covers 1 of the 2 items.');
    expect(result.code).toBe(6);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('declining is exit 13 (the user decided, not Ctrl-C) and says nothing was created', async () => {
    const result = await world.run(['create', S, 'a.com', 'b.com'], terminal('n\n'));
    expect(oneLine(result.stderr)).toContain(`for 2 items: 10 coins (balance 10,000,000 → 9,999,990)? [y/N]`);
    // Calm: the person's answer, not an error.
    expect(result.stderr).toMatch(/\? \[y\/N\] .*n\r?\nNothing was created\.\nThe question comes from 5 coins up /);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(13);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('the way on after a no is the command as typed with --yes, which creates the task without a question', async () => {
    const file = join(home, 'my items.txt');
    writeFileSync(file, 'a.com\nb.com\n');
    const argv = ['create', S, '-f', file, '--keep-duplicates'];
    const result = await world.run(argv, terminal('n\n'));
    expect(result.code).toBe(13);
    const hint = oneLine(result.stderr.slice(result.stderr.indexOf('Nothing was created.')));
    expect(hint).toBe(
      'Nothing was created. The question comes from 5 coins up (the confirm-above setting); to go ahead without it: ' +
        `taskctl create ${S} -f '${file}' --keep-duplicates --yes `,
    );
    const followed = await world.run([...argv, '--yes'], { home });
    expect(followed.code, followed.stderr).toBe(0);
    expect(await world.tasks()).toHaveLength(1);
  });

  it('a command as typed too long to repeat: the hint says to add --yes to it', async () => {
    const items = Array.from({ length: 30 }, (_, i) => `host-${i}.example.com`);
    const result = await world.run(['create', S, ...items], terminal('n\n'));
    expect(result.code).toBe(13);
    expect(oneLine(result.stderr)).toContain(
      'The question comes from 5 coins up (the confirm-above setting); to go ahead without it: the same command with --yes',
    );
  });

  it('Enter alone is the default, no', async () => {
    const result = await world.run(['create', S, 'a.com'], terminal('\n'));
    expect(result.code).toBe(13);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('the input ending at the prompt (Ctrl-D) is a decline with "nothing was created"', async () => {
    const result = await world.run(['create', S, 'a.com'], terminal(''));
    expect(result.stderr).toMatch(/No answer \(the input ended\): nothing was created\./);
    expect(result.code).toBe(13);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('Ctrl-C at the prompt is exit 130 with "nothing was created"', async () => {
    const result = await world.run(['create', S, 'a.com'], terminal('\u0003'));
    expect(result.stderr).toMatch(/cancelled at the confirmation; nothing was created/);
    expect(result.code).toBe(130);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('--yes and --max-cost never ask; --max-cost speaks in words', async () => {
    const yes = await world.run(['create', S, 'a.com', '--yes', '-q'], terminal(''));
    expect(yes.stderr).not.toMatch(/\[y\/N\]/);
    expect(yes.code).toBe(0);
    const capped = await world.run(['create', S, 'b.com', '--max-cost', '4'], terminal(''));
    expect(capped.stderr).toMatch(/the estimate is 5 coins, above --max-cost 4; nothing was created/);
    expect(capped.code).toBe(6);
  });
});

describe('money safety for scripts', () => {
  // Unwrapped on a pipe; word-wrapped when stderr is a terminal: compare with the line breaks as spaces.
  const refused =
    /error: the estimate is 10 coins, at or above confirm-above \(5\), and there is no terminal to confirm on; nothing was created Pass --yes to create it anyway, or --max-cost 10 to allow up to that much\./;

  it.each([
    ['stdin', { stdinTTY: false, stdoutTTY: true }, 'stdin is not a terminal (items piped in, or a file)'],
    ['stdout', { stdinTTY: true, stdoutTTY: false }, 'stdout is not a terminal (a pipe or a file)'],
    ['stdin and stdout', { stdinTTY: false, stdoutTTY: false }, 'stdin and stdout are not terminals'],
  ])('at a terminal with %s redirected: says which, so no question can be asked', async (_, redirected, why) => {
    // The items as arguments where stdin is a terminal (a terminal is never read for items).
    const items = redirected.stdinTTY ? ['a.com', 'b.com'] : [];
    const result = await world.run(['create', S, ...items, '-q'], { ...terminal('a.com\nb.com\n'), ...redirected });
    expect(result.code).toBe(2);
    expect(result.stderr.replace(/\n/g, ' ')).toContain(
      `at or above confirm-above (5), and ${why}, so no question can be asked; nothing was created`,
    );
    expect(await world.tasks()).toHaveLength(0);
  });

  it('piped items above confirm-above: exit 2 naming --yes, nothing created', async () => {
    const result = await world.run(['create', S, '-q'], { home, stdin: 'a.com\nb.com\n' });
    expect(result.stderr.replace(/\n/g, ' ')).toMatch(refused);
    expect(result.code).toBe(2);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('a terminal on stdin but stdout piped (create -q | wait -), or in CI: refused the same way', async () => {
    const piped = await world.run(['create', S, 'a.com', 'b.com', '-q', '--no-color'], {
      home,
      stdinTTY: true,
      stderrTTY: true,
    });
    expect(piped.stderr.replace(/\n/g, ' ')).toContain(
      'and stdout is not a terminal (a pipe or a file), so no question can be asked; nothing was created Pass --yes',
    );
    expect(piped.code).toBe(2);
    const ci = await world.run(['create', S, 'a.com', 'b.com', '--ci'], terminal(''));
    expect(ci.stderr.replace(/\n/g, ' ')).toMatch(
      /the estimate is 10 coins, at or above confirm-above \(5\), and --ci is given \(no question is asked\); nothing was created Pass --yes/,
    );
    expect(ci.code).toBe(2);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('CI=true at a real terminal: the refusal names CI, not a missing terminal', async () => {
    const ci = await runTaskctl(['create', S, 'a.com', 'b.com'], {
      ...terminal(''),
      env: { ...world.env, CI: 'true' },
      clock: world.clock,
    });
    const text = ci.stderr.replace(/\n/g, ' ');
    expect(text).toMatch(/and CI is set in the environment \(no question is asked\); nothing was created/);
    expect(text).toContain('Pass --yes to create it anyway, or --max-cost 10 to allow up to that much.');
    expect(text).not.toMatch(/no terminal/);
    expect(ci.code).toBe(2);
  });

  it('chunked jobs are judged by their total', async () => {
    const result = await world.run(['create', S, 'a.com', 'b.com', '--chunk-size', '1'], { home });
    expect(result.stderr.replace(/\n/g, ' ')).toMatch(refused);
    expect(await world.tasks()).toHaveLength(0);
  });

  it('--yes, or a --max-cost that covers the estimate, goes ahead; below confirm-above nothing is asked', async () => {
    expect((await world.run(['create', S, 'a.com', 'b.com', '--yes', '-q'], { home })).code).toBe(0);
    expect((await world.run(['create', S, 'c.com', 'd.com', '--max-cost', '10', '-q'], { home })).code).toBe(0);
    expect((await world.run(['config', 'set', 'confirm-above', '100'], { home })).code).toBe(0);
    expect((await world.run(['create', S, 'e.com', '-q'], { home })).code).toBe(0);
    expect(await world.tasks()).toHaveLength(3);
  });
});

describe('the confirmation of a resume', () => {
  /** A job of three chunks whose chunk 1 was created and whose chunks 2 and 3 were never sent. */
  async function jobWithChunk1Created(): Promise<string> {
    const journal = join(home, 'job.jsonl');
    const created = await world.run(
      ['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '--journal', journal, '--yes', '-q'],
      { home },
    );
    expect(created.code, created.stderr).toBe(0);
    const kept = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .filter((line) => {
        const row = JSON.parse(line) as { type: string; chunk?: number };
        return row.type !== 'done' && !(row.chunk !== undefined && row.chunk > 1 && row.type !== 'chunk');
      });
    writeFileSync(journal, kept.join('\n') + '\n');
    return journal;
  }

  it.each([
    ['declined (N)', 'n\n', 13],
    ['Ctrl-C', '\u0003', 130],
  ])('%s: nothing was sent by this run, the job is still unfinished, and resume continues it', async (_, key, code) => {
    const journal = await jobWithChunk1Created();
    const before = (await world.tasks()).length;
    const result = await world.run(['resume', journal], terminal(key));
    const text = oneLine(result.stderr);
    expect(text).toMatch(/nothing was sent by this run; the job is still unfinished/i);
    expect(text).not.toMatch(/nothing was created/i);
    expect(text).toMatch(/Continue it with: taskctl resume j-[a-z0-9]+/);
    expect(result.code).toBe(code);
    expect(await world.tasks()).toHaveLength(before);
  });
});
