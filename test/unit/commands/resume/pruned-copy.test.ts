/**
 * A job whose copy finished it and was then removed as finished (`jobs --prune`, or the `job-retention` after a create
 * or a `jobs`): the cache directory keeps where that copy ran, marked removed, so the original (a read-only state
 * directory's `cp -a DIR NEW`, or a backup of the journal) never buys again what the copy bought: its resume sends
 * nothing (exit 2) and names the lookup that takes the copy's tasks instead (docs/behaviour.md#jobs).
 */
import { cpSync, existsSync, mkdirSync, realpathSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jobStoppedByBalance, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-pruned-copy-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

const stoppedJob = () => jobStoppedByBalance(world, run, S);

/** The job finished by a copy of the state directory (NEW), as a read-only state directory's refusal advises. */
async function finishedByCopy(id: string): Promise<string> {
  const copy = join(dir, 'NEW');
  cpSync(join(dir, 'state'), copy, { recursive: true });
  const resumed = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: copy });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  return copy;
}

/** The original's resume after the copy was removed as finished: exit 2, nothing sent; its hint, followed, pays nothing. */
async function originalSendsNothing(id: string, argv: string[], removed: string): Promise<void> {
  const refused = await run([...argv, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(
    `error: job ${id} was finished from ${removed}, which was removed since as finished (taskctl jobs --prune or the job-retention): the tasks that run created are not known here; nothing was sent\n`,
  );
  expect(await world.tasks()).toHaveLength(4);
  const way = /\n(?:.*: )?(taskctl resume .*--reuse-window \S+.*)\n$/.exec(refused.stderr)?.[1] ?? '';
  expect(way).toMatch(/^taskctl resume \S+ .*--reuse-window/);
  const onward = await run(way.split(' ').slice(1));
  expect(onward.code, onward.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  expect([...(await world.itemCounts()).values()]).toEqual([1, 1, 1, 1]);
  // Finished here now, with the copy's tasks: a resume again sends nothing either.
  const again = await run([...argv, '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
}

it('the copy a read-only state directory advised finishes the job and is pruned: the original buys nothing again', async () => {
  const id = await stoppedJob();
  const copy = await finishedByCopy(id);
  const pruned = await run(['jobs', '--prune'], { TASKCTL_STATE_DIR: copy });
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr + pruned.stdout).toMatch(/removed 1 finished job/);
  await originalSendsNothing(id, ['resume', id], join(realpathSync(copy), 'jobs', `${id}.jsonl`));
});

it('the copy removed by the job-retention (a plain jobs there later): the original buys nothing again', async () => {
  const id = await stoppedJob();
  const copy = await finishedByCopy(id);
  const set = await run(['config', 'set', 'job-retention', '1s']);
  expect(set.code, set.stderr).toBe(0);
  // Two seconds later, by the journal's date (what the retention judges).
  const old = (world.clock.now() - 2000) / 1000;
  utimesSync(join(copy, 'jobs', `${id}.jsonl`), old, old);
  const listed = await run(['jobs'], { TASKCTL_STATE_DIR: copy });
  expect(listed.code, listed.stderr).toBe(0);
  expect(existsSync(join(copy, 'jobs', `${id}.jsonl`))).toBe(false);
  await originalSendsNothing(id, ['resume', id], join(realpathSync(copy), 'jobs', `${id}.jsonl`));
});

it('a backup of the journal, resumed once the job it was copied from finished and was pruned: nothing bought again, here or put back', async () => {
  const id = await stoppedJob();
  const journal = join(realpathSync(join(dir, 'state')), 'jobs', `${id}.jsonl`);
  mkdirSync(join(dir, 'backup'));
  const backup = join(dir, 'backup', `${id}.jsonl`);
  cpSync(journal, backup);
  cpSync(`${journal}.args`, `${backup}.args`);
  const finished = await run(['resume', id, '-y']);
  expect(finished.code, finished.stderr).toBe(0);
  expect(await world.tasks()).toHaveLength(4);
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  // Put back where the pruned journal was, it is still not that journal: refused the same way.
  cpSync(backup, journal);
  cpSync(`${backup}.args`, `${journal}.args`);
  const putBack = await run(['resume', id, '-y']);
  expect(putBack.code, putBack.stderr).toBe(2);
  expect(putBack.stderr).toContain(`error: job ${id} was finished from ${journal}, which was removed since`);
  expect(await world.tasks()).toHaveLength(4);
  await originalSendsNothing(id, ['resume', backup], journal);
});
