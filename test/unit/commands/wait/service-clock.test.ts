/**
 * `wait`'s elapsed time against a service whose clock is off this machine's (docs/behaviour.md#the-services-clock):
 * the task's `started_at` is the service's time, so the time since is counted on the service's clock as its `Date`
 * headers read it. Hours behind or ahead, a line's elapsed time never runs past what was read and never goes back:
 * the lines while the task runs and its last line agree.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { FakeClock, runTaskctl } from '../run-in-process.js';
import type { RunOptions } from '../run-in-process.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const HOURS_5 = 5 * 3_600_000;

async function setup(clockSkewMs: number) {
  const clock = new FakeClock();
  sandbox = await startSandbox({
    port: 0,
    clock,
    clockSkewMs,
    dialects: ['whole-seconds'],
    itemMs: 200,
    rateLimit: 100,
    seed: 1,
    balance: 1_000_000,
  });
  const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey };
  const run = (argv: string[], options: RunOptions = {}) =>
    runTaskctl(argv, { clock, ...options, env: { ...env, ...options.env } });
  const items = Array.from({ length: 40 }, (_, i) => `d${i}.example.com`);
  const created = await run(['create', 'domain_check_availability', ...items, '-q']);
  expect(created.code, created.stderr).toBe(0);
  return { run, clock, id: Number(created.stdout.trim()) };
}

/** `0:08` → 8 (seconds), `5:00:04` → 18004. */
function seconds(clock: string): number {
  return clock.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

/** Each frame the live block drew, and its last lines, without colour or cursor moves. */
const frames = (text: string) =>
  text
    .split(/\x1b\[1G|\n/)
    .map((line) => line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''))
    .filter((line) => line !== '');

describe('wait: elapsed time on the service clock', () => {
  for (const [what, skew] of [
    ['5 h behind', -HOURS_5],
    ['5 h ahead', HOURS_5],
  ] as const) {
    it(`a service ${what}: plain lines count seconds, never back, and end on the service's own times`, async () => {
      const { run, id } = await setup(skew);
      const result = await run(['wait', String(id), '-o', 'tsv'], { env: { CI: 'true' } });
      expect(result.code, result.stderr).toBe(0);
      const elapsed = [...result.stderr.matchAll(/, (\d+(?::\d\d)+) elapsed$/gm)].map((m) => seconds(m[1] ?? ''));
      expect(elapsed.length, result.stderr).toBeGreaterThanOrEqual(3);
      // 40 items at 200 ms: about 8 s of work, told as such from the first line to the last.
      for (const value of elapsed) expect(value, result.stderr).toBeLessThanOrEqual(10);
      for (let i = 1; i < elapsed.length; i++)
        expect(elapsed[i], result.stderr).toBeGreaterThanOrEqual(elapsed[i - 1] ?? 0);
      expect(elapsed.at(-1), result.stderr).toBeGreaterThanOrEqual(7);
    });

    it(`a service ${what}: the live block's elapsed time counts seconds too`, async () => {
      const { run, id } = await setup(skew);
      const result = await run(['wait', String(id)], { stderrTTY: true, columns: 80 });
      expect(result.code, result.stderr).toBe(0);
      const shown = frames(result.stderr)
        .map((line) => / task \d+ +(?:processing|completed)\b.* (\d+(?::\d\d)+)$/.exec(line))
        .filter((match) => match !== null);
      expect(shown.length, result.stderr).toBeGreaterThanOrEqual(3);
      for (const match of shown) expect(seconds(match[1] ?? ''), match[0]).toBeLessThanOrEqual(10);
      const values = shown.map((match) => seconds(match[1] ?? ''));
      for (let i = 1; i < values.length; i++)
        expect(values[i], result.stderr).toBeGreaterThanOrEqual(values[i - 1] ?? 0);
    });
  }

  it("a service 5 h behind: the log lines are stamped with this machine's clock, as the runner's own lines are", async () => {
    const { run, id, clock } = await setup(-HOURS_5);
    const started = clock.now();
    const result = await run(['wait', String(id), '-o', 'tsv'], { env: { CI: 'true' } });
    expect(result.code, result.stderr).toBe(0);
    const stamps = [...result.stderr.matchAll(/^(\S+Z) /gm)].map((m) => Date.parse(m[1] ?? ''));
    expect(stamps.length, result.stderr).toBeGreaterThanOrEqual(3);
    // Whole seconds: each stamp within the second it was written in, on the machine's clock, not 5 h before it.
    for (const stamp of stamps) {
      expect(stamp, result.stderr).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
      expect(stamp, result.stderr).toBeLessThanOrEqual(clock.now());
    }
  });
});
