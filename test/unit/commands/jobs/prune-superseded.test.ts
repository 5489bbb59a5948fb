/**
 * `jobs --prune` (or the retention) removing the finished job that superseded another must never turn that one back
 * into an interrupted job whose bare `resume` buys its items again: the superseded job goes with it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { supersededJob, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['prune-a.com', 'prune-b.com', 'prune-c.com', 'prune-d.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-prune-superseded-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => world.run(argv, { home: dir });
const rows = async () => JSON.parse((await run(['jobs', '-o', 'json'])).stdout) as Array<{ id: string; state: string }>;

it('`jobs --prune` removes the superseded job with the finished one; the bare `resume` then sends nothing', async () => {
  const { stopped, rerun } = await supersededJob(world, dir, ITEMS);
  expect(await rows()).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ id: stopped, state: 'superseded' }),
      expect.objectContaining({ id: rerun, state: 'finished' }),
    ]),
  );
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toContain('removed 1 finished job and 1 job it superseded');
  expect(await rows()).toEqual([]);
  const posts = await world.posts();
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

it('the finished job’s journal removed by hand: the superseded job stays superseded, its `resume` sends nothing', async () => {
  const { stopped, rerun } = await supersededJob(world, dir, ITEMS);
  rmSync(join(dir, 'state', 'jobs', `${rerun}.jsonl`));
  expect((await rows()).find((row) => row.id === stopped)?.state).toBe('superseded');
  const posts = await world.posts();
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});
