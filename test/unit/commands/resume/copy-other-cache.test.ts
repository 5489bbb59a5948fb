/**
 * A copy of a state directory resumed with another cache directory (another machine's, an XDG_CACHE_HOME that differs
 * between two shells): its journal names the file it was made as and the cache directory it was made under, whose
 * record of the job's place every run reads and writes (docs/behaviour.md#jobs). So the original and its copy, run in
 * turns each with its own cache directory, each take what the other created. The original and its cache directory
 * gone: nothing is sent without a lookup reaching back to the job's start, and that hint, followed as printed, buys
 * each item once. A journal moved whole (the same file under another name) is no copy.
 */
import {
  cpSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Clock } from '../../../../src/lib/time.js';
import { worldEachTest, type World } from '../sandbox-world.js';
import { runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-copy-other-cache-', (w, d) => ((world = w), (dir = d)));

const run = (argv: string[], env: Record<string, string> = {}) =>
  runTaskctl(argv, { env: { ...world.env, ...env }, clock: world.clock, home: dir });

/** The copy's run: its own state and cache directories. */
const fromCopy = (argv: string[]) =>
  run(argv, { TASKCTL_STATE_DIR: join(dir, 'state2'), TASKCTL_CACHE_DIR: join(dir, 'cache2') });

/** The balance runs out after `chunks` more tasks (its reads refused, so the guard cannot stop the run first). */
async function balanceFor(chunks: number): Promise<void> {
  await world.clearFaults();
  await world.setBalance(chunks);
  await world.fault({ method: 'GET', path: '/balance', kind: 'status', status: 503, count: 100 });
}

/**
 * Job J of four one-item chunks, stopped after chunk 1 (the balance ran out), and its state directory copied. Its items
 * come from a file of the user's (items given as arguments are kept beside the journal, so a copy whose original is
 * gone has lost them too).
 */
async function stoppedAndCopied(): Promise<{ id: string; original: string }> {
  await balanceFor(1);
  writeFileSync(join(dir, 'items.txt'), `${ITEMS.join('\n')}\n`);
  const stopped = await run(['create', S, '-f', join(dir, 'items.txt'), '--chunk-size', '1', '-y']);
  expect(stopped.code, stopped.stderr).toBe(6);
  const id = /taskctl resume (j-[0-9a-z]+)/.exec(stopped.stderr)?.[1] ?? '';
  cpSync(join(dir, 'state'), join(dir, 'state2'), { recursive: true });
  await world.clearFaults();
  await world.setBalance(10_000);
  return { id, original: join(realpathSync(join(dir, 'state')), 'jobs', `${id}.jsonl`) };
}

/** The resume the refusal's hint names (its last line's), as words. */
const lookupHint = (stderr: string): string[] =>
  /taskctl (resume [^;\n]*)/
    .exec(stderr.split('\n').at(-2) ?? '')?.[1]
    ?.trim()
    .split(' ') ?? [];

async function eachBoughtOnce(): Promise<void> {
  const counts = await world.itemCounts();
  for (const item of ITEMS) expect(counts.get(item), item).toBe(1);
}

it('the original finished first: the copy takes its tasks from it and buys nothing', async () => {
  const { id, original } = await stoppedAndCopied();
  const finished = await run(['resume', id, '-y']);
  expect(finished.code, finished.stderr).toBe(0);
  const tasks = await world.taskCount();
  const copy = await fromCopy(['resume', id, '-y']);
  expect(copy.code, copy.stderr).toBe(0);
  expect(copy.stderr).toContain(`job ${id}: the tasks of 3 chunks taken from ${original}`);
  expect(await world.taskCount()).toBe(tasks);
  await eachBoughtOnce();
});

it('the copy and the original taking turns, each with its own cache directory: each takes what the other created', async () => {
  const { id } = await stoppedAndCopied();
  // Chunk 2 by the copy, chunk 3 by the original, chunk 4 by the copy: each run stopped by the balance (exit 6).
  await balanceFor(1);
  const copyFirst = await fromCopy(['resume', id, '-y']);
  expect(copyFirst.code, copyFirst.stderr).toBe(6);
  await balanceFor(1);
  const original = await run(['resume', id, '-y']);
  expect(original.code, original.stderr).toBe(6);
  expect(original.stderr).toContain(`job ${id}: the tasks of 1 chunk taken from ${join(realpathSync(dir), 'state2')}`);
  await world.clearFaults();
  await world.setBalance(10_000);
  const copyAgain = await fromCopy(['resume', id, '-y']);
  expect(copyAgain.code, copyAgain.stderr).toBe(0);
  expect(copyAgain.stderr).toContain(`job ${id}: the tasks of 1 chunk taken from ${join(realpathSync(dir), 'state')}`);
  await eachBoughtOnce();
});

it('the original and its cache directory gone (another machine): nothing sent, and the hint as printed buys each item once', async () => {
  const { id, original } = await stoppedAndCopied();
  const finished = await run(['resume', id, '-y']);
  expect(finished.code, finished.stderr).toBe(0);
  rmSync(join(dir, 'state'), { recursive: true });
  rmSync(join(dir, 'cache'), { recursive: true });
  world.clock.advance(3 * 60_000);
  const tasks = await world.taskCount();
  const refused = await fromCopy(['resume', id, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`job ${id}: its journal is a copy of ${original}, which is not here`);
  expect(await world.taskCount()).toBe(tasks);
  const hint = lookupHint(refused.stderr);
  // Back to the job's start (3 minutes and the runs' own waits ago) with ten minutes to spare.
  expect(hint.slice(0, 4)).toEqual(['resume', id, '--yes', '--reuse-window']);
  expect(Number.parseInt(hint[4] ?? '', 10)).toBeGreaterThanOrEqual(13);
  const resumed = await fromCopy(hint);
  expect(resumed.code, resumed.stderr).toBe(0);
  await eachBoughtOnce();
});

it('a journal moved whole under another state directory is no copy: it goes on, and buys the rest once', async () => {
  const { id } = await stoppedAndCopied();
  rmSync(join(dir, 'state2'), { recursive: true });
  renameSync(join(dir, 'state'), join(dir, 'state2'));
  const moved = await fromCopy(['resume', id, '-y']);
  expect(moved.code, moved.stderr).toBe(0);
  expect(moved.stderr).not.toContain('copy');
  await eachBoughtOnce();
});

it.each(['another job', 'a link'] as const)(
  "the original's path now holding %s: the copy buys nothing, and the lookup as printed buys each item once",
  async (replaced) => {
    const { id, original } = await stoppedAndCopied();
    const finished = await run(['resume', id, '-y']);
    expect(finished.code, finished.stderr).toBe(0);
    rmSync(join(dir, 'cache'), { recursive: true });
    rmSync(original);
    if (replaced === 'another job') {
      // A new job started in its place (a script that names its journal, run again).
      const other = await run(['create', S, 'other.example', '-y', '--journal', original]);
      expect(other.code, other.stderr).toBe(0);
    } else {
      mkdirSync(join(dir, 'kept'), { recursive: true });
      writeFileSync(join(dir, 'kept', 'job.jsonl'), '');
      symlinkSync(join(dir, 'kept', 'job.jsonl'), original);
    }
    const tasks = await world.taskCount();
    const refused = await fromCopy(['resume', id, '-y']);
    expect(refused.code, `${replaced}: ${refused.stderr}`).toBe(2);
    expect(refused.stderr).toContain(`job ${id}: its journal is a copy of ${original}, which is not here`);
    expect(await world.taskCount()).toBe(tasks);
    const hint = lookupHint(refused.stderr);
    const resumed = await fromCopy(hint);
    expect(resumed.code, `${replaced}: ${resumed.stderr}`).toBe(0);
    await eachBoughtOnce();
  },
);

it('a copy that got the inode its original freed (a backup restored under another name) is no journal moved whole', async () => {
  const { id } = await stoppedAndCopied();
  const finished = await run(['resume', id, '-y']);
  expect(finished.code, finished.stderr).toBe(0);
  rmSync(join(dir, 'state'), { recursive: true });
  rmSync(join(dir, 'cache'), { recursive: true });
  // The copy's journal as a file system that reuses inodes would leave it: its device and inode those the original's
  // journal was made with; the birth of a file, which a move keeps, is what tells them apart.
  const copy = join(dir, 'state2', 'jobs', `${id}.jsonl`);
  const { dev, ino } = statSync(copy, { bigint: true });
  const [first = '', ...rest] = readFileSync(copy, 'utf8').split('\n');
  const job = JSON.parse(first) as { origin: Record<string, string> };
  job.origin = { ...job.origin, dev: String(dev), ino: String(ino), born: '1' };
  writeFileSync(copy, [JSON.stringify(job), ...rest].join('\n'));
  expect(statSync(copy, { bigint: true }).ino).toBe(ino);
  const refused = await fromCopy(['resume', id, '-y']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr).toContain(`job ${id}: its journal is a copy of`);
  await eachBoughtOnce();
});

it("a copy's run while the original's run holds the job is exit 2 naming that run, whatever place the record names", async () => {
  const { id } = await stoppedAndCopied();
  // Chunk 2 by a third copy, with the original's cache directory (the record names it), then removed: the job's place
  // is a gone file, past which the original's run below is let by a window reaching back to the job's start.
  cpSync(join(dir, 'state'), join(dir, 'state3'), { recursive: true });
  await balanceFor(1);
  const third = await run(['resume', id, '-y'], { TASKCTL_STATE_DIR: join(dir, 'state3') });
  expect(third.code, third.stderr).toBe(6);
  rmSync(join(dir, 'state3'), { recursive: true });
  await world.clearFaults();
  await world.setBalance(10_000);
  // The original's chunk 3 answer is lost: while it checks the task list for it (a sleep of a second or more, holding
  // the job), the copy follows the same hint.
  await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after', count: 1 });
  const hint = ['resume', id, '-y', '--reuse-window', '60m'];
  let copy: Awaited<ReturnType<typeof fromCopy>> | undefined;
  const clock: Clock = {
    now: () => world.clock.now(),
    sleep: async (ms, signal) => {
      if (copy === undefined && ms >= 1000) copy = await fromCopy(hint);
      return world.clock.sleep(ms, signal);
    },
  };
  const original = await runTaskctl(hint, { env: world.env, clock, home: dir });
  expect(copy?.code, copy?.stderr).toBe(2);
  expect(copy?.stderr).toContain(`job ${id} is in use by another taskctl (process ${process.pid} on `);
  expect(original.code, original.stderr).toBe(0);
  const after = await fromCopy(hint);
  expect(after.code, after.stderr).toBe(0);
  await eachBoughtOnce();
});

it.each(['the copy', 'the original'] as const)(
  '%s finished and pruned with its own cache directory: the other is listed ended-elsewhere and buys nothing',
  async (pruned) => {
    const { id } = await stoppedAndCopied();
    const there = pruned === 'the copy' ? fromCopy : run;
    const here = pruned === 'the copy' ? run : fromCopy;
    const finished = await there(['resume', id, '-y']);
    expect(finished.code, finished.stderr).toBe(0);
    world.clock.advance(60_000);
    const prune = await there(['jobs', '--prune']);
    expect(prune.code, prune.stderr).toBe(0);
    const tasks = await world.taskCount();
    const listed = await here(['jobs', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as Array<{ id: string; state: string }>).find((job) => job.id === id)?.state,
    ).toBe('ended-elsewhere');
    const resumed = await here(['resume', id, '-y']);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain('which was removed since as finished');
    expect(await world.taskCount()).toBe(tasks);
  },
);
