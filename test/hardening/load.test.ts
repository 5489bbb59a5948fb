/**
 * Hardening matrix, concurrency and load rows (test/README.md, L1–L5): the client paces itself so that a large run
 * draws no 429 from a sandbox at the documented limit (100/min), and two clients sharing a key (two `main()` runs, each with
 * its own limiter, on a clock shared with the sandbox whose sleeps are short) both finish when they draw 429s from each other.
 * Tasks are seeded through a sandbox state file, so seeding spends no rate-limit budget.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { Clock } from '../../src/lib/time.js';
import { SkipClock } from '../campaign/world.js';
import { isolatedHome } from '../e2e/spawn-cli.js';
import { KEY, runInProcess } from './scripted-server.js';

interface Stats {
  total: number;
  requests: Record<string, number>;
  rateLimited: number;
}

interface SeedTask {
  startAt: number;
  itemMs: number;
}

/** A sandbox whose state file already holds `tasks` (one item each), and an isolated CLI environment for it. */
async function seededSandbox(
  context: TestContext,
  tasks: SeedTask[],
  options: { rateLimit: number; clock?: { now: () => number } },
): Promise<{ sandbox: RunningSandbox; env: Record<string, string>; stats: () => Promise<Stats> }> {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-load-'));
  const stateFile = join(dir, 'state.json');
  const createdAt = Date.now() - 60_000;
  writeFileSync(
    stateFile,
    JSON.stringify({
      version: 1,
      balance: 1_000_000,
      apiKey: KEY,
      keyRotations: 0,
      nextId: tasks.length + 1,
      webhookUrl: null,
      tasks: tasks.map((t, i) => ({
        id: i + 1,
        service: 'domain_check_availability',
        items: [`t${i + 1}.example.com`],
        cost: 1,
        createdAt,
        startAt: t.startAt,
        itemMs: t.itemMs,
      })),
    }),
  );
  const sandbox = await startSandbox({
    port: 0,
    stateFile,
    rateLimit: options.rateLimit,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const home = isolatedHome();
  context.onTestFinished(async () => {
    await sandbox.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = { ...home.env, TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: KEY };
  const stats = async () => (await (await fetch(`${sandbox.origin}/__sandbox/stats`)).json()) as Stats;
  return { sandbox, env, stats };
}

const finished = (n: number): SeedTask[] =>
  Array.from({ length: n }, () => ({ startAt: Date.now() - 30_000, itemMs: 0 }));
const ids = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => Number(line.split('\t')[0]));

/**
 * One clock for the sandbox and the clients (the campaigns' SkipClock), starting so that the sandbox's minute window
 * ends `secondsLeft` from now. It runs in real time, but a sleep takes 1/20 of its length and then moves "now" on to
 * the sleep's end (never back, never past it for concurrent sleepers: `sharedSleeps`), so waiting for a window costs
 * little and request latency is not magnified.
 */
const windowEndingIn = (secondsLeft: number): Clock =>
  new SkipClock({
    scale: 20,
    offsetMs: ((60 - secondsLeft) * 1000 - (Date.now() % 60_000) + 60_000) % 60_000,
    sharedSleeps: true,
  });

describe.concurrent('L: pacing under the rate limit', () => {
  it('L1 list --all over 5,000 tasks at 100/min: every task once, no 429', async (context) => {
    const { env, stats } = await seededSandbox(context, finished(5_000), { rateLimit: 100 });
    // In this process (the pacing is the subject, not the process), on a virtual clock from now: 50 pages fit the
    // sandbox's window of 100, so nothing waits.
    const result = await runInProcess(['list', '--all', '--per-page', '100'], { env });
    expect(result.code, result.stderr).toBe(0);
    const listed = ids(result.stdout);
    expect(listed).toHaveLength(5_000);
    expect(new Set(listed).size).toBe(5_000);
    const s = await stats();
    expect(s.rateLimited).toBe(0);
    expect(s.requests['GET /api/v1/tasks']).toBe(50);
  }, 40_000);

  it('L2 wait on 300 tasks at 100/min: exit 0 once all finish, no 429, at most ⌈300/100⌉+1 requests a round', async (context) => {
    // In this process, on a clock shared with the sandbox (its sleeps 20× shorter, a fresh minute window): the tasks
    // finish one after another over about 3.5 s of that clock, so the wait polls several rounds.
    const clock = windowEndingIn(60);
    const now = clock.now();
    const tasks = Array.from({ length: 300 }, (_, i) => ({ startAt: now + 500 + i * 10, itemMs: 200 }));
    const { env, stats } = await seededSandbox(context, tasks, { rateLimit: 100, clock });
    const stdin = tasks.map((_, i) => String(i + 1)).join('\n');
    const result = await runInProcess(['wait', '-', '--verbose'], { env, stdin, clock });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(new Set(ids(result.stdout)).size).toBe(300);
    const s = await stats();
    expect(s.rateLimited).toBe(0);
    // Rounds of at most 4 requests (three pages of 100, or fewer detail reads) over a few seconds of polling.
    expect(s.total).toBeLessThanOrEqual(40);
    expect(s.total).toBe((result.stderr.match(/^> GET /gm) ?? []).length);
    expect(result.stderr).not.toMatch(/HTTP 429|rate limit/i);
  }, 45_000);

  it('L5 a sandbox with an injected clock dates its answers by that clock, so an epoch X-RateLimit-Reset reads right', async (context) => {
    const shifted = { now: () => Date.now() + 3_600_000 };
    const { sandbox } = await seededSandbox(context, finished(1), { rateLimit: 10, clock: shifted });
    const response = await fetch(`${sandbox.url}/balance`, { headers: { 'X-API-Key': KEY } });
    await response.arrayBuffer();
    const date = Date.parse(response.headers.get('date') ?? '');
    expect(Math.abs(date - shifted.now())).toBeLessThan(2_000);
    const untilReset = Number(response.headers.get('x-ratelimit-reset')) * 1000 - date;
    expect(untilReset).toBeGreaterThan(0);
    expect(untilReset).toBeLessThanOrEqual(61_000);
  });

  // In this process: two `main()` runs are two clients with their own limiters sharing a key and a config directory,
  // as two processes are; the process itself is not the subject.
  const listAll = (env: Record<string, string>, clock: Clock) =>
    runInProcess(['list', '--all', '--per-page', '2'], { env, clock });
  const allIds = new Set(Array.from({ length: 40 }, (_, i) => i + 1));

  // L3 and L4 spend most of their time waiting for a window to end: they run side by side.
  it.concurrent(
    'L3 two clients sharing a key at 30/min both finish (40 requests: the second window is needed)',
    async (context) => {
      // The clock is shifted so that the sandbox's minute window ends ~15 s from now: the two runs (20 requests each)
      // exhaust window 1 and finish in window 2, so the test takes ~17 s of the clock (a second or two real) instead of a minute.
      const clock = windowEndingIn(15);
      const { env, stats } = await seededSandbox(context, finished(40), { rateLimit: 30, clock });
      const started = clock.now();
      const [a, b] = await Promise.all([listAll(env, clock), listAll(env, clock)]);
      for (const result of [a, b]) {
        expect(result.code, result.stderr).toBe(0);
        expect(new Set(ids(result.stdout))).toEqual(allIds);
      }
      const s = await stats();
      // 40 answered requests, whatever number of 429s the two drew from each other (their pacing usually avoids any).
      expect(s.requests['GET /api/v1/tasks']! - s.rateLimited).toBe(40);
      // ~15 s to the reset plus a second of margin; a client misreading the reset (or a sandbox whose Date header does
      // not follow its clock) waits up to a whole extra window.
      expect(clock.now() - started).toBeLessThan(30_000);
    },
    60_000,
  );

  it.concurrent(
    'L4 the same, with the window already spent by a third client: both draw 429s, wait, and finish',
    async (context) => {
      const clock = windowEndingIn(12);
      const { sandbox, env, stats } = await seededSandbox(context, finished(40), { rateLimit: 50, clock });
      // Someone else with the same key spends the whole window, unseen by the two processes' limiters.
      for (let i = 0; i < 50; i++) {
        await fetch(`${sandbox.url}/balance`, { headers: { 'X-API-Key': KEY } }).then((r) => r.arrayBuffer());
      }
      const [a, b] = await Promise.all([listAll(env, clock), listAll(env, clock)]);
      for (const result of [a, b]) {
        expect(result.code, result.stderr).toBe(0);
        expect(new Set(ids(result.stdout))).toEqual(allIds);
      }
      const s = await stats();
      expect(s.rateLimited).toBeGreaterThanOrEqual(2);
      expect(s.requests['GET /api/v1/tasks']! - s.rateLimited).toBe(40);
    },
    60_000,
  );
});
