/**
 * A job stopped with its chunk 1 in doubt, then a create of the same items in the same chunks whose --reuse-window
 * reaches that request but not the job's start (so it does not continue the job: core/submit/same-work.ts): the
 * re-run takes chunk 1 over and creates (or reuses) both chunks. The stopped job is superseded by it: `jobs` says so,
 * and its `resume` continues the re-run, never paying for its items again (core/submit/hand-over.ts).
 */
import { expect, it } from 'vitest';
import type { RunOptions } from '../harness.js';
import { supersededJob, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['sup-a.com', 'sup-b.com', 'sup-c.com', 'sup-d.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-superseded-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });

async function paidOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

it('the re-run of the same items supersedes the stopped job: `jobs` says so, its `resume` sends nothing', async () => {
  const { stopped, rerun, stderr } = await supersededJob(world, dir, ITEMS);
  expect(stderr).toMatch(
    new RegExp(
      `job ${stopped} stopped with these items in doubt \\(its chunk 1\\); this run's task \\d+ covers them, and this run is that job again \\(the same items, the same chunks\\): it is superseded, and \`taskctl resume ${stopped}\` continues this run`,
    ),
  );
  await paidOnce();
  const jobs = await run(['jobs', '-o', 'json']);
  const rows = JSON.parse(jobs.stdout) as Array<{ id: string; state: string; superseded_by?: string }>;
  expect(rows.find((row) => row.id === stopped)).toMatchObject({ state: 'superseded', superseded_by: rerun });
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`job ${stopped} was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(await world.posts()).toBe(posts);
  await paidOnce();
  // The --job commands that need every task point at the job that has them.
  const retried = await run(['retry', '--job', stopped, '-y']);
  expect(retried.code, retried.stderr).toBe(2);
  expect(retried.stderr).toContain(`it was taken over by job ${rerun} (the same items, the same chunks)`);
  expect(retried.stderr).toContain(`taskctl retry --job ${rerun}`);
  // The bare `resume`: no interrupted job left.
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.posts()).toBe(posts);
});
