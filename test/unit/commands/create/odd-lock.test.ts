/**
 * A FIFO (or anything but a regular file) at the lock of a job this create has nothing to do with: the create goes
 * on. Only a job that could be this run's work again (a stopped job of the same items, reached by --reuse-window) has
 * its lock read, and there the odd file is exit 2 naming it: whether a run holds that job cannot be known. The
 * housekeeping after a create skips such a job and removes the other jobs past the retention.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { jobStoppedAtChunk4 } from '../journal-lines.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
let world: World;
let dir: string;
worldEachTest('taskctl-create-odd-lock-', (w, d) => {
  world = w;
  dir = d;
});

const run = (argv: string[]) => runTaskctl(argv, { env: world.env, clock: world.clock, home: dir });
const fifoAtLockOf = (id: string) => execFileSync('mkfifo', [join(dir, 'state', 'locks', `${id}.lock`)]);

it("a finished job's lock a FIFO: a create of other items is not refused", async () => {
  const first = await run(['create', S, 'a1.com', '-y']);
  expect(first.code, first.stderr).toBe(0);
  fifoAtLockOf(/job (j-[0-9a-z]+): taskctl jobs/.exec(first.stderr)?.[1] ?? '');
  for (const extra of [[], ['--reuse-window', '1h']]) {
    const posts = await world.posts();
    const other = await run(['create', S, `b${extra.length}.com`, '-y', ...extra]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).not.toContain('FIFO');
    expect(await world.posts()).toBe(posts + 1);
  }
});

it('a stopped job of the same items whose lock is a FIFO: the re-run is exit 2 naming it, nothing sent', async () => {
  const items = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'];
  const { job } = await jobStoppedAtChunk4(run, dir, S, items);
  fifoAtLockOf(job);
  const posts = await world.posts();
  const again = await run(['create', S, ...items, '--chunk-size', '1', '-y', '--reuse-window', '1h']);
  expect(again.code, again.stderr).toBe(2);
  expect(again.stderr).toContain(`the lock file ${join(dir, 'state', 'locks', `${job}.lock`)} is a FIFO`);
  expect(await world.posts()).toBe(posts);
});

it('the housekeeping after a create skips a finished job whose lock is a FIFO, and removes the others past the retention', async () => {
  const jobs: string[] = [];
  for (const item of ['a.com', 'b.com', 'c.com', 'd.com']) {
    const created = await run(['create', S, item, '-y']);
    expect(created.code, created.stderr).toBe(0);
    jobs.push(/job (j-[0-9a-z]+): taskctl jobs/.exec(created.stderr)?.[1] ?? '');
  }
  const journalOf = (id: string) => join(dir, 'state', 'jobs', `${id}.jsonl`);
  // Whichever job the state directory lists first: the one with the FIFO, or one after it.
  for (const odd of [jobs[0] ?? '', jobs[3] ?? '']) fifoAtLockOf(odd);
  const old = new Date(world.clock.now() - 31 * 24 * 3_600_000); // past the 30 days' retention
  for (const job of jobs) utimesSync(journalOf(job), old, old);
  const next = await run(['create', S, 'z.com', '-y']);
  expect(next.code, next.stderr).toBe(0);
  expect(next.stderr).not.toContain('FIFO');
  expect(jobs.filter((job) => existsSync(journalOf(job)))).toEqual([jobs[0], jobs[3]]);
  expect(statSync(join(dir, 'state', 'locks', `${jobs[0]}.lock`)).isFIFO()).toBe(true);
});
