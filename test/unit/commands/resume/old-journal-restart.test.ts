/**
 * A journal written before created_at was recorded (its `created` records without it; each send with its items
 * digest), stopped with chunk 4 in doubt, and the service's ids started again before its resume (a sandbox restarted
 * without --state): chunk 4's task gets an id an earlier chunk names, and neither the create's answer nor the task list
 * shows items to tell the two apart. The scan reads such a task with its items, which the earlier chunk's digest tells
 * from its own: the task is chunk 4's, taken, never paid again; each hint followed verbatim ends the job. Without a
 * restart the same journal resumes as before.
 */
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4, journalLines } from '../journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl, type RunResult } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-old-journal-restart-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const ITEMS = ['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com'];

/**
 * A job of six one-item chunks whose journal is kept as an earlier version wrote it (no `created_at` in its `created`
 * records) and as if it was killed while chunk 4's request was in flight.
 */
async function oldJournalStoppedAtChunk4(): Promise<{ job: string; journal: string }> {
  const stopped = await jobStoppedAtChunk4(run, dir, S, ITEMS, ({ created_at, ...record }) =>
    record.type === 'created' ? record : { ...record, created_at },
  );
  expect(journalLines(stopped.journal).some((record) => record.type === 'created' && 'created_at' in record)).toBe(
    false,
  );
  return stopped;
}

/** `first`, then each `taskctl resume …` its hint names, run as printed (at most `times`): the last result. */
async function followHints(first: RunResult, times = 3): Promise<RunResult> {
  let last = first;
  for (let i = 0; i < times && last.code !== 0; i++) {
    const line = /taskctl (resume [^\n]*)$/m.exec(last.stderr)?.[1];
    if (line === undefined) break;
    last = await run(line.trim().split(/\s+/));
  }
  return last;
}

async function expectEachItemOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ['m4.com', 'm5.com', 'm6.com']) expect(counts.get(item), item).toBe(1);
}

it("ids started again, chunk 4's answer lost: the task under chunk 1's id is read with its items and taken; every item paid once", async () => {
  const { job, journal } = await oldJournalStoppedAtChunk4();
  await restartWithoutState(world);
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
  const first = await run(['resume', job, '--yes']);
  await world.clearFaults();
  const last = await followHints(first);
  expect(last.code, last.stderr).toBe(0);
  await expectEachItemOnce();
  expect(await world.posts()).toBe(3);
  expect(first.stderr).toContain('recovered: task 1 was created by this request');
  const tasks = journalLines(journal).flatMap((record) =>
    record.type === 'created' || record.type === 'reconciled' ? [[record.chunk, record.task]] : [],
  );
  expect(tasks.filter(([chunk]) => (chunk as number) >= 4)).toEqual([
    [4, null], // the request in flight at the kill: not created
    [4, 1],
    [5, 2],
    [6, 3],
  ]);
});

it('ids started again, answers received: each names an id an earlier chunk has, and is taken once read with its items', async () => {
  const { job } = await oldJournalStoppedAtChunk4();
  await restartWithoutState(world);
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  await expectEachItemOnce();
  expect(await world.posts()).toBe(3);
  expect(resumed.stderr).toContain(
    "recovered: task 2 was created by this request (the response named it, an id an earlier chunk of this job names too: read with its items, it is not that chunk's task;",
  );
  expect((await followHints(resumed)).code).toBe(0);
  expect(await world.posts()).toBe(3);
});

it('without a restart, the old journal resumes as before: chunk 4 finds its own task 4, chunks 5 and 6 are sent', async () => {
  const { job } = await oldJournalStoppedAtChunk4();
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain('chunk 4: task 4 was created by the interrupted request');
  expect(await world.posts()).toBe(8); // six, then chunks 5 and 6 (their first tasks are cut from the journal)
  expect((await world.itemCounts()).get('m4.com')).toBe(1);
});
