/**
 * A job stopped with a chunk in doubt, taken over by a re-run of the same items under another state directory (a CI
 * step with its own TASKCTL_STATE_DIR) that shares this user's cache directory, so its ledger: the re-run finds the
 * stopped job's journal where that job was run (the cache directory's record of it, store/job-places.ts), hands the
 * chunk over there, and the stopped job's `resume` (the hint `taskctl jobs` gives) reads the re-run's journal where it
 * is: it pays for nothing the re-run bought; while that re-run has not finished, its `Settle that job first` hint names
 * the re-run by its journal there (`resume ID` knows only this state directory's jobs), so that it runs verbatim here
 * (docs/behaviour.md#the-ledger). That re-run finished is kept where it ran while the stopped job has not finished (its
 * journal names the chunk it took over: core/jobs.ts pruneJobs); one of an earlier version, which names none, pruned
 * there (its journal removed, the cache directory's record of it marked so): the chunk it took over is never scanned
 * for nor sent again; exit 9 names the read that finds its task and the `--adopt` that takes it.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';
import { journalLines, keepJournalLines } from '../journal-lines.js';
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
  // Named by its journal where it was run: `taskctl resume ID` here knows only this state directory's jobs.
  const stoppedJournal = join(dir, 'state', 'jobs', `${stopped}.jsonl`);
  const notice = /it is superseded, and `taskctl (resume [^`]*)` continues this run/.exec(again.stderr)?.[1] ?? '';
  expect(notice, again.stderr).toBe(`resume ${stoppedJournal}`);
  await paidOnce();
  const posts = await world.posts();
  // Run verbatim where it was printed: it sends nothing.
  const verbatim = await run([...notice.split(' '), '-y'], 'state2');
  expect(verbatim.code, verbatim.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
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

it("a re-run of more items there, killed with a chunk of the job's in doubt: the hint, followed verbatim here, pays once", async () => {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  // The same items and one more, in another state directory: it takes chunk 1 over and creates every chunk.
  const again = await run([...CREATE, 'tk-g.com', '--reuse-window', '1h'], 'state2');
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  // As if it was killed with its chunk 2 (the stopped job's chunk 2) in flight.
  keepJournalLines(
    join(dir, 'state2', 'jobs', `${rerun}.jsonl`),
    (record) => record.type !== 'done' && !(record.type === 'created' && record.chunk === 2),
  );
  const posts = await world.posts();
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(`job ${rerun}, which took over items of this job, has not finished`);
  const hint = /Settle that job first: taskctl (.*); then: taskctl (.*)$/m.exec(refused.stderr);
  // Named by its journal there: `taskctl resume ID` resolves only this state directory's jobs.
  expect(hint?.[1]).toBe(`resume ${join(dir, 'state2', 'jobs', `${rerun}.jsonl`)} --yes`);
  // Followed as printed, in the shell (the state directory) that printed them.
  for (const command of hint?.slice(1) ?? []) {
    const result = await run(command.split(' '));
    expect(result.code, `${command}: ${result.stderr}`).toBe(0);
  }
  expect(await world.posts()).toBe(posts);
  await paidOnce();
  expect((await world.itemCounts()).get('tk-g.com')).toBe(1);
  const jobs = await run(['jobs', '-o', 'json']);
  const rows = JSON.parse(jobs.stdout) as Array<{ id: string; state: string }>;
  expect(rows.find((row) => row.id === stopped)?.state).toBe('finished');
});

it('that re-run killed with its own POST out before the stopped job took its task: settle-first names its journal; followed here, pays once', async () => {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  const again = await run([...CREATE, 'tk-g.com', '--reuse-window', '1h'], 'state2');
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  const theirs = join(dir, 'state2', 'jobs', `${rerun}.jsonl`);
  keepJournalLines(join(dir, 'state', 'jobs', `${stopped}.jsonl`), (r) => r.type !== 'reconciled' && r.type !== 'done');
  keepJournalLines(theirs, (record) => record.type !== 'done' && !(record.type === 'created' && record.chunk === 1));
  const posts = await world.posts();
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(`its items were taken over by job ${rerun} (its chunk 1), which has no task`);
  const hint = /Settle that job first: taskctl (.*); then: taskctl (.*)$/m.exec(refused.stderr);
  expect(hint?.slice(1), refused.stderr).toEqual([`resume ${theirs} --yes`, `resume ${stopped} --yes`]);
  for (const command of hint?.slice(1) ?? []) {
    const result = await run(command.split(' '));
    expect(result.code, `${command}: ${result.stderr}`).toBe(0);
  }
  expect(await world.posts()).toBe(posts);
  await paidOnce();
  // Where the re-run was run, it is finished too.
  const rows = JSON.parse((await run(['jobs', '-o', 'json'], 'state2')).stdout) as Array<{ id: string; state: string }>;
  expect(rows.find((row) => row.id === rerun)?.state).toBe('finished');
});

it("a re-run of its chunk 1's items there, finished, is kept by its prune while the stopped job has not finished: its resume takes that task and sends the rest, each item paid once", async () => {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  const again = await run(
    ['create', 'domain_check_availability', 'tk-a.com', 'tk-b.com', '-y', '-q', '--reuse-window', '1h'],
    'state2',
  );
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  const theirs = join(dir, 'state2', 'jobs', `${rerun}.jsonl`);
  // As if it had stopped before it gave the stopped job's journal that task (killed as its POST was answered).
  keepJournalLines(join(dir, 'state', 'jobs', `${stopped}.jsonl`), (r) => r.type !== 'reconciled' && r.type !== 'done');
  // Its chunk 1 names the stopped job's chunk it took over (`covers`): its prune keeps it for that job.
  expect(journalLines(theirs).find((record) => record.type === 'send')?.covers).toEqual([{ job: stopped, chunk: 1 }]);
  const pruned = await run(['jobs', '--prune'], 'state2');
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/removed 0 finished jobs/);
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  // Chunks 2 and 3, which no other job bought, are sent once; chunk 1 is the re-run's task.
  expect(await world.posts()).toBe(posts + 2);
  await paidOnce();
  expect(resumed.code, resumed.stderr).toBe(0);
  // Once the stopped job has finished, the re-run goes where it ran.
  const later = await run(['jobs', '--prune'], 'state2');
  expect(later.stderr).toMatch(/removed 1 finished job/);
});

it("a re-run of its chunk 1's items there by an earlier version (its journal names no chunk it took over), finished and pruned as finished: the resume sends nothing (exit 9); its --adopt, followed here, pays once", async () => {
  const stopped = await stoppedByCtrlC(world, CREATE, dir, 'reset-before');
  startedBefore(dir, stopped, 2 * 3_600_000);
  // Only chunk 1's items, in another state directory: it takes that chunk over, and its POST ends in doubt.
  const again = await run(
    ['create', 'domain_check_availability', 'tk-a.com', 'tk-b.com', '-y', '-q', '--reuse-window', '1h'],
    'state2',
  );
  expect(again.code, again.stderr).toBe(0);
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  const theirs = join(dir, 'state2', 'jobs', `${rerun}.jsonl`);
  keepJournalLines(join(dir, 'state', 'jobs', `${stopped}.jsonl`), (r) => r.type !== 'reconciled' && r.type !== 'done');
  keepJournalLines(theirs, (record) => record.type !== 'done' && !(record.type === 'created' && record.chunk === 1));
  // The re-run is finished where it was run (its chunk 1 settled by its own scan), then pruned there.
  const finished = await run(['resume', rerun, '-y'], 'state2');
  expect(finished.code, finished.stderr).toBe(0);
  // As if it had stopped before it gave the stopped job's journal that task (its chunk's own check, killed).
  keepJournalLines(join(dir, 'state', 'jobs', `${stopped}.jsonl`), (r) => r.type !== 'reconciled' && r.type !== 'done');
  // Its journal as an earlier version wrote it: no `covers`, so its prune does not know the stopped job needs it.
  keepJournalLines(
    theirs,
    () => true,
    ({ covers: _, ...record }) => record,
  );
  const pruned = await run(['jobs', '--prune'], 'state2');
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr + pruned.stdout).toMatch(/removed 1 finished job/);
  const posts = await world.posts();
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(await world.posts()).toBe(posts);
  expect(refused.stderr).toContain(
    `chunk 1: its items were bought by job ${rerun}, which took them over, whose journal was removed as finished`,
  );
  // Each way on a whole command at the end of its own line: the read first, run here as printed.
  const list = /^.*: taskctl (list .*)$/m.exec(refused.stderr)?.[1] ?? '';
  const listed = await run([...list.split(' '), '-o', 'json']);
  expect(listed.code, `${list}: ${listed.stderr}`).toBe(0);
  const adopt = /^.*: taskctl (resume \S+ .*--adopt 1=ID)$/m.exec(refused.stderr)?.[1] ?? '';
  expect(refused.stderr).toMatch(/^.*: taskctl resume \S+ .*--resend 1$/m);
  // The re-run's first task holds its chunk 1: tk-a.com and tk-b.com, this job's chunk 1 (the adoption checks them).
  const [first] = (await world.tasks()).map((task) => task.id).sort((a, b) => a - b);
  expect(listed.stdout).toContain(`"id": ${first}`);
  const onward = await run(adopt.replace('1=ID', `1=${first}`).split(' '));
  expect(onward.code, onward.stderr).toBe(0);
  // Chunks 2 and 3, which no other job bought, are sent once.
  expect(await world.posts()).toBe(posts + 2);
  await paidOnce();
});
