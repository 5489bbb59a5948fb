/**
 * Every create is a job, end to end (a sandbox on port 0): Ctrl-C of a chunked create without --journal while POSTs are
 * slow prints one command, and that command run verbatim puts every item in exactly one task; a job killed with SIGKILL
 * mid-POST is listed as interrupted by `jobs -o json` and continued through a symlinked directory and through a copy of
 * its journal, each item once; a journal on a small full file system stops the job with exit 14 and every task named,
 * and `resume` ends it once there is room; a journal whose lock cannot be written beside it is refused. The killed create is the real bin (only a process can die mid-POST), killed
 * once the sandbox has received the POST of the chunk that is then in doubt; the create stopped by Ctrl-C (an abort, as
 * the bin's first SIGINT is), the create whose journal meets a full disk, and what runs after them (`jobs`, `resume`)
 * run `main()` in this process on the sandbox's clock, whose sleeps pass at once once it is virtual (a chunk in doubt
 * is settled without waiting its schedule in real time). That clock starts skipping only once the held POST has
 * landed: one landing later, in real time, would come after a check that took no time, a duplicate no real run makes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ctrlC, postsReceived, startCli, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';
import { RealThenVirtualClock } from './real-then-virtual-clock.js';

const S = 'domain_check_availability';
const ITEMS = Array.from({ length: 6 }, (_, i) => `job${i}.example.com`);
let world: E2EWorld | undefined;
/** Real time while a create runs; `clock.virtual()` once it has stopped, for the runs after it. */
let clock = new RealThenVirtualClock();
beforeEach(() => {
  clock = new RealThenVirtualClock();
});
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The send records in a journal so far (none before it exists). */
function sendsIn(journal: string): number {
  try {
    return (readFileSync(journal, 'utf8').match(/"type":"send"/g) ?? []).length;
  } catch {
    return 0;
  }
}

const tasksHeld = async (w: E2EWorld) => (await w.admin<{ taskCount: number }>('GET', '/__sandbox/state')).taskCount;

/** Until `count(w)` is `n`: fails after 20 s with what it was. */
async function untilSandbox(w: E2EWorld, what: string, count: (w: E2EWorld) => Promise<number>, n: number) {
  await waitFor(async () => (await count(w)) === n, {
    timeoutMs: 20_000,
    describe: async () => `${await count(w)} ${what}, not ${n}`,
  });
}

/** Every item of the sandbox's tasks, with how many tasks hold it. */
async function itemCounts(w: E2EWorld): Promise<Map<string, number>> {
  const { tasks } = await w.admin<{ tasks: Array<{ id: number }> }>('GET', '/__sandbox/state');
  const counts = new Map<string, number>();
  for (const { id } of tasks) {
    const { task } = await w.admin<{ task: { items: Array<{ target: string }> } }>('GET', `/__sandbox/tasks/${id}`);
    for (const item of task.items) counts.set(item.target, (counts.get(item.target) ?? 0) + 1);
  }
  return counts;
}
async function expectEachItemOnce(w: E2EWorld): Promise<void> {
  const counts = await itemCounts(w);
  expect([...counts.keys()].sort()).toEqual([...ITEMS].sort());
  expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
}

/** `taskctl create` as a child process, its output collected as it comes. */
function startCreate(w: E2EWorld, args: string[]) {
  return startCli(['create', S, ...args], w.env);
}

it('Ctrl-C of a chunked create without --journal: the printed command, run verbatim, puts every item in one task', async () => {
  world = await startWorld({ itemMs: 0, clock });
  const input = join(world.home.dir, 'in.txt');
  writeFileSync(input, `${ITEMS.join('\n')}\n`);
  // Chunk 1's POST at once, chunk 2's held 700 ms (the room for the Ctrl-C while it is in flight).
  await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.admin('POST', '/__sandbox/faults', {
    method: 'POST',
    path: '/tasks',
    kind: 'delay',
    delayMs: 700,
    count: 100,
  });
  // Ctrl-C in this process, as the bin's first SIGINT aborts a command (a create's exit 130 as a process:
  // create.test.ts); the subject is the command it prints and what that command does.
  const controller = new AbortController();
  const running = world.inProcess(['create', S, '-f', input, '--chunk-size', '2', '--request-timeout', '3s', '-q'], {
    clock,
    signal: controller.signal,
  });
  // Ctrl-C once the sandbox holds chunk 2's POST: the chunk is in doubt (its task lands 700 ms after it was sent).
  await untilSandbox(world, 'POSTs received', postsReceived, 2);
  controller.abort(ctrlC());
  const run = await running;
  expect(run.code, run.stderr).toBe(130);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  const lines = run.stderr.trim().split('\n');
  const next = lines.at(-1) ?? '';
  expect(next).toMatch(/^Continue it with: taskctl resume j-[0-9a-z]+$/);
  expect(run.stderr).not.toMatch(/re-run|reuse-window|same command/i);
  await world.admin('DELETE', '/__sandbox/faults');
  const command = next.replace(/^Continue it with: /, '').split(' ');
  expect(command[0]).toBe('taskctl');
  // The held POST lands 700 ms after it was sent; once it has, the resume's check of the task list (13 s to its
  // horizon in real time) runs on the sandbox's clock, whose sleeps pass at once. journal-kill.test.ts has a task
  // landing during the check, in real time.
  await untilSandbox(world, 'tasks held', tasksHeld, 2);
  clock.virtual();
  const resumed = await world.inProcess(command.slice(1), { clock });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/chunk 2: task \d+ was created by the interrupted request/);
  await expectEachItemOnce(world);
}, 60_000);

it('kill -9 mid-POST: `jobs -o json` shows it interrupted; resume through a symlinked directory and a copy, each item once', async () => {
  world = await startWorld({ itemMs: 0, clock });
  const input = join(world.home.dir, 'in.txt');
  writeFileSync(input, `${ITEMS.join('\n')}\n`);
  const real = join(world.home.dir, 'real');
  mkdirSync(real);
  symlinkSync(real, join(world.home.dir, 'link'));
  const journal = join(real, 'job.jsonl');
  // The second POST is slow: the kill lands while it is in flight (its send record written, no task yet).
  await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'delay', delayMs: 0 });
  await world.admin('POST', '/__sandbox/faults', { method: 'POST', path: '/tasks', kind: 'delay', delayMs: 1500 });
  const run = startCreate(world, ['-f', input, '--chunk-size', '2', '--request-timeout', '3s', '--journal', journal]);
  // Killed once the sandbox has the second POST (its send record is written as it leaves: a kill right after that
  // could come before the bytes are out), then resumed once its task has landed (see the first test).
  await untilSandbox(world, 'POSTs received', postsReceived, 2);
  expect(sendsIn(journal)).toBe(2);
  run.child.kill('SIGKILL');
  expect((await run.closed).signal).toBe('SIGKILL');
  await untilSandbox(world, 'tasks held', tasksHeld, 2);
  const copy = join(world.home.dir, 'copy.jsonl');
  copyFileSync(journal, copy);
  clock.virtual();
  const listed = await world.inProcess(['jobs', '-o', 'json'], { clock });
  expect(listed.code, listed.stderr).toBe(0);
  const [job] = JSON.parse(listed.stdout) as Array<{ id: string; state: string; journal: string }>;
  expect(job).toMatchObject({ state: 'interrupted', journal });
  const viaLink = await world.inProcess(['resume', join(world.home.dir, 'link', 'job.jsonl'), '-q'], { clock });
  expect(viaLink.code, viaLink.stderr).toBe(0);
  expect(viaLink.stderr).not.toMatch(/still sending/);
  await expectEachItemOnce(world);
  const viaCopy = await world.inProcess(['resume', copy, '-q'], { clock });
  expect(viaCopy.code, viaCopy.stderr).toBe(0);
  await expectEachItemOnce(world);
  const after = JSON.parse((await world.inProcess(['jobs', '-o', 'json'], { clock })).stdout) as Array<{
    id: string;
    state: string;
  }>;
  expect(after).toEqual([expect.objectContaining({ id: job?.id, state: 'finished' })]);
  const none = await world.inProcess(['resume'], { clock });
  expect(none.code).toBe(0);
  expect(none.stderr).toMatch(/no interrupted job/);
}, 60_000);

/** A 64 KiB tmpfs, or undefined where mounting is not permitted. */
function smallDisk(dir: string): string | undefined {
  if (process.platform !== 'linux') return undefined;
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  return mounted.status === 0 ? dir : undefined;
}

it('a journal on a small full file system: exit 14, every task named; after room is made `resume` ends the job, each item once', async (context) => {
  world = await startWorld({ itemMs: 0, clock });
  const disk = smallDisk(join(world.home.dir, 'disk'));
  if (!disk) {
    context.skip();
    return;
  }
  try {
    // Two pages are left free below: one for the lock beside the journal (job.jsonl.lock), one for the journal. A long
    // input path makes the job record about 3.5 KB: it fits that page, and a later record (after the first chunk's
    // task, before the job's end) needs another page that the full file system lacks.
    let long = world.home.dir;
    for (let i = 0; i < 14; i++) long = join(long, `${'d'.repeat(199)}${i}`);
    mkdirSync(long, { recursive: true });
    const input = join(long, 'in.txt');
    writeFileSync(input, `${ITEMS.join('\n')}\n`);
    const journal = join(disk, 'job.jsonl');
    const spare = join(disk, 'spare');
    const filler = join(disk, 'filler');
    writeFileSync(spare, Buffer.alloc(8192));
    spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k', 'count=64'], { stdio: 'ignore' });
    rmSync(spare);
    // In this process: the subject is the journal's write failing on a real file system, not the process.
    clock.virtual();
    const run = await world.inProcess(['create', S, '-f', input, '--chunk-size', '2', '--journal', journal, '-q'], {
      clock,
    });
    expect(run.code, run.stderr).toBe(14);
    const { tasks } = await world.admin<{ tasks: Array<{ id: number }> }>('GET', '/__sandbox/state');
    expect(run.stdout.trim().split('\n').map(Number).sort()).toEqual(tasks.map((t) => t.id).sort());
    expect(run.stderr).toMatch(/cannot write the journal .*: the disk is full/);
    const id = /When there is room again: taskctl resume (j-[0-9a-z]+)/.exec(run.stderr)?.[1];
    expect(id).toBeDefined();
    rmSync(filler);
    const resumed = await world.inProcess(['resume', id ?? '', '-q'], { clock });
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(world);
  } finally {
    spawnSync('umount', [disk], { stdio: 'ignore' });
  }
}, 60_000);

it('a journal whose lock cannot be written beside it is refused (exit 2, nothing sent), never run unlocked', async (context) => {
  world = await startWorld({ itemMs: 0, clock });
  const disk = smallDisk(join(world.home.dir, 'disk'));
  if (!disk) {
    context.skip();
    return;
  }
  try {
    const journal = join(disk, 'job.jsonl');
    writeFileSync(journal, '');
    // No page left: the (empty) journal opens, the lock beside it cannot be written.
    spawnSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=4k', 'count=64'], { stdio: 'ignore' });
    clock.virtual();
    const run = await world.inProcess(['create', S, ...ITEMS, '--journal', journal, '-y'], { clock });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `cannot lock the journal ${journal} (${journal}.lock): the disk is full; nothing was sent`,
    );
    // A job that never started: the same command again, never a resume of it.
    expect(run.stderr).toMatch(/then run the same command again/);
    expect(run.stderr).not.toMatch(/ENOSPC|resume/);
    expect(await postsReceived(world)).toBe(0);
  } finally {
    spawnSync('umount', [disk], { stdio: 'ignore' });
  }
}, 60_000);
