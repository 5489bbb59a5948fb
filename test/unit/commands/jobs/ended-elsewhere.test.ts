/**
 * A job finished by a copy of its state directory (the read-only state directory's `cp -a DIR NEW`), the copy then
 * pruned there: the cache directory's record of that removal (store/job-places.ts) is what the original's resume is
 * refused by (exit 2), so `jobs` in the original says the same: `ended-elsewhere`, never `interrupted`, with one stderr
 * line saying where it ended and how, and no hint that would send anything; bare `resume` does not take it for the
 * interrupted job; TAB completion says what `jobs` says; and it goes as a finished job does (`--prune`, or the
 * retention counted from that removal), leaving the record of the copy's removal as it was.
 */
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jobEndedInPrunedCopy, worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-ended-elsewhere-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

interface Row {
  id: string;
  state: string;
  ended_in?: string;
}

const endedInPrunedCopy = () => jobEndedInPrunedCopy(world, run, S, dir);

const place = (id: string) =>
  JSON.parse(readFileSync(join(dir, 'cache', 'places', `${id}.json`), 'utf8')) as {
    path: string;
    removed?: { as: string };
  };

it('jobs in the original says the job ended elsewhere, names no resume, and bare resume does not take it', async () => {
  const { id, copyJournal } = await endedInPrunedCopy();
  const listed = await run(['jobs', '-o', 'json']);
  expect(listed.code, listed.stderr).toBe(0);
  const rows = JSON.parse(listed.stdout) as Row[];
  expect(rows.find((row) => row.id === id)).toEqual(
    expect.objectContaining({ state: 'ended-elsewhere', ended_in: copyJournal }),
  );
  expect(listed.stderr).toContain(
    `warning: job ${id} was finished from ${copyJournal}, which was removed since as finished (taskctl jobs --prune or the job-retention): its tasks are on the service, not in this journal; nothing is left to resume here, and this journal goes as a finished job's does;`,
  );
  // What it names is only a read: never a resume, which would be refused or look for (and perhaps buy) its tasks.
  expect(listed.stderr).not.toMatch(/taskctl resume/);
  expect(listed.stderr).toMatch(/taskctl list --service domain_check_availability --since \S+Z --all/);
  const table = await run(['jobs']);
  expect(table.stdout).toMatch(/\t1\/4\t0\tended-elsewhere\t/);
  // TAB completion's glance says what `jobs` says.
  expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\t${S} ended-elsewhere\n`);
  // Bare resume: no interrupted job (it would have been refused, exit 2).
  const bare = await run(['resume', '-y']);
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('no interrupted job to resume');
  expect(await world.tasks()).toHaveLength(4);
});

it('jobs --prune in the original removes it as a finished job, and keeps the record of where it ended', async () => {
  const { id, copyJournal } = await endedInPrunedCopy();
  const pruned = await run(['jobs', '--prune']);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toContain('removed 1 finished job');
  expect(existsSync(join(dir, 'state', 'jobs', `${id}.jsonl`))).toBe(false);
  expect(place(id)).toEqual(
    expect.objectContaining({ path: copyJournal, removed: expect.objectContaining({ as: 'finished' }) }),
  );
  expect(await world.tasks()).toHaveLength(4);
});

it("the retention counts from the copy's removal, not from the original's last write", async () => {
  const { id } = await endedInPrunedCopy();
  const set = await run(['config', 'set', 'job-retention', '1h']);
  expect(set.code, set.stderr).toBe(0);
  const journal = join(dir, 'state', 'jobs', `${id}.jsonl`);
  // The original's journal last written two hours ago: past the retention by its own date.
  const old = (world.clock.now() - 2 * 3_600_000) / 1000;
  utimesSync(journal, old, old);
  const kept = await run(['jobs']);
  expect(kept.code, kept.stderr).toBe(0);
  expect(existsSync(journal)).toBe(true);
  world.clock.advance(3_600_000 + 1000);
  const gone = await run(['jobs', '-o', 'json']);
  expect(gone.code, gone.stderr).toBe(0);
  expect(existsSync(journal)).toBe(false);
  expect((JSON.parse(gone.stdout) as Row[]).map((row) => row.id)).not.toContain(id);
});
