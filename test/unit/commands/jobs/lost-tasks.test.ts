/**
 * A job whose tasks the service no longer has: its ids started again from 1 (a sandbox restarted without --state), and
 * the ids its chunks name are other tasks now. `jobs` reads only the journal, so it knows this once a run found it and
 * recorded it there (a `lost` record: only `resume`, as its own creates, scans and `--wait` meet those ids; `show
 * --job`, `wait --job`, `watch --job`, `retry --job` and `diff` only read: their exit 8 names `resume J --wait`): from then on it counts those chunks as lost, never as created, and the job's
 * state says so (`lost`); `resume` counts them in neither its standing nor its summary, and says which they are; the
 * read commands leave them out, warn, and end in exit 11 (`diff` its own code), naming no command that leads back.
 */
import { join } from 'node:path';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4, journalLines, keepJournalLines } from '../journal-lines.js';
import { restartWithoutState, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-lost-tasks-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const ITEMS = ['m1.com', 'm2.com', 'm3.com', 'm4.com', 'm5.com', 'm6.com'];

interface Row {
  id: string;
  state: string;
  chunks: number;
  chunks_created: number;
  chunks_lost?: number;
}

async function jobsRow(job: string): Promise<Row | undefined> {
  const listed = await run(['jobs', '-o', 'json']);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as Row[]).find((row) => row.id === job);
}

/** A job of `items` in one-item chunks, created to its end; returns its id and journal. */
async function createdJob(items: readonly string[]): Promise<{ job: string; journal: string }> {
  const input = join(dir, `in-${items.length}.txt`);
  writeFileSync(input, `${items.join('\n')}\n`);
  const created = await run(['create', S, '-f', input, '--chunk-size', '1', '-y']);
  expect(created.code, created.stderr).toBe(0);
  const job = /job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '';
  return { job, journal: join(dir, 'state', 'jobs', `${job}.jsonl`) };
}

/** The records a run wrote after `before` (the journal's lines then), as `[type, chunk]`. */
const recordedSince = (journal: string, before: readonly unknown[]) =>
  journalLines(journal)
    .slice(before.length)
    .map((record) => [record.type, record.chunk]);

/** Chunks 1–4 recorded lost in one write, and the finished journal's `done` written again after them. */
const LOST_1_TO_4_AND_DONE = [
  ['lost', 1],
  ['lost', 2],
  ['lost', 3],
  ['lost', 4],
  ['done', undefined],
];

it('resume after the ids started again: chunks 4–6 get ids 1–3, chunks 1–3 are lost; the summary and jobs say so', async () => {
  // As if killed while chunk 4's request was in flight.
  const { job, journal } = await jobStoppedAtChunk4(run, dir, S, ITEMS);
  await restartWithoutState(world);
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).not.toMatch(/6 of 6 tasks created|6 tasks for/);
  expect(resumed.stderr).toContain('chunk 6 of 6: 3 of 6 tasks created, 3 lost;');
  expect(resumed.stderr).toContain('3 tasks for 3 items, 3 coins');
  expect(resumed.stderr).toMatch(/the service no longer has the tasks of chunks 1, 2 and 3 of job j-/);
  const lost = journalLines(journal).filter((record) => record.type === 'lost');
  expect(lost.map((record) => [record.chunk, record.task])).toEqual([
    [1, 1],
    [2, 2],
    [3, 3],
  ]);
  expect(journalLines(journal).at(-1)).toEqual(expect.objectContaining({ type: 'done' }));
  expect(await jobsRow(job)).toEqual(
    expect.objectContaining({ state: 'lost', chunks: 6, chunks_created: 3, chunks_lost: 3 }),
  );
  const table = await run(['jobs']);
  expect(table.stdout).toMatch(/\t3\/6\t0\tlost\t/);
  // TAB completion's glance (the journal's first and last lines) says what `jobs` says.
  expect((await run(['__complete', 'jobs'])).stdout).toBe(`${job}\t${S} lost\n`);
  expect(table.stderr).toContain(`job ${job}: the service no longer has the tasks of chunks 1, 2 and 3`);
  // Its resume now: the standing counts them apart, and nothing is sent for them.
  const again = await run(['resume', job]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(`job ${job}: 3 of 6 chunks done, 3 lost (chunks 1, 2 and 3), finished`);
  expect(again.stderr).toContain('3 tasks for 3 items, 3 coins');
  expect(await world.posts()).toBe(3);
});

it('a finished job, its ids given to other tasks: show/wait --job say so and write nothing; resume --wait records it', async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 3));
  await restartWithoutState(world);
  await createdJob(['n1.com', 'n2.com', 'n3.com']); // tasks 1–3 again, other items
  // The journal alone: nothing known yet.
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'finished', chunks_created: 3 }));
  const before = journalLines(journal);
  const shown = await run(['show', '--job', job]);
  expect(shown.code, shown.stderr).toBe(8);
  expect(shown.stderr).toContain("The service's task ids seem to have started again");
  expect(shown.stderr).toContain(`taskctl resume ${job} --wait`);
  expect((await run(['wait', '--job', job])).code).toBe(8);
  // Read commands stay read-only: no record, no lock taken (a concurrent run would read a held lock as a live run).
  expect(journalLines(journal)).toEqual(before);
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'finished', chunks_created: 3 }));
  const resumed = await run(['resume', job, '--wait']);
  expect(resumed.code, resumed.stderr).toBe(8);
  // Every lost chunk it read is recorded in one pass (one write, then the `done` again), and said as recorded.
  const lines = journalLines(journal);
  expect(lines.slice(before.length).map((record) => [record.type, record.chunk])).toEqual([
    ['lost', 1],
    ['lost', 2],
    ['lost', 3],
    ['done', undefined],
  ]);
  expect(resumed.stderr).toMatch(/the service no longer has the tasks of chunks 1, 2 and 3 of job j-\w+ \(recorded/);
  expect(resumed.stderr).not.toContain('To record it');
  // Every chunk lost: no hint to wait for "its other tasks", of which there are none.
  expect(resumed.stderr).not.toContain('Its other tasks');
  expect(resumed.stderr).toContain('Nothing was sent. No task of the job is left on the service to read or wait for.');
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost', chunks_created: 0, chunks_lost: 3 }));
  const again = await run(['resume', job]);
  expect(again.stderr).toContain(`job ${job}: 0 of 3 chunks done, 3 lost (chunks 1, 2 and 3), finished`);
  // Followed again, `resume --wait` moves past the chunks recorded lost: it waits for none of them, writes nothing,
  // and says the job's items are not all done (exit 11), never the same exit 8 and hint again.
  const posts = await world.posts();
  const waited = await run(['resume', job, '--wait']);
  expect(waited.code, waited.stderr).toBe(11);
  expect(waited.stderr).not.toContain('To record it');
  expect(waited.stderr).not.toContain('does not match');
  expect(journalLines(journal)).toEqual(lines);
  // Every chunk recorded lost: the read commands have no task to read (watch never turns to the account's others).
  for (const argv of [
    ['show', '--job', job],
    ['wait', '--job', job],
    ['watch', '--job', job],
  ]) {
    const read = await run(argv);
    expect(read.code, read.stderr).toBe(11);
    expect(read.stderr).toContain(`job ${job}: chunks 1, 2 and 3 are recorded lost`);
    expect(read.stderr).not.toContain('watching');
  }
  expect(await world.posts()).toBe(posts);
});

it('ids the restarted service never gave out again (not found): the read commands name resume --wait (exit 8, never 5), which records them lost; then exit 11', async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 4));
  await restartWithoutState(world); // no task at all: every id of the job is not found
  const before = journalLines(journal);
  for (const argv of [
    ['show', '--job', job],
    ['wait', '--job', job],
    ['watch', '--job', job],
    ['retry', '--job', job, '-y'],
    ['diff', job, job],
  ]) {
    const read = await run(argv);
    expect(read.code, `${argv.join(' ')}: ${read.stderr}`).toBe(8);
    expect(read.stderr).not.toContain('Check the id');
    expect(read.stderr, argv.join(' ')).toContain('is not on the service any more');
    expect(read.stderr, argv.join(' ')).toMatch(new RegExp(`taskctl resume \\S*${job}(\\.jsonl)? --wait`));
  }
  expect(journalLines(journal)).toEqual(before);
  const resumed = await run(['resume', job, '--wait']);
  expect(resumed.code, resumed.stderr).toBe(8);
  expect(resumed.stderr).toMatch(/the service no longer has the tasks of chunks 1, 2, 3 and 4 of job j-\w+ \(recorded/);
  expect(recordedSince(journal, before)).toEqual(LOST_1_TO_4_AND_DONE);
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost', chunks_created: 0, chunks_lost: 4 }));
  const waited = await run(['resume', job, '--wait']);
  expect(waited.code, waited.stderr).toBe(11);
  const shown = await run(['show', '--job', job]);
  expect(shown.code, shown.stderr).toBe(11);
  expect(await world.posts()).toBe(0); // the restarted service's: nothing was sent
});

it("ids given to other tasks but the last one's, not found: resume --wait records all four lost and shows none of the others' tasks as the job's", async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 4));
  await restartWithoutState(world);
  await createdJob(['n1.com', 'n2.com', 'n3.com']); // tasks 1–3 again, other items; no task 4
  const before = journalLines(journal);
  const resumed = await run(['resume', job, '--wait']);
  expect(resumed.code, resumed.stderr).toBe(8);
  expect(resumed.stderr).toMatch(/the service no longer has the tasks of chunks 1, 2, 3 and 4 of job j-\w+ \(recorded/);
  // Tasks 1–3 hold other items: never shown as the job's progress.
  expect(resumed.stderr).not.toMatch(/task \d+ completed/);
  expect(recordedSince(journal, before)).toEqual(LOST_1_TO_4_AND_DONE);
  const waited = await run(['resume', job, '--wait']);
  expect(waited.code, waited.stderr).toBe(11);
  expect(await world.posts()).toBe(3); // the restarted service's: the other create
});

it('an unfinished job, its ids given to other tasks: the hint to record it says that its resume sends the chunks left', async () => {
  const { job, journal } = await createdJob(ITEMS);
  keepJournalLines(
    journal,
    (record) => record.type !== 'done' && !(typeof record.chunk === 'number' && record.chunk >= 4),
  );
  await restartWithoutState(world);
  await createdJob(['n1.com', 'n2.com', 'n3.com']);
  const shown = await run(['show', '--job', job]);
  expect(shown.code, shown.stderr).toBe(8);
  expect(shown.stderr).toMatch(
    new RegExp(
      `its resume records it, after it sends the 3 chunks not sent yet \\(.*\\): taskctl resume ${job} --wait\n$`,
    ),
  );
});

it('without a restart, nothing is lost: jobs and resume count every chunk as before', async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 3));
  expect((await run(['show', '--job', job])).code).toBe(0);
  expect(journalLines(journal).some((record) => record.type === 'lost')).toBe(false);
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'finished', chunks_created: 3, chunks_lost: 0 }));
  const resumed = await run(['resume', job]);
  expect(resumed.stderr).toContain(`job ${job}: 3 of 3 chunks done, finished`);
  expect(resumed.stderr).toContain('3 tasks for 3 items, 3 coins');
});

it('a chunk that reused an earlier task, then found lost, is counted once: lost, not reused as well', async () => {
  const { job, journal } = await createdJob(ITEMS);
  // Chunk 1's task was another run's, reused (no send of its own); the job killed while chunk 4's request was in flight.
  keepJournalLines(
    journal,
    (record) =>
      record.type !== 'done' &&
      !(record.chunk === 1 && record.type === 'send') &&
      !(typeof record.chunk === 'number' && record.chunk >= 4 && !(record.chunk === 4 && record.type === 'send')),
    (record) => (record.chunk === 1 && record.type === 'created' ? { ...record, how: 'reused' } : record),
  );
  await restartWithoutState(world);
  const resumed = await run(['resume', job, '--yes']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain('chunk 6 of 6: 3 of 6 tasks created, 3 lost;');
  expect(resumed.stderr).not.toContain('reused');
  expect(await jobsRow(job)).toEqual(
    expect.objectContaining({ state: 'lost', chunks: 6, chunks_created: 3, chunks_lost: 3 }),
  );
});

it('a lost chunk whose own task is under its id again (the service restored with its state): resume records it found', async () => {
  // The service keeps its tasks in a state file: restarted without it, its ids start again; with it, they are back.
  const stateFile = join(dir, 'sandbox-state.json');
  const serve = (withState: boolean) => restartWithoutState(world, 3_600_000, withState ? stateFile : undefined);
  await serve(true);
  const { job, journal } = await createdJob(ITEMS.slice(0, 3));
  await serve(false);
  await createdJob(['n1.com', 'n2.com', 'n3.com']); // tasks 1–3 again, other items
  expect((await run(['resume', job, '--wait'])).code).toBe(8);
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost' }));
  await serve(true);
  // Its own tasks 1–3, as the journal recorded them; until a resume reads their ids again, the read commands leave the
  // chunks recorded lost out (exit 11).
  expect((await run(['wait', '--job', job])).code).toBe(11);
  // Its resume reads the journal as it stands (chunk 3 lost), then its --wait reads the task and records it found.
  const resumed = await run(['resume', job, '--wait']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain('chunk 3: task 3 is on the service again, as the job recorded it');
  // Its first line is where the journal stood; the chunks are read before its summary, which counts them, and no line
  // calls them lost after that (it said "no task" and the lost warning, then found them).
  const said = resumed.stderr.split('\n');
  expect(said[0]).toBe(`job ${job}: 0 of 3 chunks done, 3 lost (chunks 1, 2 and 3), finished`);
  expect(resumed.stderr).not.toContain('no longer has');
  expect(resumed.stderr).not.toContain('no task');
  const summary = said.indexOf('✓ 3 tasks for 3 items, 3 coins (0 by this run)');
  expect(summary, resumed.stderr).toBeGreaterThan(
    said.indexOf('chunk 3: task 3 is on the service again, as the job recorded it'),
  );
  expect(journalLines(journal).some((record) => record.type === 'found')).toBe(true);
  expect(journalLines(journal).at(-1)).toEqual(expect.objectContaining({ type: 'done' }));
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'finished', chunks_created: 3, chunks_lost: 0 }));
  // The job is whole again, and says so everywhere.
  expect((await run(['wait', '--job', job])).code).toBe(0);
  expect((await run(['__complete', 'jobs'])).stdout).toContain(`${job}\t${S} finished\n`);
  const again = await run(['resume', job]);
  expect(again.stderr).toContain(`job ${job}: 3 of 3 chunks done, finished`);
});

// Two ways a journal's last `done` reads, from one job recorded lost (the same scenario, its journal put back between).
it('the glance at the last line: a done with no count (an earlier version) says lost, as jobs does; one that says it counts (lost_counted) is taken at its word', async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 3));
  expect(journalLines(journal).at(-1)).toEqual(expect.objectContaining({ type: 'done', lost_counted: true }));
  await restartWithoutState(world);
  await createdJob(['n1.com', 'n2.com', 'n3.com']); // tasks 1–3 again, other items
  expect((await run(['resume', job, '--wait'])).code).toBe(8);
  expect(journalLines(journal).at(-1)).toEqual(expect.objectContaining({ type: 'done', lost: 3, lost_counted: true }));
  const recorded = readFileSync(journal, 'utf8');

  // A journal recorded lost before its done counted them (an earlier version): its `done` records (the last written
  // again after the `lost` ones) carried no count.
  keepJournalLines(
    journal,
    () => true,
    (record) => (record.type === 'done' ? { type: 'done', tasks: 3, items: 3, cost: 3 } : record),
  );
  expect(journalLines(journal).at(-1)).toEqual({ type: 'done', tasks: 3, items: 3, cost: 3 });
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost', chunks_created: 0, chunks_lost: 3 }));
  // The glance reads the last line, a `done` with no count: the journal's own `lost` records say what it counts.
  expect((await run(['__complete', 'jobs'])).stdout).toContain(`${job}\t${S} lost\n`);

  // A done that says it counts, its count taken out, the mark left: a glance that read the `lost` records would still
  // say lost. It says what the last line says (finished), so a keypress never reads a finished journal through; `jobs`
  // reads it all.
  writeFileSync(journal, recorded);
  keepJournalLines(
    journal,
    () => true,
    (record) => (record.type === 'done' ? { type: 'done', tasks: 3, items: 3, cost: 3, lost_counted: true } : record),
  );
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost', chunks_lost: 3 }));
  expect((await run(['__complete', 'jobs'])).stdout).toContain(`${job}\t${S} finished\n`);
});

it("a lost record restarts a finished journal's retention: the job past it that resume just recorded stays listed", async () => {
  const { job, journal } = await createdJob(ITEMS.slice(0, 3));
  await restartWithoutState(world);
  await createdJob(['n1.com', 'n2.com', 'n3.com']);
  // Finished 31 days ago by the journal's date: past the default retention (30 days).
  const old = new Date(world.clock.now() - 31 * 24 * 3_600_000);
  utimesSync(journal, old, old);
  expect((await run(['resume', job, '--wait'])).code).toBe(8);
  expect(statSync(journal).mtimeMs).toBeGreaterThan(old.getTime());
  // What the user was told to record is there to read, not removed by the next run's retention.
  expect(await jobsRow(job)).toEqual(expect.objectContaining({ state: 'lost' }));
});

it('chunks recorded lost: the read commands use the other tasks, warn, end in exit 11; every hint followed ends, nothing paid', async () => {
  const { job } = await jobStoppedAtChunk4(run, dir, S, ITEMS);
  await restartWithoutState(world);
  expect((await run(['resume', job, '--yes'])).code).toBe(0); // chunks 1–3 recorded lost, 4–6 tasks 1–3
  const posts = await world.posts();
  const every = join(dir, 'every.csv'); // an export of all six items: the job's side lacks the lost chunks' three
  writeFileSync(every, `target\n${ITEMS.join('\n')}\n`);
  const warning = `warning: job ${job}: chunks 1, 2 and 3 are recorded lost (the service gave their ids to other tasks); using its other 3 tasks`;
  const commands = [
    ['show', '--job', job, '-o', 'tsv'],
    ['wait', '--job', job],
    ['watch', '--job', job],
    ['retry', '--job', job, '--dry-run'],
    ['diff', job, every],
  ];
  const seen = new Set(commands.map((argv) => argv.join(' ')));
  const queue = [...commands];
  for (let argv = queue.shift(); argv !== undefined; argv = queue.shift()) {
    const ran = await run(argv);
    const what = `taskctl ${argv.join(' ')}: ${ran.stderr}`;
    expect(ran.code, what).not.toBe(8);
    expect(ran.stderr, what).not.toContain('To record it');
    expect(ran.stderr, what).not.toContain('does not match');
    if (commands.includes(argv)) {
      expect(ran.stderr, what).toContain(warning);
      expect(ran.code, what).toBe(argv[0] === 'diff' ? 15 : 11);
    }
    // Every command a hint names, followed verbatim once: none leads back to one already followed.
    for (const [hint] of ran.stderr.matchAll(/taskctl [^`\n;)]+/g)) {
      const next = hint.trim().split(/\s+/).slice(1);
      if (seen.has(next.join(' '))) continue;
      seen.add(next.join(' '));
      queue.push(next);
    }
    expect(seen.size, 'the hints do not end').toBeLessThan(20);
  }
  const shown = await run(['show', '--job', job, '-o', 'tsv']);
  expect(shown.stdout).toMatch(/m4\.com[\s\S]*m5\.com[\s\S]*m6\.com/);
  expect(shown.stdout).not.toContain('m1.com');
  const retried = await run(['retry', '--job', job, '--dry-run']);
  expect(retried.stderr).toContain('the 3 items of the lost chunks 1, 2 and 3 are not retried');
  expect(await world.posts()).toBe(posts);
});

it('every task of the job recorded lost: its resume --wait claims no success (no ✓ line), says which are lost, exit 11', async () => {
  const { job } = await createdJob(['n1.com', 'n2.com', 'n3.com']);
  await restartWithoutState(world);
  // The first run finds them lost and records it (exit 8); the next one starts from that record.
  expect((await run(['resume', job, '--wait'])).code).toBe(8);
  const resumed = await run(['resume', job, '--wait']);
  expect(resumed.code, resumed.stderr).toBe(11);
  expect(resumed.stderr).toMatch(/the service no longer has the tasks of chunks 1, 2 and 3 of job j-/);
  expect(resumed.stderr).not.toMatch(/✓|no task\n/);
});
