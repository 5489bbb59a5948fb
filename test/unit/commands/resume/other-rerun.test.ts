/**
 * A job stopped with a chunk in doubt, taken over (that chunk only) by a re-run that is not that job again: of other
 * items, or while another chunk of the job was in doubt too. The re-run also creates the job's other items, so the
 * job's `resume`, the hint it printed, takes their tasks from it instead of paying again, and waits for it while it has
 * not finished (core/submit/hand-over.ts `coveringTasks`, journaled-run.ts).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, worldEachTest, type World } from '../sandbox-world.js';
import { journalLines, keepJournalLines } from '../journal-lines.js';

const S = 'domain_check_availability';
const ITEMS = ['other-a.com', 'other-b.com', 'other-c.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-other-rerun-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });
const journalOf = (id: string) => join(dir, 'state', 'jobs', `${id}.jsonl`);
const records = (id: string) => journalLines(journalOf(id));
const jobOf = (stderr: string) => /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(stderr)?.[1] ?? '';
const stateOf = async (id: string) => {
  const jobs = await run(['jobs', '-o', 'json']);
  return (JSON.parse(jobs.stdout) as Array<{ id: string; state: string }>).find((row) => row.id === id)?.state;
};

async function eachPaidOnce(items: readonly string[]): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of items) expect(counts.get(item), item).toBe(1);
}

/** The create of ITEMS, one a chunk, stopped with chunk 1 in doubt (its POST lost before reaching the service). */
const stoppedJob = (items: readonly string[] = ITEMS) =>
  stoppedByCtrlC(world, ['create', S, ...items, '--chunk-size', '1', '-y', '-q'], dir, 'reset-before');

/** A re-run of ITEMS and one more item: it takes chunk 1 over, and creates every item. */
async function supersetRerun(stopped: string): Promise<string> {
  const again = await run(['create', S, ...ITEMS, 'other-d.com', '--chunk-size', '1', '--reuse-window', '1h', '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(
    `job ${stopped} stopped with these items in doubt (its chunk 1); this run's task 1 covers them, and that job takes it (taskctl resume ${stopped})`,
  );
  return jobOf(again.stderr);
}

// One scenario for both: `jobs --prune` before the resume removes nothing, so the resume after it is the one the
// first assertion is about.
it('a re-run of more items: `jobs --prune` keeps it while the stopped job still takes tasks from it; the stopped job’s resume takes its never-sent chunks’ tasks from it, nothing sent', async () => {
  const stopped = await stoppedJob();
  const rerun = await supersetRerun(stopped);
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  const rows = JSON.parse((await run(['jobs', '-o', 'json'])).stdout) as Array<{
    id: string;
    taken_over_by?: string[];
  }>;
  expect(rows.map((row) => row.id).sort()).toEqual([rerun, stopped].sort());
  expect(rows.find((row) => row.id === stopped)?.taken_over_by).toEqual([rerun]);
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    `job ${stopped}: 1 of 3 chunks done, none in doubt; next: take chunk 2, 3's tasks from job ${rerun}, which holds the same items, then send 0 chunks at most (0 items)`,
  );
  expect(resumed.stderr).toContain(`chunk 2: task 2 of job ${rerun} (its chunk 2) covers its items`);
  expect(resumed.stderr).toContain(`chunk 3: task 3 of job ${rerun} (its chunk 3) covers its items`);
  expect(await world.posts()).toBe(posts);
  await eachPaidOnce([...ITEMS, 'other-d.com']);
  expect(await stateOf(stopped)).toBe('finished');
  // The --job commands read those tasks as the chunks' own.
  const shown = await run(['show', '--job', stopped]);
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stderr).not.toMatch(/in doubt|not this chunk's|resume|warning/);
  // Finished now, the stopped job no longer needs it: both go.
  expect((await run(['jobs', '--prune'])).stderr).toMatch(/removed 2 finished jobs/);
});

it('that re-run stopped on refused items: the settle-first hint carries --skip-refused, and run verbatim pays once', async () => {
  const stopped = await stoppedJob();
  const rerun = await run([
    'create',
    S,
    ...ITEMS,
    'bad item',
    'other-d.com',
    '--no-validate',
    '--chunk-size',
    '1',
    '--reuse-window',
    '1h',
    '-y',
  ]);
  expect(rerun.code, rerun.stderr).toBe(3);
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(9);
  const hint = /Settle that job first: (taskctl resume \S+ [^;]*); then: (taskctl resume .*?)\. Or go on/.exec(
    resumed.stderr,
  );
  expect(hint?.[1], resumed.stderr).toBe(`taskctl resume ${jobOf(rerun.stderr)} --skip-refused --yes`);
  for (const command of [hint?.[1] ?? '', hint?.[2] ?? '']) {
    const followed = await run(command.split(' ').slice(1));
    expect(followed.code, `${command}: ${followed.stderr}`).toBe(0);
  }
  await eachPaidOnce([...ITEMS, 'other-d.com']);
});

it('that re-run killed with a chunk of the job’s items in doubt: exit 9, settle it first; both hints run verbatim pay once', async () => {
  const stopped = await stoppedJob();
  const rerun = await supersetRerun(stopped);
  // As if it was killed with its chunk 2 (other-b.com, the stopped job's chunk 2) in flight.
  keepJournalLines(
    journalOf(rerun),
    (record) => record.type !== 'done' && !(record.type === 'created' && record.chunk === 2),
  );
  const posts = await world.posts();
  const refused = await run(['resume', stopped, '-y']);
  expect(refused.code, refused.stderr).toBe(9);
  expect(refused.stderr).toContain(
    `job ${rerun}, which took over items of this job, has not finished: its request for its chunk 2 may have created the items of this job's chunk 2; nothing was sent`,
  );
  // Not `--ignore-job` it: its request may have made their task, which only its own resume can find.
  expect(refused.stderr).not.toContain('--ignore-job');
  const hint = /Settle that job first: taskctl (.*); then: taskctl (.*)$/m.exec(refused.stderr);
  // Both carry the -y of the run that printed them: they run where it ran (a script), with no question.
  expect(hint?.slice(1)).toEqual([`resume ${rerun} --yes`, `resume ${stopped} --yes`]);
  for (const command of hint?.slice(1) ?? []) {
    const result = await run([...command.split(' '), '-y', '-q']);
    expect(result.code, result.stderr).toBe(0);
  }
  expect(await world.posts()).toBe(posts);
  await eachPaidOnce([...ITEMS, 'other-d.com']);
});

it('that re-run not finished, but every chunk of it has its task: nothing of it is waited for, its tasks taken', async () => {
  const stopped = await stoppedJob();
  const rerun = await supersetRerun(stopped);
  // As if it was killed before writing that it finished: it can create nothing more.
  keepJournalLines(journalOf(rerun), (record) => record.type !== 'done');
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 2: task 2 of job ${rerun} (its chunk 2) covers its items`);
  expect(await world.posts()).toBe(posts);
  await eachPaidOnce([...ITEMS, 'other-d.com']);
});

it('another chunk of the stopped job in doubt too: the re-run of the same items takes one chunk over, not the job whole', async () => {
  const items = ITEMS.slice(0, 2);
  const stopped = await stoppedJob(items);
  // Chunk 2 in doubt as well (a send with no outcome, as a damaged line leaves one): its request was never checked.
  const send = records(stopped).find((record) => record.type === 'send');
  appendFileSync(
    journalOf(stopped),
    `${JSON.stringify({ ...send, chunk: 2, first: 1, sha256: '', items_digest: undefined })}\n`,
  );
  const again = await run(['create', S, ...items, '--chunk-size', '1', '--reuse-window', '1h', '-y']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain(`and that job takes it (taskctl resume ${stopped})`);
  expect(again.stderr).not.toContain('superseded');
  const rerun = jobOf(again.stderr);
  expect(await stateOf(stopped)).toBe('interrupted');
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(
    `job ${stopped}: 1 of 2 chunks done, 1 in doubt (chunk 2); next: take chunk 2's task from job ${rerun}, which holds the same items, then send 0 chunks at most (0 items)`,
  );
  expect(resumed.stderr).toContain(`chunk 2: task 2 of job ${rerun} (its chunk 2) covers its items`);
  expect(await world.posts()).toBe(posts);
  await eachPaidOnce(items);
});

it('that re-run itself superseded by a later one: the tasks are read from the job that took it over', async () => {
  const stopped = await stoppedJob();
  const rerun = await supersetRerun(stopped);
  // The re-run as if stopped before it finished, then taken over whole by a job that did (its journal, finished).
  const later = 'j-zzlaterrerun1';
  const kept = records(rerun).filter((record) => record.type !== 'done');
  writeFileSync(
    journalOf(later),
    records(rerun)
      .map((record) => `${JSON.stringify(record.type === 'job' ? { ...record, id: later } : record)}\n`)
      .join(''),
  );
  const takeover = {
    type: 'unknown',
    chunk: 4,
    candidates: [],
    reason: 'taken over',
    covered_by: { job: later, chunk: 4, whole: true },
  };
  writeFileSync(journalOf(rerun), [...kept, takeover].map((record) => `${JSON.stringify(record)}\n`).join(''));
  const posts = await world.posts();
  const resumed = await run(['resume', stopped, '-y']);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toContain(`chunk 2: task 2 of job ${later} (its chunk 2) covers its items`);
  expect(await world.posts()).toBe(posts);
  await eachPaidOnce([...ITEMS, 'other-d.com']);
});
