/**
 * `create --chunk-size 1 --wait` against a sandbox whose rate limit is 5 requests per 10 s (`--rate-window 10s`): the
 * pace follows the window the service's headers show, not the documented minute. The first look at the tasks goes
 * while the budget has room, and no wait outlasts the window's reset
 * (docs/behaviour.md#pacing-and-the-rate-limit).
 */
import { expect, it, onTestFinished } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { T0 } from '../../../clock.js';
import { startSandboxWorld } from '../sandbox-world.js';

const S = 'domain_check_availability';

it(
  '6 chunks at 5 requests per 10 s: the first look goes at once while the window has a request left, no wait outlasts a reset',
  { timeout: 60_000 },
  async () => {
    const world = await startSandboxWorld({ rateLimit: 5, rateWindowMs: 10_000, itemMs: 500 });
    const home = mkdtempSync(join(tmpdir(), 'taskctl-short-window-'));
    onTestFinished(async () => {
      await world.close();
      rmSync(home, { recursive: true, force: true });
    });
    const items = Array.from({ length: 6 }, (_, i) => `r7-${i + 1}.com`);
    const result = await world.run(['create', S, ...items, '--chunk-size', '1', '-y', '--wait', '-o', 'tsv'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(6);
    const seen = `sleeps: ${world.clock.sleeps.join(' ')}\n${result.stderr}`;
    // Every wait ends at a window's reset plus the 1 s margin for whole-second reset values, none longer than a window:
    // the first before the windows' length is known (said as a window, no length), the second before the last POSTs,
    // the third after the first look, which went at once after the last POST and spent the window's last request.
    expect(world.clock.sleeps, seen).toEqual([11_000, 10_000, 10_000]);
    expect(result.stderr.match(/^waiting .*$/gm), seen).toEqual([
      'waiting 11s for the rate limit (5 requests a window)…',
      'waiting 10s for the rate limit (5 requests per 10s)…',
      'waiting 10s for the rate limit (5 requests per 10s)…',
    ]);
    const lines = result.stderr.split('\n');
    const created = lines.indexOf('✓ 6 tasks for 6 items, 6 coins');
    expect(lines[created + 1], seen).toMatch(/^2025-01-15T12:00:21Z task \d pending/);
    expect(world.clock.now() - T0, seen).toBe(31_000);
  },
);
