/**
 * A job `superseded` (stopped, then taken over whole by a re-run of the same items: core/submit/hand-over.ts) is kept
 * and removed as a finished one is: after `job-retention`, or at once by `jobs --prune`. Never after the job that took
 * it over (that one stays while it stays), so the superseded job's commands can point to it; with that journal
 * removed by hand the job stays superseded all the same, and its resume sends nothing.
 */
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { JobStore } from '../../../../src/store/job-files.js';
import { tryLock } from '../../../../src/store/lock-file.js';
import type { RunOptions } from '../run-in-process.js';
import { stoppedByCtrlC, supersededJob, worldEachTest, type World } from '../sandbox-world.js';

const ITEMS = ['prune-a.com', 'prune-b.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-superseded-prune-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], options: Omit<RunOptions, 'env' | 'clock'> = {}) =>
  world.run(argv, { home: dir, ...options });

/** The stopped job and the re-run that took it over whole (finished). */
const superseded = () => supersededJob(world, dir, ITEMS);

async function jobs(argv: string[] = []): Promise<Array<{ id: string; state: string; superseded_by?: string }>> {
  const listed = await run(['jobs', '-o', 'json', ...argv]);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as Array<{ id: string; state: string; superseded_by?: string }>;
}

const journal = (id: string) => new JobStore(join(dir, 'state')).journalPath(id);
function age(id: string): void {
  const old = (world.clock.now() - 31 * 24 * 3600_000) / 1000;
  utimesSync(journal(id), old, old);
}

it('past the retention a superseded job is removed like a finished one', async () => {
  const { stopped, rerun } = await superseded();
  age(stopped);
  const rows = await jobs();
  expect(rows.map((row) => row.id)).toEqual([rerun]);
  expect(existsSync(journal(stopped))).toBe(false);
});

it('`jobs --prune` removes it with the finished ones, and says so', async () => {
  const { stopped, rerun } = await superseded();
  expect(existsSync(join(dir, 'cache', 'places', `${rerun}.json`))).toBe(true);
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/removed 1 finished job and 1 superseded job/);
  expect(existsSync(journal(stopped))).toBe(false);
  expect(existsSync(journal(rerun))).toBe(false);
  // The records of where they ran stay, marked removed (store/job-places.ts): a copy of either job must not buy again
  // what it bought; a later prune removes them a year on (store/job-places.test.ts: they do not pile up).
  const place = (id: string) =>
    JSON.parse(readFileSync(join(dir, 'cache', 'places', `${id}.json`), 'utf8')) as { removed?: { as: string } };
  expect(place(rerun).removed?.as).toBe('finished');
  expect(place(stopped).removed?.as).toBe('superseded');
});

it('never outlives the job that took it over: its resume would pay for the items again', async () => {
  const { stopped, rerun } = await superseded();
  // The re-run past the retention, the stopped job not (its journal written since, say): the re-run stays with it.
  age(rerun);
  // Both kept (in either order: the two started in the same fake instant).
  expect(new Map((await jobs()).map((row) => [row.id, row.state]))).toEqual(
    new Map([
      [rerun, 'finished'],
      [stopped, 'superseded'],
    ]),
  );
  // Both past it: both go, the stopped job first.
  age(stopped);
  expect(await jobs()).toEqual([]);
  expect(existsSync(journal(stopped))).toBe(false);
  expect(existsSync(journal(rerun))).toBe(false);
  const posts = await world.posts();
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

it('the finished job’s journal removed by hand: the superseded job stays superseded, its `resume` sends nothing', async () => {
  const { stopped, rerun } = await superseded();
  rmSync(journal(rerun));
  expect((await jobs()).find((row) => row.id === stopped)?.state).toBe('superseded');
  const posts = await world.posts();
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});

/** The lines of job `id`'s journal, each parsed. */
const records = (id: string) =>
  readFileSync(journal(id), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; chunk?: number });
const rewrite = (id: string, keep: (record: { type: string; chunk?: number }) => boolean) =>
  writeFileSync(
    journal(id),
    records(id)
      .filter(keep)
      .map((record) => `${JSON.stringify(record)}\n`)
      .join(''),
  );

it('taken over by a re-run that runs and has sent nothing of it yet: `interrupted`, and kept, since that run may stop before it sends', async () => {
  const { stopped, rerun } = await superseded();
  // The moment the re-run has marked the takeover: the stopped job's chunk not reconciled yet, the re-run's journal
  // its job record alone, and the re-run alive (its lock held).
  rewrite(stopped, (record) => record.type !== 'reconciled');
  rewrite(rerun, (record) => record.type === 'job');
  const lock = tryLock(new JobStore(join(dir, 'state')).lockPath(rerun));
  if (!('release' in lock)) throw new Error('lock not taken');
  try {
    const rows = await jobs();
    expect(rows.find((row) => row.id === stopped)).toMatchObject({ state: 'interrupted' });
    expect(rows.find((row) => row.id === stopped)?.superseded_by).toBeUndefined();
    const pruned = await run(['jobs', '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(existsSync(journal(stopped))).toBe(true);
  } finally {
    lock.release();
  }
  // The re-run stopped before sending (Ctrl-C in its wait): the cover is void, the stopped job its own, still there.
  expect((await jobs()).find((row) => row.id === stopped)?.state).toBe('interrupted');
  expect(existsSync(journal(stopped))).toBe(true);
});

it('taken over by a re-run whose send of the chunk is in doubt: `superseded`, kept until the chunk has its task', async () => {
  const { stopped, rerun } = await superseded();
  rewrite(stopped, (record) => record.type !== 'reconciled');
  rewrite(rerun, (record) => record.type === 'job' || (record.type === 'send' && record.chunk === 1));
  expect((await jobs()).find((row) => row.id === stopped)).toMatchObject({ state: 'superseded', superseded_by: rerun });
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(existsSync(journal(stopped))).toBe(true);
  expect(existsSync(journal(rerun))).toBe(true);
});

it('a `--journal FILE` job superseded (never pruned: the file is yours) does not keep the job that took it over once its own journal records that task', async () => {
  const file = join(dir, 'mine.jsonl');
  const create = ['create', 'domain_check_availability', ...ITEMS, '--chunk-size', '1', '-y', '-q'];
  await stoppedByCtrlC(world, [...create, '--journal', file], dir, 'reset-before');
  // Its job record dated 2 hours back: the re-run's window reaches its request, not its start (it takes it over).
  const [job = '', ...rest] = readFileSync(file, 'utf8').split('\n');
  const record = JSON.parse(job) as { id: string; created_at: string };
  record.created_at = new Date(Date.parse(record.created_at) - 2 * 3_600_000).toISOString();
  writeFileSync(file, [JSON.stringify(record), ...rest].join('\n'));
  const again = await run([...create, '--reuse-window', '1h']);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('it is superseded');
  const rerun = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(again.stderr)?.[1] ?? '';
  expect(new Map((await jobs()).map((row) => [row.id, row.state]))).toEqual(
    new Map([
      [rerun, 'finished'],
      [record.id, 'superseded'],
    ]),
  );
  expect(readFileSync(file, 'utf8')).toContain('"type":"reconciled"');
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/removed 1 finished job/);
  expect(existsSync(journal(rerun))).toBe(false);
  expect(existsSync(file)).toBe(true);
  // The takeover stands without that job's journal: the superseded job's resume sends nothing (that job is gone).
  expect((await jobs()).find((row) => row.id === record.id)?.state).toBe('superseded');
  const posts = await world.posts();
  const resumed = await run(['resume', file, '-y']);
  expect(resumed.code, resumed.stderr).toBe(2);
  expect(resumed.stderr).toContain(
    `error: job ${record.id} was taken over by job ${rerun} (the same items, the same chunks), which is not in this state directory (pruned once finished, or run under another TASKCTL_STATE_DIR): nothing was sent\n`,
  );
  expect(resumed.stderr).toContain(`Its tasks are that job's: run \`taskctl resume ${rerun}\` where it is kept`);
  expect(await world.posts()).toBe(posts);
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
});
