/**
 * A job stopped with a chunk in doubt, taken over by a re-run of the same items under another state directory (a CI
 * step with its own TASKCTL_STATE_DIR) that shares this user's cache directory, so its ledger: the re-run finds the
 * stopped job's journal where that job was run (the cache directory's record of it, store/job-places.ts), hands the
 * chunk over there, and the stopped job's `resume` (the hint `taskctl jobs` gives) reads the re-run's journal where it
 * is: it pays for nothing the re-run bought (docs/behaviour.md#the-ledger).
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { startedBefore, stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['tk-a.com', 'tk-b.com', 'tk-c.com', 'tk-d.com', 'tk-e.com', 'tk-f.com'];
const CREATE = ['create', 'domain_check_availability', ...ITEMS, '--chunk-size', '2', '-y', '-q'];
let world: World;
let dir: string;
worldEachTest('taskctl-taker-elsewhere-', (w, d) => ((world = w), (dir = d)));

/** A run in `dir`'s home (its config and cache directory), its jobs in the state directory `state`. */
const run = (argv: string[], state = 'state') =>
  runTaskctl(argv, { env: { ...world.env, TASKCTL_STATE_DIR: join(dir, state) }, clock: world.clock, home: dir });

async function paidOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

it("the stopped job's resume pays for nothing a re-run under another state directory bought", async () => {
  // Job A (state directory `state`): chunk 1's POST lost, Ctrl-C while it checks; chunks 2 and 3 never sent.
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  // The same items again, in another state directory: it waits for A's request, then buys every chunk once.
  const again = await run([...CREATE, '--reuse-window', '1h'], 'state2');
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  expect(again.stderr).toContain(`job ${stopped} stopped with these items in doubt (its chunk 1)`);
  expect(again.stderr).toContain(`it is superseded, and \`taskctl resume ${stopped}\` continues this run`);
  await paidOnce();
  const posts = await world.posts();
  // Where A was run: `jobs` says it was taken over, and its resume sends nothing.
  const jobs = await run(['jobs', '-o', 'json']);
  const rows = JSON.parse(jobs.stdout) as Array<{ id: string; state: string; superseded_by?: string }>;
  expect(rows.find((row) => row.id === stopped)).toMatchObject({ state: 'superseded', superseded_by: rerun });
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`job ${stopped} was taken over by job ${rerun}`);
  expect(await world.posts()).toBe(posts);
  await paidOnce();
});
