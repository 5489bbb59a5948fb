/**
 * `wait` in-process against the sandbox on one virtual clock: plain lines with moving counts, no placeholder
 * or duplicate lines, the heartbeat with fresh counts, the live block's ✓/✗ and Ctrl-C hint; the answers that
 * will not change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { FakeClock, mockApi, runTaskctl } from '../run-in-process.js';
import type { RunOptions } from '../run-in-process.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function setup(itemMs: number) {
  const clock = new FakeClock();
  sandbox = await startSandbox({ port: 0, clock, itemMs, rateLimit: 100, seed: 1, balance: 1_000_000 });
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  const run = (argv: string[], options: RunOptions = {}) =>
    runTaskctl(argv, { clock, ...options, env: { ...env, ...options.env } });
  const create = async (items: string[]): Promise<number> => {
    const result = await run(['create', 'domain_check_availability', ...items, '-q']);
    expect(result.stderr).toMatch(/^job j-[0-9a-z]+: taskctl jobs\n$/);
    expect(result.code).toBe(0);
    return Number(result.stdout.trim());
  };
  return { clock, run, create, sandbox };
}

const domains = (n: number, prefix = 'd') => Array.from({ length: n }, (_, i) => `${prefix}${i}.example.com`);
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
/** What was written after the live block was last cleared (its lines are cleared one by one: CSI 2K). */
const afterBlock = (text: string) => text.slice(text.lastIndexOf('\x1b[2K') + 4).replace(/\x1b\[\d*[ABGK]/g, '');
const lines = (text: string) => text.split('\n').filter((line) => line !== '');
/** A plain progress line without its timestamp. */
const body = (line: string) => line.replace(/^\S+Z /, '');

describe('wait: plain progress (not a terminal / CI)', () => {
  it('a 10 s task: counts that move, no placeholder and no duplicate lines, the end noticed at once', async () => {
    const { run, create, clock } = await setup(200);
    const id = await create(domains(50));
    const started = clock.now();
    const result = await run(['wait', String(id), '-o', 'tsv'], { env: { CI: 'true' } });
    expect(result.code).toBe(0);
    const progress = lines(result.stderr).map(body);
    const counts = new Set(progress.map((line) => /items (\d+)\/50/.exec(line)?.[1]).filter(Boolean));
    expect(counts.size).toBeGreaterThanOrEqual(3);
    expect(progress.some((line) => line.includes('…'))).toBe(false);
    const states = progress.map((line) => line.replace(/, [^,]*elapsed$/, '').replace(/, [\d.]+\/s|, ETA \S+/g, ''));
    expect(new Set(states).size).toBe(states.length);
    expect(progress[progress.length - 1]).toMatch(
      /^✓ task \d+ completed items 50\/50 \(100% finished\), 0:1\d elapsed$/,
    );
    // About 10 s of work, noticed within 2 s of its end.
    expect(clock.now() - started).toBeLessThan(10_500 + 2000);
  });

  it('a long task writes about 60 count lines at most, and a heartbeat each minute carries fresh counts', async () => {
    const { run, create } = await setup(2000);
    const id = await create(domains(300));
    const result = await run(['wait', String(id), '-o', 'tsv', '--timeout', '20m'], { env: { CI: 'true' } });
    expect(result.code).toBe(0);
    const progress = lines(result.stderr).map(body);
    expect(progress.length).toBeLessThanOrEqual(75);
    const processing = progress.filter((line) => line.includes('processing'));
    expect(new Set(processing).size).toBe(processing.length);
    // Lines a minute apart or less all the way: the heartbeat never repeats a stale count.
    const stamps = lines(result.stderr).map((line) => Date.parse(line.split(' ')[0] ?? ''));
    for (let i = 1; i < stamps.length; i++) expect((stamps[i] ?? 0) - (stamps[i - 1] ?? 0)).toBeLessThanOrEqual(61_000);
  });
});

describe('wait: on a terminal', () => {
  it('puts ✓ and ✗ on the tasks that earned them', async () => {
    const { run, create } = await setup(100);
    const good = await create(domains(3, 'ok'));
    // The sandbox fails items whose name says so (docs/sandbox.md#magic-items); one failed item earns the ✗.
    const bad = await create(['fail-1.example.com', 'b1.example.com']);
    const result = await run(['wait', String(good), String(bad)], { stderrTTY: true, columns: 80 });
    expect(result.code).toBe(11);
    const final = plain(afterBlock(result.stderr));
    expect(final).toMatch(new RegExp(`✓ task ${good} completed`));
    expect(final).toMatch(new RegExp(`✗ task ${bad} completed`));
    expect(final).not.toMatch(new RegExp(`✗ task ${good}\\b`));
  });

  it('a task still running at the end keeps the icon column, so its bar lines up with the ended ones', async () => {
    const { run, create } = await setup(1000);
    const quick = await create(domains(1, 'q'));
    const slow = await create(domains(30, 's'));
    const result = await run(['wait', String(quick), String(slow), '--any'], { stderrTTY: true, columns: 80 });
    expect(result.code, result.stderr).toBe(0);
    const final = plain(afterBlock(result.stderr)).split('\n');
    const ended = final.find((line) => line.startsWith(`✓ task ${quick} `));
    const running = final.find((line) => line.includes(`task ${slow} processing`));
    expect(running).toMatch(new RegExp(`^  task ${slow} processing`));
    const barAt = (line = '') => line.search(/[█░]/);
    expect(barAt(running)).toBe(barAt(ended));
  });

  it('Ctrl-C clears the block and prints the resume hint, exit 130', async () => {
    const { run, create, clock } = await setup(1000);
    const id = await create(domains(100));
    const controller = new AbortController();
    const stopAt = clock.now() + 20_000;
    const tick = clock.sleep.bind(clock);
    clock.sleep = async (ms, signal) => {
      await tick(ms, signal);
      if (clock.now() >= stopAt) controller.abort(new Error('interrupted'));
    };
    const result = await run(['wait', String(id)], { stderrTTY: true, columns: 80, signal: controller.signal });
    expect(result.code).toBe(130);
    const afterClear = plain(afterBlock(result.stderr));
    expect(afterClear).toBe(`still running: taskctl wait ${id}\n`);
    expect(plain(result.stderr)).toMatch(/task \d+ processing .*\d+% +\d+\/100 .*\/s est\. \d+:\d\d left · 0:\d\d/);
  });
});

describe('wait: answers that will not change', () => {
  const task = (extra: Record<string, unknown>) => ({
    id: 7,
    service: 'domain_check_availability',
    status: 'processing',
    total_items: 2,
    cost: 2,
    created_at: '2025-01-15T12:00:00Z',
    ...extra,
  });

  it('a malformed body is exit 8 at once, not polled again until the timeout', async () => {
    const api = mockApi();
    api.allowUnused(); // registered generously: the point is how few are used
    api.reply('GET', '/tasks/7', 200, { success: true, data: { id: 7, status: 'processing' } }, { times: 5 });
    api.allowUnused(); // up to 5 answers are offered; the point is that at most 2 are asked for
    const result = await runTaskctl(['wait', '7'], { api, env: { CI: 'true' } });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/unexpected response/);
    expect(api.calls.length).toBeLessThanOrEqual(2);
  });

  it('a task without items is shown with a note and polled at the normal pace', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: task({}) }, { times: 12 });
    api.reply('GET', '/tasks/7', 200, { success: true, data: task({ status: 'completed', completed_at: 'x' }) });
    const clock = new FakeClock();
    const result = await runTaskctl(['wait', '7', '-o', 'tsv'], { api, clock, env: { CI: 'true' } });
    expect(result.stderr).toMatch(/task 7 processing \(the server reports no item progress\)/);
    // 13 polls took over a minute of virtual time: no hot loop.
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThan(60_000);
    // The exit code of a completed task without item evidence is outcome.ts's rule (not this test's).
  });

  it('a task that ends with another word (cancelled) ends the wait and is named', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: task({ status: 'cancelled', items: [] }) });
    const result = await runTaskctl(['wait', '7'], { api, env: { CI: 'true' } });
    expect(result.stderr).toMatch(/error: task 7 ended "cancelled": no reason given/);
    expect(api.calls).toHaveLength(1);
  });

  it('an unknown status keeps the wait going, is warned about once, and the timeout names it', async () => {
    const api = mockApi();
    api.allowUnused(); // as many answers as the wait may ask for before its timeout
    api.reply('GET', '/tasks/7', 200, { success: true, data: task({ status: 'on_hold' }) }, { times: 100 });
    api.allowUnused(); // enough answers for any poll pace within the 2 minutes
    const result = await runTaskctl(['wait', '7', '--timeout', '2m'], { api, env: { CI: 'true' } });
    expect(result.code).toBe(124);
    expect(result.stderr.match(/warning: .*"on_hold"/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/timed out after 2m \(task 7 is "on_hold".*\)/);
    expect(result.stderr).toMatch(/still running: taskctl wait 7/);
  });
});
