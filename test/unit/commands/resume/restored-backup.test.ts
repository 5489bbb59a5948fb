/**
 * A state directory (or a `--journal FILE`) put back from a backup taken while its job was stopped: the chunks a later
 * run created are not in the journal put back. Within the ledger's memory, its settled entry of each such chunk gives
 * the chunk its task (docs/behaviour.md#the-ledger).
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-restored-backup-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });

async function eachBoughtOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

/**
 * Job J (four one-item chunks, chunk 1 created, stopped by the balance), its state directory backed up, then finished
 * by `taskctl resume J --yes` (chunks 2–4), then the backup put back in its place.
 */
async function finishedThenRestored(): Promise<string> {
  const id = await jobStoppedByBalance(world, run, S);
  const state = join(dir, 'state');
  cpSync(state, join(dir, 'state.bak'), { recursive: true });
  const finished = await run(['resume', id, '--yes']);
  expect(finished.code, finished.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  rmSync(state, { recursive: true });
  cpSync(join(dir, 'state.bak'), state, { recursive: true });
  return id;
}

it('within the ledger memory, the resume of the backup put back takes the tasks the later run created: each item once', async () => {
  const id = await finishedThenRestored();
  const posts = await world.posts();
  const again = await run(['resume', id, '--yes']);
  await eachBoughtOnce();
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(
    `recovered: task 2 was created for chunk 2 of 4 by an earlier run of job ${id} (this machine's ledger of creates names it; the journal, put back from an earlier copy, does not): taken, not bought again`,
  );
  expect(await world.posts()).toBe(posts);
  await eachBoughtOnce();
  // Journaled as recovered: the next resume prints the summary, sending nothing.
  const summary = await run(['resume', id, '--yes']);
  expect(summary.code, summary.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
});
