/**
 * `wait --job` against a sandbox whose rate limit is 5 requests per 10 s (`--rate-window 10s`): once the resets show
 * the window, the pace spans it, not the documented minute (docs/behaviour.md#pacing-and-the-rate-limit).
 */
import { expect, it, onTestFinished } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { T0 } from '../../../clock.js';
import { startSandboxWorld } from '../sandbox-world.js';

const S = 'domain_check_availability';

it(
  'a 40 s task at 5 requests per 10 s: held once, for the first window’s reset, never by the minute’s rule',
  { timeout: 60_000 },
  async () => {
    // A `slow-` item takes 10 × 4 s.
    const world = await startSandboxWorld({ rateLimit: 5, rateWindowMs: 10_000, itemMs: 4000 });
    const home = mkdtempSync(join(tmpdir(), 'taskctl-short-window-'));
    onTestFinished(async () => {
      await world.close();
      rmSync(home, { recursive: true, force: true });
    });
    const created = await world.run(['create', S, 'slow-a.com', '-y', '-q'], { home });
    expect(created.code, created.stderr).toBe(0);
    const job = /job (j-[0-9a-z]+)/.exec(created.stderr)?.[1] ?? '';
    const before = world.clock.sleeps.length;
    const result = await world.run(['wait', '--job', job, '-o', 'json'], { home });
    expect(result.code, result.stderr).toBe(0);
    const sleeps = world.clock.sleeps.slice(before);
    const seen = `sleeps: ${sleeps.join(' ')}\n${result.stderr}`;
    // The create spent the first window; its reset (and the 1 s margin) is the one wait for the rate limit. Then the
    // rounds go at the task's own schedule: the minute's pace (12 s a request) held one for 40 s, past the task's end.
    // The budget's words are not this test's: with one reset seen, nothing shows the window is not the contract's
    // minute yet, so they say `/min` (rate-limit.wait-notice.test.ts), which is not this sandbox's 5 per 10 s.
    expect(result.stderr.match(/^waiting .*$/gm), seen).toEqual([
      expect.stringMatching(/^waiting 11s for the rate limit \(5 requests[^)]*\)…$/),
    ]);
    expect(sleeps[0], seen).toBe(11_000);
    expect(Math.max(...sleeps.slice(1)), seen).toBeLessThanOrEqual(20_000);
    const [task] = JSON.parse(result.stdout) as Array<{ status: string }>;
    expect(task?.status).toBe('completed');
    expect(world.clock.now() - T0, seen).toBeLessThan(60_000);
  },
);
