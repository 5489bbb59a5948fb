/**
 * A job whose copy finished it and was then removed as finished (`jobs --prune`, or the `job-retention` after a create
 * or a `jobs`): the cache directory keeps where that copy ran, marked removed, so the original (a read-only state
 * directory's `cp -a DIR NEW`, or a backup of the journal) never buys again what the copy bought: its resume sends
 * nothing (exit 2) and names the lookup that takes the copy's tasks instead (docs/behaviour.md#jobs). A copy that ended
 * `lost` is said to have, not to have finished; on a busy account the lookup's exit 9 never asks for the removed journal
 * back (it cannot be): it says where the tasks are (for a copy that finished, nothing else: nothing is left to buy).
 */
import { cpSync, existsSync, mkdirSync, realpathSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MAX_CANDIDATE_READS } from '../../../../src/core/reconcile.js';
import { jobStoppedByBalance, restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
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

/** The commands a hint names (`taskctl resume …`, up to a `;`, a bracket or the end of the line), as words. */
const commands = (stderr: string): string[][] =>
  [...stderr.matchAll(/taskctl (resume [^;()\n]*)/g)].map((match) => (match[1] ?? '').trim().split(' '));

it('the lookup let past the pruned copy meets a busy account (exit 9): never "put it back", only where its tasks are (nothing of a finished job is left to buy)', async () => {
  const id = await stoppedJob();
  const copy = await finishedByCopy(id);
  expect((await run(['jobs', '--prune'], { TASKCTL_STATE_DIR: copy })).code).toBe(0);
  world.clock.advance(10 * 60_000);
  await world.setBalance(10_000);
  // As many of another client's tasks as the lookup reads at most (MAX_CANDIDATE_READS), all newer than the job's: its
  // reads end on them, the tasks of the job's chunks left unread (exit 9). Three fewer and it reads all three of the
  // copy's tasks and goes on.
  for (let i = 0; i < MAX_CANDIDATE_READS; i++) await world.createTask(S, [`busy-${i}.com`]);
  const tasks = await world.taskCount();
  const refused = await run(['resume', id, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  const looking = commands(refused.stderr)[0] ?? [];
  expect(looking).toContain('--reuse-window');
  const unsearched = await run(looking);
  expect(unsearched.code, unsearched.stderr).toBe(9);
  const removed = join(realpathSync(copy), 'jobs', `${id}.jsonl`);
  expect(unsearched.stderr).not.toMatch(/Put \S+ back/);
  // Its notice names no shorter window nor --no-reuse: either is refused (exit 2) in a run past that journal.
  expect(unsearched.stderr).toContain(
    "newest first (it reaches back to the job's start, as a run past the job's gone journal must)",
  );
  expect(unsearched.stderr).not.toContain('skips this');
  expect(unsearched.stderr).toContain(`${removed} was removed as finished: it cannot be put back.`);
  expect(unsearched.stderr).toMatch(/taskctl list --service domain_check_availability --since \S+Z --all/);
  // Finished there: nothing of the job is left to buy, so the read is the one way on it names; no resume (the one that
  // goes on buys every chunk left again, a mistake here), none the exit 2 above refuses.
  expect(commands(unsearched.stderr)).toEqual([]);
  expect(unsearched.stderr).toContain('nothing of the job is left to buy');
  expect(unsearched.stderr).not.toContain('--forget-gone-journal');
  expect(await world.taskCount()).toBe(tasks);
});

it('a copy that ended lost and was pruned: the refusal says it ended lost there, not finished, with the same lookup', async () => {
  const id = await stoppedJob();
  const copy = await finishedByCopy(id);
  // The service's ids start again and other tasks take them: the copy's resume --wait finds and records them lost.
  await restartWithoutState(world);
  const others = ['create', S, 'n1.com', 'n2.com', 'n3.com', 'n4.com', '--chunk-size', '1', '-y'];
  expect((await run(others, { TASKCTL_STATE_DIR: join(dir, 'OTHER') })).code).toBe(0);
  const lost = await run(['resume', id, '--wait'], { TASKCTL_STATE_DIR: copy });
  expect(lost.code, lost.stderr).toBe(8);
  const listed = await run(['jobs', '-o', 'json'], { TASKCTL_STATE_DIR: copy });
  expect(listed.stdout).toMatch(/"state":\s*"lost"/);
  expect((await run(['jobs', '--prune'], { TASKCTL_STATE_DIR: copy })).code).toBe(0);
  const removed = join(realpathSync(copy), 'jobs', `${id}.jsonl`);
  const tasks = (await world.tasks()).length;
  const refused = await run(['resume', id, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(
    `error: job ${id} ended lost from ${removed} (the service no longer had the tasks of some of its chunks), which was removed since as lost (taskctl jobs --prune or the job-retention): the tasks that run created are not known here; nothing was sent\n`,
  );
  expect(refused.stderr).not.toContain('was finished from');
  expect(commands(refused.stderr)[0]).toContain('--reuse-window');
  expect((await world.tasks()).length).toBe(tasks);
  const shown = await run(['jobs']);
  expect(shown.stderr).toContain(
    `job ${id} ended lost from ${removed} (the service no longer had the tasks of some of its chunks)`,
  );
});
