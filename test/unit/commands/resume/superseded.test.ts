/**
 * A job stopped with its chunk 1 in doubt, then a create of the same items in the same chunks whose --reuse-window
 * reaches that request but not the job's start (so it does not continue the job: core/submit/same-work.ts): the
 * re-run takes chunk 1 over and creates (or reuses) both chunks. The stopped job is superseded by it: `jobs` says so,
 * and its `resume` continues the re-run, never paying for its items again (core/submit/hand-over.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { startedBefore, stoppedByCtrlC, supersededJob, worldEachTest, type World } from '../sandbox-world.js';

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

/**
 * Job A stopped with its chunk 1 in doubt, its POST acted on (task 1 made, its answer lost), A dated 2 hours back; then,
 * with the balance at 0, the same create (or `items`) with `--reuse-window 1h`: it reuses task 1 for chunk 1 and is
 * refused by the balance before its first POST. Returns A, A's journal and its bytes before, and the re-run's result.
 */
async function refusedAfterReuse(items: readonly string[] = ITEMS) {
  const create = ['create', 'domain_check_availability', ...ITEMS, '--chunk-size', '2', '-y', '-q'];
  const stopped = await stoppedByCtrlC(world, create, dir, 'reset-after');
  startedBefore(dir, stopped, 2 * 3_600_000);
  const journal = join(dir, 'state', 'jobs', `${stopped}.jsonl`);
  const before = readFileSync(journal);
  const jobsBefore = readdirSync(join(dir, 'state', 'jobs')).sort();
  await world.setBalance(0);
  const rerun = [
    'create',
    'domain_check_availability',
    ...items,
    '--chunk-size',
    '2',
    '-y',
    '-q',
    '--reuse-window',
    '1h',
  ];
  const refused = await run(rerun);
  expect(refused.code, refused.stderr).toBe(6);
  expect(refused.stderr).toContain('reused 1 of 2 tasks before that');
  // Refused by the balance, the re-run recorded nothing: not the takeover either (no job of it is kept to take over).
  expect(readFileSync(journal).equals(before), readFileSync(journal, 'utf8')).toBe(true);
  expect(readdirSync(join(dir, 'state', 'jobs')).sort()).toEqual(jobsBefore);
  expect(refused.stderr).not.toContain(`job ${stopped} stopped with these items in doubt`);
  await world.setBalance(10_000_000);
  return { stopped, rerun };
}

it("a re-run that reused the stopped job's task, then refused by the balance: that job's journal byte for byte as it was, its `resume` pays once", async () => {
  const { stopped } = await refusedAfterReuse();
  const jobs = await run(['jobs', '-o', 'json']);
  const rows = JSON.parse(jobs.stdout) as Array<{ id: string; state: string; superseded_by?: string }>;
  expect(rows.find((row) => row.id === stopped)?.superseded_by).toBeUndefined();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await paidOnce();
});

it("the refused re-run's hint followed (top up, the same create): it takes the stopped job over, every item paid once", async () => {
  const { stopped, rerun } = await refusedAfterReuse();
  const again = await run(rerun);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(`job ${stopped} stopped with these items in doubt (its chunk 1)`);
  await paidOnce();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await paidOnce();
});

it("a re-run of other items as well that reused the stopped job's task, refused by the balance: that journal as it was, its `resume` pays once", async () => {
  const { stopped } = await refusedAfterReuse(['sup-a.com', 'sup-b.com', 'sup-x.com', 'sup-y.com']);
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await paidOnce();
});
