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
import { itemsDigest } from '../../../../src/store/ledger.js';
import type { Clock } from '../../../../src/lib/time.js';
import { POST_TIMEOUT_MS } from '../../../../src/api/constants.js';
import { LANDING_MARGIN_MS } from '../../../../src/core/submit/send.js';
import { notRunningPid } from '../../pids.js';
import { FakeClock, runTaskctl, T0 } from '../run-in-process.js';

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

  it('without a usable ledger, a lost answer recovered from the list never says that no other local run claims it', async () => {
    const { clock, fault } = await setup();
    const blocked = join(home!, 'not-a-dir');
    writeFileSync(blocked, 'x');
    const env = { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey, TASKCTL_CACHE_DIR: blocked };
    await fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], { clock, env, home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('1\n');
    expect(result.stderr.match(/the local ledger of creates cannot be used/g)).toHaveLength(1);
    // The ledger was never read: the other runs of this machine were not looked at, and the line says so.
    expect(result.stderr).not.toMatch(/claims it/);
    expect(result.stderr).toContain(
      'warning: recovered: task 1 was created by this request (the response was lost; it is the only matching task in the window in which this request could have been processed; other taskctl runs on this machine could not be checked: the local ledger cannot be used)',
    );
  });

  it('with the ledger, the recovery says that no other local run claims the task', async () => {
    const { run, fault } = await setup();
    await fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
    const result = await run(['create', 'domain_check_availability', 'a.com', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'warning: recovered: task 1 was created by this request (the response was lost; it is the only matching task in the window in which this request could have been processed, and no other run on this machine claims it)',
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

describe('a re-run after a run killed with its request out (--reuse-window, and so every retry)', () => {
  const S = 'domain_check_availability';
  const ITEMS = ['a.com', 'b.com'];
  it.each([
    ['lands while it still could: the re-run, waiting, finds it and reuses it (one task, no POST)', true],
    ['never lands: the re-run sends once it could no longer land (one POST, after that instant)', false],
  ])('its request %s', async (_, lands) => {
    const { clock, run } = await setup();
    expect((await run(['create', S, 'seed.com', '-y', '-q'])).code).toBe(0);
    // The killed run's entry: this account's (as the seed's), its process gone, sent 1 s ago, never answered.
    const path = join(home!, 'cache', 'creates.json');
    const file = JSON.parse(readFileSync(path, 'utf8')) as { entries: Array<Record<string, unknown>> };
    const { taskId: _task, closedAt: _closed, job: _job, ...seed } = file.entries[0] ?? {};
    const sentAt = clock.now() - 1000;
    const killed = { ...seed, id: 'killed01', run: 'killedrun', pid: notRunningPid(), state: 'sending', sentAt };
    const job = { journal: 'j-killedjob01', chunk: 2 }; // a journaled run's chunk: its job keeps it in doubt
    const landsUntil = sentAt + POST_TIMEOUT_MS + LANDING_MARGIN_MS; // as its run (default timeout) recorded it
    const digest = itemsDigest(ITEMS);
    const entry = { ...killed, job, count: ITEMS.length, digest, expiresAt: sentAt + 600_000, landsUntil };
    writeFileSync(path, JSON.stringify({ ...file, entries: [...file.entries, entry] }));
    const tasks = async () => {
      const response = await fetch(`${sandbox!.url}/tasks?per_page=100`, { headers: { 'X-API-Key': sandbox!.apiKey } });
      const body = (await response.json()) as { data: Array<{ id: number; total_items: number; created_at: string }> };
      return body.data.filter((task) => task.total_items === ITEMS.length);
    };
    const seen: number[] = [];
    let landed: number | undefined;
    const watching: Clock = {
      now: () => clock.now(),
      sleep: async (ms, signal) => {
        // Each wait of the re-run: nothing of its own sent so far; the killed run's request lands during the first.
        seen.push((await tasks()).length - (landed === undefined ? 0 : 1));
        if (lands && landed === undefined) {
          const response = await fetch(`${sandbox!.url}/tasks`, {
            method: 'POST',
            headers: { 'X-API-Key': sandbox!.apiKey, 'content-type': 'application/json' },
            body: JSON.stringify({ service: S, items: ITEMS }),
          });
          landed = ((await response.json()) as { data: { id: number } }).data.id;
        }
        return clock.sleep(ms, signal);
      },
    };
    const rerun = await runTaskctl(['create', S, ...ITEMS, '--reuse-window', '1h', '-y', '-q'], {
      clock: watching,
      env: { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey },
      home,
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`its request could land until ${new Date(landsUntil).toISOString()}`);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((count) => count === 0)).toBe(true);
    const [only, ...more] = await tasks();
    expect(more).toEqual([]);
    expect(rerun.stderr).toContain(
      `job j-killedjob01 stopped with these items in doubt (its chunk 2); this run's task ${only?.id} covers them`,
    );
    if (lands) {
      expect(rerun.stdout.trim()).toBe(String(landed));
    } else {
      expect(rerun.stdout.trim()).toBe(String(only?.id));
      expect(Date.parse(only?.created_at ?? '')).toBeGreaterThanOrEqual(landsUntil);
    }
  });
});

describe('the wait for a killed run: its own landing and its own send, whatever the re-run says', () => {
  const S = 'domain_check_availability';
  const ITEMS = ['k1.com', 'k2.com'];
  /** A seed run's ledger entry (written with `seedArgs`) turned into a killed run's request for ITEMS. */
  async function killedRun(
    seedArgs: string[],
    shape = (entry: Record<string, unknown>) => entry,
    items: readonly string[] = ITEMS,
  ) {
    const world = await setup();
    expect((await world.run(['create', S, 'seed.com', '-y', '-q', ...seedArgs])).code).toBe(0);
    const path = join(home!, 'cache', 'creates.json');
    const file = JSON.parse(readFileSync(path, 'utf8')) as { entries: Array<Record<string, unknown>> };
    const { taskId: _task, closedAt: _closed, job: _job, ...seed } = file.entries[0] ?? {};
    const killed = { ...seed, id: 'killed02', run: 'killedrun', pid: notRunningPid(), state: 'sending' };
    const entry = shape({ ...killed, count: items.length, digest: itemsDigest(items) });
    writeFileSync(path, JSON.stringify({ ...file, entries: [...file.entries, entry] }));
    const post = async () => {
      const response = await fetch(`${sandbox!.url}/tasks`, {
        method: 'POST',
        headers: { 'X-API-Key': sandbox!.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ service: S, items }),
      });
      return ((await response.json()) as { data: { id: number } }).data.id;
    };
    const tasks = async () => {
      const response = await fetch(`${sandbox!.url}/tasks?per_page=100`, { headers: { 'X-API-Key': sandbox!.apiKey } });
      const body = (await response.json()) as { data: Array<{ id: number; total_items: number }> };
      return body.data.filter((task) => task.total_items === items.length);
    };
    const rerun = (argv: string[], clock: Clock, quiet = true) =>
      runTaskctl(['create', S, ...items, '-y', ...(quiet ? ['-q'] : []), ...argv], {
        clock,
        env: { TASKCTL_BASE_URL: sandbox!.url, TASKCTL_API_KEY: sandbox!.apiKey },
        home,
      });
    return { ...world, sentAt: Number(seed.sentAt), post, tasks, rerun };
  }

  it('a request sent with --request-timeout 5m: a default re-run waits past 62 s and reuses the task landing at +100 s', async () => {
    const { clock, sentAt, post, tasks, rerun } = await killedRun(['--request-timeout', '5m']);
    const landing = landingAt(clock, sentAt + 100_000, post);
    const result = await rerun(['--reuse-window', '1h'], landing.clock);
    const landed = landing.landed();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `could land until ${new Date(sentAt + 5 * 60_000 + LANDING_MARGIN_MS).toISOString()}`,
    );
    expect(landed).toBeDefined();
    expect(result.stdout.trim()).toBe(String(landed));
    expect((await tasks()).map((task) => task.id)).toEqual([landed]);
  });

  it('an entry of an earlier version (no landing recorded) is waited for until it expires, not the re-run’s 62 s', async () => {
    const older = ({ landsUntil: _lands, ...entry }: Record<string, unknown>) => ({
      ...entry,
      expiresAt: Number(entry.sentAt) + 200_000,
    });
    const { clock, sentAt, post, tasks, rerun } = await killedRun([], older);
    const landing = landingAt(clock, sentAt + 150_000, post);
    const result = await rerun(['--reuse-window', '1h'], landing.clock);
    const landed = landing.landed();
    expect(result.code, result.stderr).toBe(0);
    expect(landed).toBeDefined();
    expect(result.stdout.trim()).toBe(String(landed));
    expect((await tasks()).map((task) => task.id)).toEqual([landed]);
  });

  it('--reuse-window 20s: the killed run’s task, made at its send and listed at +30 s, is reused (no POST)', async () => {
    const { clock, sentAt, post, tasks, rerun } = await killedRun([]);
    const landed = await post(); // made right at the killed run's send
    clock.advance(sentAt + 30_000 - clock.now());
    // Not quiet: the line that says why the task is reused is on stderr.
    const result = await rerun(['--reuse-window', '20s', '-o', 'tsv'], clock, false);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\t')[0]).toBe(String(landed));
    expect((await tasks()).map((task) => task.id)).toEqual([landed]);
    // Older than the window: found because the walk reached back to the stopped run's send, and said so.
    expect(result.stderr).toContain('(found back to the send of the stopped run above, --reuse-window 20s or before)');
    expect(result.stderr).not.toContain('within --reuse-window');
  });

  it('the killed run’s task, ended with failed items before the re-run lists it, is reused all the same (no POST)', async () => {
    // What a retry of failing items makes: its task completes with them failed again, during the re-run's wait.
    const failing = ['fail-k1.com', 'fail-k2.com'];
    const { clock, sentAt, post, tasks, rerun } = await killedRun([], undefined, failing);
    const landed = await post();
    clock.advance(sentAt + 30_000 - clock.now());
    const result = await rerun(['--reuse-window', '1h', '-o', 'tsv'], clock, false);
    expect(result.stdout.split('\t')[0], result.stderr).toBe(String(landed));
    expect((await tasks()).map((task) => task.id)).toEqual([landed]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/reusing task \d+: same service and items, completed/);
  });
});

/** `clock`, with the killed run's request landing (`post`) at the first wait at or past `at`. */
function landingAt(clock: Clock, at: number, post: () => Promise<number>) {
  let landed: number | undefined;
  const watching: Clock = {
    now: () => clock.now(),
    sleep: async (ms, signal) => {
      if (landed === undefined && clock.now() >= at) landed = await post();
      return clock.sleep(ms, signal);
    },
  };
  return { clock: watching, landed: () => landed };
}
