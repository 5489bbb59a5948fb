/**
 * A job `superseded` (stopped, then taken over whole by a re-run of the same items: core/submit/hand-over.ts) is kept
 * and removed as a finished one is: after `job-retention`, or at once by `jobs --prune`. Never after the job that took
 * it over (that one stays while it stays): without that job's journal its takeover would read as void, and its resume
 * would pay for the items again.
 */
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { JobStore } from '../../../../src/store/job-files.js';
import type { RunOptions } from '../harness.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const S = 'domain_check_availability';
const ITEMS = ['prune-a.com', 'prune-b.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-superseded-prune-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });
const create = ['create', S, ...ITEMS, '--chunk-size', '1', '-y', '-q'];

/** The stopped job and the re-run that took it over whole (finished). */
async function superseded(): Promise<{ stopped: string; rerun: string }> {
  const stopped = await stoppedByCtrlC(world, create, dir, 'reset-before');
  const again = await run([...create, '--reuse-window', '1h']);
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  const rows = await jobs();
  expect(rows.find((row) => row.id === stopped)).toMatchObject({ state: 'superseded', superseded_by: rerun });
  return { stopped, rerun };
}

async function jobs(argv: string[] = []): Promise<Array<{ id: string; state: string; superseded_by?: string }>> {
  const listed = await run(['jobs', '-o', 'json', ...argv]);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Array<{ id: string; state: string; superseded_by?: string }>;
}

const journal = (id: string) => new JobStore(join(dir, 'state')).journalPath(id);
function age(id: string): void {
  const old = (world.clock.now() - 31 * 24 * 3600_000) / 1000;
  utimesSync(journal(id), old, old);
}

it('past the retention a superseded job is removed like a finished one', async () => {
  const { stopped, rerun } = await superseded();
  age(stopped);
  const rows = await jobs();
  expect(rows.map((row) => row.id)).toEqual([rerun]);
  expect(existsSync(journal(stopped))).toBe(false);
});

it('`jobs --prune` removes it with the finished ones, and says so', async () => {
  const { stopped, rerun } = await superseded();
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/removed 1 finished job and 1 superseded job/);
  expect(existsSync(journal(stopped))).toBe(false);
  expect(existsSync(journal(rerun))).toBe(false);
});

it('never outlives the job that took it over: its resume would pay for the items again', async () => {
  const { stopped, rerun } = await superseded();
  // The re-run past the retention, the stopped job not (its journal written since, say): the re-run stays with it.
  age(rerun);
  // Both kept (in either order: the two started in the same fake instant).
  expect(new Map((await jobs()).map((row) => [row.id, row.state]))).toEqual(
    new Map([
      [rerun, 'finished'],
      [stopped, 'superseded'],
    ]),
  );
  // Both past it: both go, the stopped job first.
  age(stopped);
  expect(await jobs()).toEqual([]);
  expect(existsSync(journal(stopped))).toBe(false);
  expect(existsSync(journal(rerun))).toBe(false);
  const posts = await world.posts();
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});
