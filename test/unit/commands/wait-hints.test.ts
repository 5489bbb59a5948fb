/** Hints after a wait name a short command that runs: `$(seq A B)` for a run of ids, `--job FILE` for a job. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idArgs } from '../../../src/core/follow/outcome.js';
import { SERVICE, tempDir } from '../core/job/fixture.js';
import { sandboxRun } from './harness.js';

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
    const { run } = await sandboxRun(0);
    const items = Array.from({ length: 20 }, (_, i) => `h${i}.com`);
    const created = await run(['create', SERVICE, ...items, '--chunk-size', '1', '-y', '-q']);
    expect(created.code, created.stderr).toBe(0);
    const ids = created.stdout.trim().split('\n').map(Number);
    expect(ids).toHaveLength(20);
    const result = await run(['wait', ...ids.map(String)], person);
    expect(result.code, result.stderr).toBe(0);
    const last = result.stderr.trim().split('\n').at(-1);
    expect(last).toBe(`See the items: taskctl show $(seq ${Math.min(...ids)} ${Math.max(...ids)})`);
  });

  it('a wait --job that times out says `taskctl wait --job FILE` to go on', async () => {
    const { run } = await sandboxRun(60_000);
    const journal = join(tempDir(), 'job.jsonl');
    const items = Array.from({ length: 6 }, (_, i) => `j${i}.com`);
    const created = await run(['create', SERVICE, ...items, '--chunk-size', '2', '--journal', journal, '-y', '-q']);
    expect(created.code, created.stderr).toBe(0);
    const result = await run(['wait', '--job', journal, '--timeout', '5s'], person);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain(`still running: taskctl wait --job ${journal}`);
    expect(result.stderr).not.toMatch(/taskctl wait \d/);
  });
});
