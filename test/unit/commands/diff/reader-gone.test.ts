/**
 * `taskctl diff A B | head -1`: the reader of stdout goes away at the first change written. The run ends quietly with the
 * outcome its first change settled (15, they differ), as boot's guard on stdout does for every command; 0 would say
 * "the same" to `set -o pipefail; taskctl diff a b | head -20 && echo same`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWithReaderGone } from '../broken-stdout.js';
import { FakeClock } from '../run-in-process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An export of `count` items (d0… d`count - 1`) whose `available` is `flip(i)`. */
function exportFile(dir: string, name: string, count: number, flip: (i: number) => boolean): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(JSON.stringify({ target: `d${i}.example.com`, status: 'completed', data: { available: flip(i) } }));
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('diff when the reader of stdout goes away', () => {
  it('the run ends with 15 (they differ), not 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-gone-'));
    dirs.push(dir);
    // 20,000 targets, the walk's YIELD_EVERY (core/diff/compare.ts): it yields to the event loop at its last pair, so
    // the first change is written (a batch of 1,000) and its reader gone while the walk goes on; with fewer, all is
    // written after it, when the outcome is known anyway. One side holds the first 2,000 only (1,000 changed, the
    // rest removed): a second side of 20,000 items cost half the test's CPU and changes no step of it.
    const a = exportFile(dir, 'a.ndjson', 20_000, () => true);
    const b = exportFile(dir, 'b.ndjson', 2_000, (i) => i % 2 === 0);
    const gone = await runWithReaderGone(['diff', a, b, '-o', 'tsv'], {
      okWrites: 0,
      env: {
        TASKCTL_CONFIG_DIR: join(dir, 'config'),
        TASKCTL_CACHE_DIR: join(dir, 'cache'),
        TASKCTL_STATE_DIR: join(dir, 'state'),
        PAGER: 'cat',
      },
      clock: new FakeClock(),
    });
    expect(gone).toEqual({ exits: [15], stderr: '' });
  });
});
