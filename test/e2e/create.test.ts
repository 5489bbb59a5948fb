/**
 * `taskctl create` against a real sandbox: item sources, validation, cost guards and exactly-once submission under faults
 * run `main()` in this process (their subject is the command, not the process); a failing stdout (real pipes,
 * /dev/full) and Ctrl-C spawn the bin.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, exitOf, runProcess, startWorld, type E2EWorld } from './spawn-cli.js';

interface SandboxState {
  balance: number;
  tasks: Array<{ id: number; service: string; items?: Array<{ target: string }>; total_items?: number }>;
}

let world: E2EWorld;
beforeEach(async () => {
  world = await startWorld({ itemMs: 0 });
});
afterEach(() => world.close());

const state = () => world.admin<SandboxState>('GET', '/__sandbox/state');
async function itemsOf(id: number): Promise<string[]> {
  const result = await world.inProcess(['show', String(id), '-o', 'json']);
  return (JSON.parse(result.stdout) as { items: Array<{ target: string }> }).items.map((i) => i.target);
}
function file(name: string, content: string | Buffer): string {
  const dir = join(world.home.dir, 'items');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('item sources', () => {
  it('takes items from arguments and prints the created task as tsv', async () => {
    const result = await world.inProcess(['create', 'domain_check_availability', 'Example.COM', 'example.org']);
    expect(result.code).toBe(0);
    const [id, service, status, total, cost] = result.stdout.trim().split('\t');
    expect([service, status, total, cost]).toEqual(['domain_check_availability', 'pending', '2', '2']);
    expect(await itemsOf(Number(id))).toEqual(['example.com', 'example.org']);
    expect(result.stderr).toMatch(/task \d+ for 2 items, 2 coins/);
  });

  it('reads piped stdin (BOM, CRLF, comments, blank lines) and removes duplicates with a notice', async () => {
    const input = '\uFEFF# my list\r\na.com\r\n\r\nb.com\r\na.com\r\n';
    const result = await world.inProcess(['create', 'domain_check_availability'], { stdin: input });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/removed 1 duplicate item/);
    expect(await itemsOf(Number(result.stdout.split('\t')[0]))).toEqual(['a.com', 'b.com']);
  });

  it('prints only the id with -q, and on stderr only the job it belongs to', async () => {
    const result = await world.inProcess(['create', 'domain_check_availability', 'a.com', 'a.com', '-q']);
    expect(result.stdout).toMatch(/^\d+\n$/);
    expect(result.stderr).toMatch(/^job j-[0-9a-z]+: taskctl jobs\n$/);
  });

  it('sends duplicates with --keep-duplicates', async () => {
    const result = await world.inProcess([
      'create',
      'domain_check_availability',
      'a.com',
      'a.com',
      '--keep-duplicates',
      '-q',
    ]);
    expect(await itemsOf(Number(result.stdout))).toEqual(['a.com', 'a.com']);
  });

  it('reads files with -f (several, and - for stdin) and a CSV column', async () => {
    const lines = file('domains.txt', 'one.com\ntwo.com\n');
    const csv = file('leads.csv', 'name,domain\n"Acme, Inc.",acme.com\nBeta,beta.io\n');
    const result = await world.inProcess(['create', 'domain_check_availability', '-f', lines, '-f', '-', '-q'], {
      stdin: 'three.com\n',
    });
    expect(await itemsOf(Number(result.stdout))).toEqual(['one.com', 'two.com', 'three.com']);
    const fromCsv = await world.inProcess([
      'create',
      'domain_check_availability',
      '-f',
      csv,
      '--column',
      'domain',
      '-q',
    ]);
    expect(fromCsv.code).toBe(0);
    expect(await itemsOf(Number(fromCsv.stdout))).toEqual(['acme.com', 'beta.io']);
  });

  it('refuses invalid items with file:line, exit 3, and sends nothing; --skip-invalid drops them', async () => {
    const path = file('bad.txt', 'ok.com\nhttp://x.com/path\nbad..com\n');
    const refused = await world.inProcess(['create', 'domain_check_availability', '-f', path]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/bad\.txt:2/);
    expect(refused.stderr).toMatch(/bad\.txt:3/);
    expect((await state()).tasks).toHaveLength(0);
    const skipped = await world.inProcess(['create', 'domain_check_availability', '-f', path, '--skip-invalid', '-q']);
    expect(skipped.code).toBe(0);
    expect(await itemsOf(Number(skipped.stdout))).toEqual(['ok.com']);
  });

  it('exits 3 for a missing file and for binary input, naming them', async () => {
    const missing = await world.inProcess([
      'create',
      'domain_check_availability',
      '-f',
      join(world.home.dir, 'nope.txt'),
    ]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/nope\.txt/);
    const binary = await world.inProcess([
      'create',
      'domain_check_availability',
      '-f',
      file('bin.dat', Buffer.from([0x61, 0x00, 0x62, 0x0a])),
    ]);
    expect(binary.code).toBe(3);
    expect((await state()).tasks).toHaveLength(0);
  });

  it('exits 5 for an unknown service before sending anything', async () => {
    const result = await world.inProcess(['create', 'domain_check', 'a.com']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/unknown service "domain_check"/);
    expect(result.stderr).toMatch(/domain_check_availability/);
    expect((await state()).tasks).toHaveLength(0);
  });
});

describe('cost guards', () => {
  it('--dry-run prints the estimate and balance after, and changes nothing', async () => {
    const before = await state();
    const result = await world.inProcess([
      'create',
      'domain_whois_history',
      'a.com',
      'b.com',
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      service: 'domain_whois_history',
      items: 2,
      estimate: 10,
      balance: before.balance,
      balance_after: before.balance - 10,
    });
    const after = await state();
    expect(after.balance).toBe(before.balance);
    expect(after.tasks).toHaveLength(0);
  });

  it('--max-cost refuses above the limit with exit 6 and sends nothing', async () => {
    const result = await world.inProcess(['create', 'domain_whois_history', 'a.com', 'b.com', '--max-cost', '9']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/estimate is 10 coins, above --max-cost 9/);
    expect((await state()).tasks).toHaveLength(0);
  });

  it('insufficient balance exits 6 and creates no task', async () => {
    await world.admin('POST', '/__sandbox/balance', { balance: 3 });
    const result = await world.inProcess(['create', 'domain_whois_history', 'a.com']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/the estimate is 5 coins, above the balance of 3; nothing was created/);
    const after = await state();
    expect(after.tasks).toHaveLength(0);
    expect(after.balance).toBe(3);
  });

  it('a chunked job over the balance, with -y: exit 6 naming what fits, and no POST reaches the service', async () => {
    await world.admin('POST', '/__sandbox/balance', { balance: 668 });
    await world.admin('POST', '/__sandbox/stats/reset');
    const items = Array.from({ length: 300 }, (_, i) => `d${i}.com`).join('\n');
    // domain_whois_history: 5 coins an item, 1,500 in all; the balance covers one chunk of 100 (500 coins).
    const result = await world.inProcess(['create', 'domain_whois_history', '--chunk-size', '100', '-y'], {
      stdin: items,
    });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('the estimate is 1,500 coins, above the balance of 668; nothing was created');
    expect(result.stderr).toContain('The balance covers 133 of the 300 items (1 whole chunk of 100).');
    const stats = await world.admin<{ requests: Record<string, number> }>('GET', '/__sandbox/stats');
    expect(stats.requests['POST /api/v1/tasks'] ?? 0).toBe(0);
    expect((await state()).tasks).toHaveLength(0);
  });

  it('--chunk-size creates several tasks in order and prints every id', async () => {
    const result = await world.inProcess([
      'create',
      'domain_check_availability',
      'a.com',
      'b.com',
      'c.com',
      '--chunk-size',
      '2',
      '-q',
    ]);
    expect(result.code).toBe(0);
    const ids = result.stdout.trim().split('\n').map(Number);
    expect(ids).toHaveLength(2);
    expect(await itemsOf(ids[0]!)).toEqual(['a.com', 'b.com']);
    expect(await itemsOf(ids[1]!)).toEqual(['c.com']);
  });
});

describe('exactly-once submission', () => {
  it('recovers the task when the connection drops after the server created it (reset-after)', async () => {
    await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const result = await world.inProcess(['create', 'domain_check_availability', 'a.com', 'b.com', '-q']);
    expect(result.stderr).toMatch(/recovered: task \d+/);
    expect(result.code).toBe(0);
    const tasks = (await state()).tasks;
    expect(tasks).toHaveLength(1);
    expect(result.stdout.trim()).toBe(String(tasks[0]!.id));
  });

  it('never creates two tasks when the connection drops before processing (reset-before)', async () => {
    await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'reset-before', count: 1 });
    const result = await world.inProcess(['create', 'domain_check_availability', 'a.com', '-q']);
    const tasks = (await state()).tasks;
    expect(tasks.length).toBeLessThanOrEqual(1);
    // Either nothing was created and the outcome is reported unknown (9), or a later attempt created exactly one.
    if (tasks.length === 0) {
      expect(result.code).toBe(9);
      expect(result.stderr).toMatch(/Continue it with: taskctl resume j-[0-9a-z]+\n$/);
    } else {
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(String(tasks[0]!.id));
    }
  });

  it('a 500 after sending is reconciled, not resent blindly', async () => {
    await world.admin('POST', '/__sandbox/faults', {
      method: 'POST',
      path: '/tasks',
      kind: 'status',
      status: 500,
      count: 1,
    });
    const result = await world.inProcess(['create', 'domain_check_availability', 'a.com']);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/may have created a task/);
    expect((await state()).tasks).toHaveLength(0);
  });

  it('--reuse-window reuses a task with the same items and creates one for a changed list', async () => {
    const first = await world.inProcess([
      'create',
      'domain_check_availability',
      'a.com',
      'b.com',
      '-q',
      '--reuse-window',
      '1h',
    ]);
    const again = await world.inProcess([
      'create',
      'domain_check_availability',
      'b.com',
      'a.com',
      '--reuse-window',
      '1h',
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\t')[0]).toBe(first.stdout.trim());
    expect(again.stderr).toMatch(new RegExp(`reusing task ${first.stdout.trim()}`));
    const changed = await world.inProcess([
      'create',
      'domain_check_availability',
      'a.com',
      'c.com',
      '-q',
      '--reuse-window',
      '1h',
    ]);
    expect(changed.stdout).not.toBe(first.stdout);
    expect((await state()).tasks).toHaveLength(2);
  });
});

describe('a failing stdout never hides a side effect (real pipes and /dev/full)', () => {
  /** Runs `taskctl ARGS | tail` in bash; stdout of the pipeline, stderr of taskctl, and taskctl's own exit code. */
  async function piped(args: string[], into: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const quoted = args.map((a) => `'${a}'`).join(' ');
    const script = `"${process.execPath}" "${BIN}" ${quoted} ${into}; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const env = { ...world.env, PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const result = await runProcess('bash', ['-c', script], { env, label: script, timeoutMs: 30_000 });
    const code = Number(/exit=(\d+)/.exec(result.stderr)?.[1]);
    return { code, stdout: result.stdout, stderr: result.stderr.replace(/exit=\d+\n$/, '') };
  }
  const five = ['create', 'domain_check_availability', 'a.com', 'b.com', 'c.com', 'd.com', 'e.com'];

  it('create --chunk-size 1 -q | head -1: no chunk starts after the reader left, every task is named, exit 14', async () => {
    // head exits after the first line; taskctl learns it at its next write.
    const result = await piped([...five, '--chunk-size', '1', '-q'], '| head -1');
    const ids = (await state()).tasks.map((t) => t.id);
    expect(result.stdout.trim()).toBe(String(ids[0]));
    expect(result.code).toBe(14);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `cannot write the output \\(the reader went away\\): created ${ids.length} of 5 tasks: ${ids.join(' ')}`,
      ),
    );
    if (ids.length < 5) expect(result.stderr).toMatch(/no further task was started/);
  });

  it('create -q > /dev/full: the task is named on stderr, exit 14', async () => {
    const result = await piped(['create', 'domain_check_availability', 'a.com', '-q'], '> /dev/full');
    const ids = (await state()).tasks.map((t) => t.id);
    expect(ids).toHaveLength(1);
    expect(result.code).toBe(14);
    expect(result.stderr).toMatch(
      new RegExp(`cannot write the output \\(the disk is full\\): created 1 of 1 task: ${ids[0]}`),
    );
    expect(result.stderr).toMatch(/See them: taskctl show --job j-[0-9a-z]+\n$/);
  });
  // A reader that goes away from a command without side effects (`list | head -1`, exit 0): read.test.ts.
});

describe('Ctrl-C (a real SIGINT)', () => {
  it('while a lost create is being reconciled: exit 130, "may have been created" and the list command', async () => {
    await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    // The listing before the POST passes; every later one fails, so the reconciliation is still going at the signal.
    await world.admin('POST', '/__sandbox/faults', { method: 'GET', path: '/tasks', kind: 'delay', delayMs: 0 });
    await world.admin('POST', '/__sandbox/faults', {
      method: 'GET',
      path: '/tasks',
      kind: 'status',
      status: 503,
      count: 100,
    });
    const child = spawn(process.execPath, [BIN, 'create', 'domain_check_availability', 'a.com', '-q'], {
      env: { PATH: process.env.PATH ?? '', ...world.env },
    });
    let stderr = '';
    let signalled = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (!signalled && stderr.includes('checking the task list')) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const { code } = await exitOf(child, { timeoutMs: 25_000, describe: () => `stderr so far: ${stderr}` });
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted while checking whether the task was created .*: it may have been created/);
    expect(stderr).toMatch(/Continue it with: taskctl resume j-[0-9a-z]+\n$/);
  });
});
