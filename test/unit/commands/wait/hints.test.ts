/**
 * Hints after a wait name a short command that runs: `$(seq A B)` for a run of ids, `--job FILE` for a job; a file a
 * hint names is named by its absolute path, whatever directory the command ran in, so the hint runs from any other.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idArgs, LISTED_IDS } from '../../../../src/core/follow/outcome.js';
import { SERVICE, tempDir } from '../../core/job/fixture.js';
import { KEPT_LISTS, writeIdList } from '../../../../src/store/id-lists.js';
import { sandboxRun, T0 } from '../run-in-process.js';
import { postTask } from '../sandbox-world.js';

const person = { stdoutTTY: true, stderrTTY: false, columns: 100 };

describe('ids in a hint', () => {
  it('a few are listed; past that, a run of consecutive ids becomes $(seq A B) where that is shorter', () => {
    expect(idArgs([3, 1, 2])).toBe('1 2 3');
    expect(idArgs([12, 1, 2, 3, 4, 5, 8, 9, 10, 11])).toBe('1 2 3 4 5 $(seq 8 12)');
    expect(idArgs([1, 3, 5, 7, 9, 11, 13, 15, 17])).toBe('1 3 5 7 9 11 13 15 17');
    expect(idArgs([])).toBe('');
  });
});

describe('wait: hints that would list many ids', () => {
  it('a 20-task wait ends with `taskctl show $(seq A B)`, not twenty ids', async () => {
    const { run, sandbox } = await sandboxRun(0);
    // Straight to the service: the wait's subject is the ids, not how their tasks came (a create of 20 chunks is 20
    // journaled sends).
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await postTask(sandbox, SERVICE, [`h${i}.com`]));
    const result = await run(['wait', ...ids.map(String)], person);
    expect(result.code, result.stderr).toBe(0);
    const last = result.stderr.trim().split('\n').at(-1);
    expect(last).toBe(`See the items: taskctl show $(seq ${Math.min(...ids)} ${Math.max(...ids)})`);
  });

  it('a wait --job that times out says `taskctl wait --job FILE` to go on', async () => {
    const { run } = await sandboxRun(60_000);
    const journal = join(tempDir(), 'job.jsonl');
    const items = Array.from({ length: 6 }, (_, i) => `j${i}.com`);
    // Given relative to the directory the commands run in: the hint names the file from anywhere.
    const given = relative(process.cwd(), journal);
    const created = await run(['create', SERVICE, ...items, '--chunk-size', '2', '--journal', given, '-y', '-q']);
    expect(created.code, created.stderr).toBe(0);
    const result = await run(['wait', '--job', given, '--timeout', '5s'], person);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain(`still running: taskctl wait --job ${journal}\n`);
    // A flag that decides the exit code is carried: followed as printed, the wait ends as this one would have.
    const allowed = await run(['wait', '--job', given, '--timeout', '5s', '--allow-item-failures'], person);
    expect(allowed.code).toBe(124);
    expect(allowed.stderr).toContain(`still running: taskctl wait --job ${journal} --allow-item-failures\n`);
    // What a create says of the journal it was given names it the same way.
    const other = await run(['create', SERVICE, 'other.com', '--journal', given, '-y', '-q']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`the job in ${journal} is finished`);
    expect(result.stderr).not.toMatch(/taskctl wait \d/);
  });
});

describe('a hint at 80, 60 and 40 columns', () => {
  it('names its command whole on one line: wrapped before it, and left whole when wider than the terminal', async () => {
    const { run, sandbox } = await sandboxRun(60_000);
    const home = tempDir();
    const created = await run(['create', SERVICE, 'w1.com', 'w2.com', '--chunk-size', '1', '-y', '-q'], { home });
    expect(created.code, created.stderr).toBe(0);
    const job = readdirSync(join(home, 'state', 'jobs'))[0]?.replace(/\.jsonl$/, '') ?? '';
    // The account flag is repeated in the hint: a command longer than 40 columns.
    const argv = ['--base-url', sandbox.url, 'wait', '--job', job, '--timeout', '1s'];
    for (const columns of [80, 60, 40]) {
      const result = await run(argv, { home, stdoutTTY: true, stderrTTY: true, columns });
      expect(result.code, result.stderr).toBe(124);
      const command = new RegExp(`taskctl --base-url ${sandbox.url} wait --job j-[0-9a-z]+`);
      // As the terminal shows it: a cursor move or a line clear ends a line (as in test/e2e/tty-widths.test.ts).
      const lines = result.stderr
        .replace(/\x1b\[[0-9;?]*[A-Za-ln-z]/g, '\n')
        .replace(/\x1b\[[0-9;?]*m/g, '')
        .split(/[\r\n]/);
      const hint = lines.find((line) => line.includes('still running'));
      const at = lines.indexOf(hint ?? '');
      // Beside `still running:` when it fits there, else on the next line, whole.
      const shown = command.exec(hint ?? '')?.[0] ?? command.exec(lines[at + 1] ?? '')?.[0];
      expect(shown, result.stderr).toBeDefined();
      for (const line of lines) {
        if (line.length < columns) continue;
        // Only a command is ever wider than the terminal, alone on its line.
        expect(command.exec(line)?.[0], result.stderr).toBe(line);
      }
    }
  });
});

describe('wait: many scattered ids without a job', () => {
  /**
   * Tasks whose items take a minute, made straight on the service (the subject is the wait, not how they came); every
   * other one is waited on: LISTED_IDS + 1 ids no range can shorten, one more than a hint lists.
   */
  async function scattered() {
    const { run, clock, sandbox } = await sandboxRun(60_000);
    const made: number[] = [];
    for (let i = 0; i < 2 * (LISTED_IDS + 1); i++) made.push(await postTask(sandbox, SERVICE, [`s${i}.com`]));
    const ids = made.filter((_, i) => i % 2 === 0);
    return { run, clock, ids, home: tempDir() };
  }

  /** The file the hint names, and its ids. */
  function listed(stderr: string): { file: string; ids: number[] } {
    const file = /taskctl wait - < (\S+)/.exec(stderr)?.[1];
    if (file === undefined) throw new Error(`no file in the hint: ${stderr}`);
    return { file, ids: readFileSync(file, 'utf8').trimEnd().split('\n').map(Number) };
  }

  it('a timed-out wait names a file of the ids (0600, in the state directory); `wait -` from it waits on exactly those', async () => {
    const { run, ids, home } = await scattered();
    const result = await run(['wait', ...ids.map(String), '--timeout', '5s'], { ...person, home });
    expect(result.code).toBe(124);
    expect(result.stderr).not.toMatch(/taskctl wait \d/);
    const { file, ids: inFile } = listed(result.stderr);
    expect(file.startsWith(join(home, 'state', 'ids'))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(inFile).toEqual([...ids].sort((a, b) => a - b));
    const again = await run(['wait', '-', '--timeout', '5s', '-o', 'tsv'], {
      home,
      stdin: readFileSync(file, 'utf8'),
    });
    expect(again.code).toBe(124);
    const waited = again.stdout
      .trim()
      .split('\n')
      .map((line) => Number(line.split('\t')[0]));
    expect(waited.sort((a, b) => a - b)).toEqual(inFile);
  });

  it('a relative TASKCTL_STATE_DIR: the list is named by its absolute path, so the hint runs from any directory', async () => {
    const { run, ids, home } = await scattered();
    const state = relative(process.cwd(), join(home, 'state'));
    const result = await run(['wait', ...ids.map(String), '--timeout', '5s'], {
      ...person,
      home,
      env: { TASKCTL_STATE_DIR: state },
    });
    expect(result.code).toBe(124);
    const { file, ids: inFile } = listed(result.stderr);
    expect(isAbsolute(file), file).toBe(true);
    expect(file.startsWith(join(home, 'state', 'ids'))).toBe(true);
    expect(inFile).toEqual([...ids].sort((a, b) => a - b));
  });

  it('Ctrl-C names the file too', async () => {
    const { run, clock, ids, home } = await scattered();
    const controller = new AbortController();
    const stopAt = clock.now() + 10_000;
    const tick = clock.sleep.bind(clock);
    clock.sleep = async (ms, signal) => {
      await tick(ms, signal);
      if (clock.now() >= stopAt) controller.abort(new Error('interrupted'));
    };
    const result = await run(['wait', ...ids.map(String)], { ...person, home, signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/still running: taskctl wait - < \S+\n$/);
    expect(listed(result.stderr).ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('--any names the others by their file; --until processing --any names none, and writes none', async () => {
    const { run, sandbox } = await sandboxRun(60_000);
    // One task of a minute, then more scattered ones than a hint lists, each of ten (`slow-`).
    const ids = [await postTask(sandbox, SERVICE, ['q.com'])];
    for (let i = 0; i < 2 * (LISTED_IDS + 1); i++) {
      const id = await postTask(sandbox, SERVICE, [`slow-${i}.com`]);
      if (i % 2 === 0) ids.push(id);
    }
    const home = tempDir();
    const any = await run(['wait', ...ids.map(String), '--any'], { ...person, home });
    expect(any.code, any.stderr).toBe(0);
    expect(listed(any.stderr).ids).toEqual(ids.slice(1));
    const other = tempDir();
    const started = await run(['wait', ...ids.map(String), '--any', '--until', 'processing'], {
      ...person,
      home: other,
    });
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).not.toContain('still running');
    expect(existsSync(join(other, 'state', 'ids'))).toBe(false);
  });

  it('with an unwritable state directory the hint lists the ids as before', async () => {
    const { run, ids, home } = await scattered();
    writeFileSync(join(home, 'state'), 'not a directory');
    const result = await run(['wait', ...ids.map(String), '--timeout', '5s'], { ...person, home });
    expect(result.code).toBe(124);
    expect(result.stderr).toContain(`still running: taskctl wait ${[...ids].sort((a, b) => a - b).join(' ')}`);
  });

  it('keeps the newest lists only', () => {
    const dir = tempDir();
    let last: string | undefined;
    for (let i = 0; i < KEPT_LISTS + 5; i++) last = writeIdList(dir, [1, 3], T0 + i * 1000, 3_600_000);
    const names = readdirSync(join(dir, 'ids'));
    expect(names).toHaveLength(KEPT_LISTS);
    expect(last && names.includes(basename(last))).toBe(true);
  });
});

describe('wait: a failed task after the end named its items', () => {
  /** Three tasks straight on the service: one failed whole, one with a failed item, one all completed. */
  async function ended() {
    const { run, sandbox } = await sandboxRun(0);
    const failed = await postTask(sandbox, SERVICE, ['a.com', 'taskfail-b.com']);
    const partial = await postTask(sandbox, SERVICE, ['c.com', 'fail-c.com']);
    const fine = await postTask(sandbox, SERVICE, ['d.com']);
    return { run, failed, partial, fine };
  }

  it('several tasks: the table names them all once, and the error adds no `show` of its own', async () => {
    const { run, failed, partial, fine } = await ended();
    const result = await run(['wait', String(failed), String(partial), String(fine)], person);
    expect(result.code).toBe(10);
    expect(result.stderr).toContain(`See the items: taskctl show ${failed} ${partial} ${fine}\n`);
    expect(result.stderr).toContain(`error: task ${failed} failed: `);
    expect(result.stderr).not.toContain(`See the items: taskctl show ${failed}\n`);
    expect(result.stderr).toContain(
      `warning: task ${partial} completed with 1 failed item: taskctl show ${partial} --items-status failed`,
    );
  });

  it('one task: its items are on the screen, so the error points nowhere; with --no-results it points at them', async () => {
    const { run, failed } = await ended();
    const shown = await run(['wait', String(failed)], person);
    expect(shown.code).toBe(10);
    expect(shown.stdout).toContain('taskfail-b.com');
    expect(shown.stderr).toContain(`error: task ${failed} failed: `);
    expect(shown.stderr).not.toContain('taskctl show');
    const records = await run(['wait', String(failed), '--no-results'], person);
    expect(records.code).toBe(10);
    expect(records.stderr).toContain(`See the items: taskctl show ${failed}\n`);
  });

  it('in a script format nothing else names the items: the error keeps its hint', async () => {
    const { run, failed, fine } = await ended();
    const result = await run(['wait', String(failed), String(fine), '-o', 'json'], person);
    expect(result.code).toBe(10);
    expect(result.stderr).toContain(`See the items: taskctl show ${failed}\n`);
  });
});

describe('wait --any: the tasks left running', () => {
  it('are named with the wait that goes on; a wait with none left names none', async () => {
    const { run, sandbox } = await sandboxRun(1000);
    const quick = await postTask(sandbox, SERVICE, ['a.com']);
    const slow = await postTask(sandbox, SERVICE, ['slow-b.com']);
    const first = await run(['wait', String(quick), String(slow), '--any'], person);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.trimEnd().split('\n').at(-1)).toBe(`still running: taskctl wait ${slow} --any`);
    const rest = await run(['wait', String(slow), '--any'], person);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).not.toContain('still running');
  });
});
