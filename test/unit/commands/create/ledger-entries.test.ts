/**
 * The exactly-once rules per chunk and for `retry`, in process against the sandbox on a virtual clock: each
 * POST gets its own entry in the local ledger (cache dir `creates.json`), settled with its task, and an answer lost
 * after the service acted is recovered by the same reconciliation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { FakeClock, runTaskctl, T0 } from '../harness.js';

let sandbox: RunningSandbox | undefined;
let home: string | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

async function setup(balance = 1_000_000, rateLimit = 0) {
  const clock = new FakeClock(T0 + 250);
  sandbox = await startSandbox({ port: 0, clock, itemMs: 10, rateLimit, balance });
  home = mkdtempSync(join(tmpdir(), 'taskctl-ledger-cmd-'));
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  const run = (argv: string[]) => runTaskctl(argv, { clock, env, home });
  const fault = async (body: unknown) => {
    await fetch(`${sandbox!.origin}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  };
  const ledger = () =>
    (
      JSON.parse(readFileSync(join(home!, 'cache', 'creates.json'), 'utf8')) as {
        entries: Array<{ state: string; taskId?: number; count: number }>;
      }
    ).entries;
  return { clock, run, fault, ledger };
}

describe('the local ledger of creates', () => {
  it('--chunk-size: one entry per chunk; a chunk whose answer was lost is recovered as that chunk', async () => {
    const { run, fault, ledger } = await setup();
    await fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const result = await run([
      'create',
      'domain_check_availability',
      'a.com',
      'b.com',
      'c.com',
      '--chunk-size',
      '2',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('1\n2\n');
    expect(result.stderr).toMatch(/recovered: task 1 was created by this request/);
    expect(ledger().map((e) => [e.state, e.taskId, e.count])).toEqual([
      ['created', 1, 2],
      ['created', 2, 1],
    ]);
  });

  it('retry: the new task is recorded; a lost answer is recovered the same way', async () => {
    const { run, fault, ledger, clock } = await setup();
    const first = await run(['create', 'domain_check_availability', 'a.com', 'fail-b.com', '-q']);
    expect(first.code, first.stderr).toBe(0);
    clock.nowMs += 60_000; // the task has finished
    await fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const retried = await run(['retry', '1', '-q']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toBe('2\n');
    expect(retried.stderr).toMatch(/recovered: task 2 was created by this request/);
    expect(ledger().map((e) => [e.state, e.taskId])).toEqual([
      ['created', 1],
      ['created', 2],
    ]);
  });

  it('a POST refused by the service (insufficient balance) leaves no entry behind', async () => {
    const { run, ledger } = await setup(2);
    const created = await run(['create', 'domain_check_availability', 'a.com', '-q']);
    expect(created.code, created.stderr).toBe(0);
    const refused = await run(['create', 'domain_check_availability', 'b.com', 'c.com', 'd.com', '-q']);
    expect(refused.code, refused.stderr).toBe(6);
    expect(ledger().map((e) => [e.state, e.taskId])).toEqual([['created', 1]]);
  });

  it('a ledger that cannot be written is warned about once; the create goes on under the cross-machine rule', async () => {
    const { clock } = await setup();
    const blocked = join(home!, 'not-a-dir');
    writeFileSync(blocked, 'x');
    const env = { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey, TASKCTL_CACHE_DIR: blocked };
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], { clock, env, home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('1\n');
    expect(result.stderr.match(/the local ledger of creates cannot be used/g)).toHaveLength(1);
    // What failed, on which path, in words.
    expect(result.stderr).toContain(
      `warning: the local ledger of creates cannot be used (cannot make the cache directory ${blocked}: ${blocked} is a file, not a directory): `,
    );
  });
});

describe('case 3: whole-second created_at, the answer lost after the service acted', () => {
  it.each([0, 250, 500, 900, 999])(
    'sent at 12:00:00.%i on a server 3 s ahead that shows whole seconds: recovered, exit 0',
    async (ms) => {
      const clock = new FakeClock(T0 + ms);
      sandbox = await startSandbox({
        port: 0,
        clock,
        itemMs: 10,
        rateLimit: 0,
        dialects: ['whole-seconds'],
        clockSkewMs: 3000,
      });
      home = mkdtempSync(join(tmpdir(), 'taskctl-ledger-cmd-'));
      const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
      await fetch(`${sandbox.origin}/__sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 }),
      });
      const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], { clock, env, home });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('1\n');
      expect(result.stderr).toMatch(/recovered: task 1/);
    },
  );
});

describe('the snapshot before the POST under a spent rate-limit budget', () => {
  it('waits for the budget like the POST does, so an answer lost afterwards is recovered (exit 0), not exit 9', async () => {
    const { run, fault } = await setup(1_000_000, 6);
    // Another client has spent five of the six requests of this minute; the price read spends the sixth.
    for (let i = 0; i < 5; i++) {
      const spent = await fetch(`${sandbox!.url}/balance`, { headers: { 'x-api-key': sandbox!.apiKey } });
      expect(spent.status).toBe(200);
    }
    await fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const result = await run(['create', 'domain_check_availability', 'a.com', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('1\n');
    expect(result.stderr).toMatch(/recovered: task 1/);
  });
});
