/**
 * Every create is a job: journaled in the state directory, named by an id on one stderr line, listed by `taskctl
 * jobs`, continued by `taskctl resume ID` (or `resume` alone), known and locked by its id whatever path reaches its
 * journal; a journal that cannot be written stops the job with exit 14 and every task named.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountKey } from '../../../../src/store/cache.js';
import { journalIo, journalLimits } from '../../../../src/store/journal-file.js';
import { JobStore } from '../../../../src/store/job-files.js';
import { pruneExpired } from '../../../../src/core/jobs.js';
import { CreateLedger, type LedgerEntry } from '../../../../src/store/ledger.js';
import { tryLock } from '../../../../src/store/lock-file.js';
import { whileFailingFs, writesFailUnder } from '../../store/failing-fs.js';
import { bootedAt, notRunningPid, OTHER_BOOT, OTHER_PIDNS } from '../../pids.js';
import { stoppedInChunk2Check, worldEachTest, type World } from '../sandbox-world.js';
import { T0 } from '../../../clock.js';
import { runTaskctl, type RunOptions } from '../run-in-process.js';

const S = 'domain_check_availability';
const ITEMS = ['a.com', 'b.com', 'c.com', 'd.com'];
let world: World;
let dir: string;
worldEachTest('taskctl-jobs-', (w, d) => ((world = w), (dir = d)));

const state = () => join(dir, 'state');
const run = (argv: string[], options: RunOptions = {}) =>
  runTaskctl(argv, { env: world.env, clock: world.clock, home: dir, ...options });
const jobId = (stderr: string) => /taskctl resume (j-[0-9a-z]+)/.exec(stderr)?.[1] ?? '';

/** Every item of the world's tasks, each with how many tasks hold it. */
const itemCounts = () => world.itemCounts();
async function expectEachItemOnce(items: readonly string[]): Promise<void> {
  const counts = await itemCounts();
  expect([...counts.keys()].sort()).toEqual([...items].sort());
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}

/** A chunked create stopped by Ctrl-C while its second chunk's fate is checked: the job it printed. */
async function interruptedCreate(items = ITEMS): Promise<{ id: string; stderr: string; stdout: string }> {
  const result = await stoppedInChunk2Check(world, (stop) =>
    run(['create', S, ...items, '--chunk-size', '1', '-q'], stop),
  );
  expect(result.code, result.stderr).toBe(130);
  return { id: jobId(result.stderr), stderr: result.stderr, stdout: result.stdout };
}

describe('every create is a job', () => {
  it('a plain create keeps its journal in the state directory (0700, 0600) and names its id even with -q', async () => {
    const result = await run(['create', S, 'a.com', '-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+\n$/);
    const id = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(result.stderr)?.[1];
    expect(id).toBeDefined();
    expect(id).not.toMatch(/^\d+$/);
    const journal = join(state(), 'jobs', `${id}.jsonl`);
    expect(existsSync(journal)).toBe(true);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    expect(statSync(join(state(), 'jobs')).mode & 0o777).toBe(0o700);
    const listed = await run(['jobs', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id,
        service: S,
        items: 1,
        chunks: 1,
        chunks_created: 1,
        in_doubt: 0,
        state: 'finished',
      }),
    ]);
    expect((await run(['jobs', '-q'])).stdout).toBe(`${id}\n`);
  });

  it('ids sort as their jobs started', async () => {
    const first = await run(['create', S, 'a.com', '-q']);
    world.clock.advance(1);
    const second = await run(['create', S, 'b.com', '-q']);
    const ids = [first, second].map((r) => /^job (j-[0-9a-z]+)/m.exec(r.stderr)?.[1] ?? '');
    expect([...ids].sort()).toEqual(ids);
    expect((await run(['jobs', '-q'])).stdout).toBe(`${ids[1]}\n${ids[0]}\n`);
  });

  it('a declined or refused create leaves no job: nothing of it was sent', async () => {
    const refused = await run(['create', S, ...ITEMS, '--max-cost', '1']);
    expect(refused.code).toBe(6);
    expect(readdirSync(join(state(), 'jobs'))).toEqual([]);
    const resume = await run(['resume']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stderr).toMatch(/no interrupted job to resume/);
  });

  it('an empty argument is refused as without a journal (exit 3), nothing sent and no job left', async () => {
    const result = await run(['create', S, 'a.com', '']);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/argument 2 is empty/);
    expect(await world.tasks()).toEqual([]);
    expect(readdirSync(join(state(), 'jobs'))).toEqual([]);
  });

  it('a dry run and a --sandbox run keep no journal', async () => {
    expect((await run(['create', S, 'a.com', '--dry-run'])).code).toBe(0);
    expect(existsSync(join(state(), 'jobs'))).toBe(false);
  });

  it('show --job, wait --job and diff take the job id', async () => {
    // A finished job, made the short way (not interrupted and resumed: the readers are the subject).
    const created = await run(['create', S, ...ITEMS, '--chunk-size', '1', '-q']);
    expect(created.code, created.stderr).toBe(0);
    const id = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(created.stderr)?.[1] ?? '';
    expect(id).not.toBe('');
    const shown = await run(['show', '--job', id, '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    const waited = await run(['wait', '--job', id, '-q']);
    expect(waited.code, waited.stderr).toBe(0);
    const diff = await run(['diff', id, id]);
    expect(diff.code, diff.stderr).toBe(0);
    const unknown = await run(['show', '--job', 'j-00000000zzzz']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no job j-00000000zzzz on this machine/);
  });
});

describe('an interrupted create', () => {
  it('Ctrl-C names only `taskctl resume ID`; that command, verbatim, puts every item in exactly one task', async () => {
    const { id, stderr } = await interruptedCreate();
    expect(stderr).toMatch(/\nContinue it with: taskctl resume j-[0-9a-z]+\n$/);
    expect(stderr).not.toMatch(/re-run|reuse-window|the same command/i);
    const listed = JSON.parse((await run(['jobs', '-o', 'json'])).stdout) as Array<{ id: string; state: string }>;
    expect(listed).toEqual([expect.objectContaining({ id, state: 'interrupted', chunks_created: 1 })]);
    const resumed = await run(['resume', id, '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
    expect(JSON.parse((await run(['jobs', '-o', 'json'])).stdout)).toEqual([
      expect.objectContaining({ id, state: 'finished', chunks_created: 4 }),
    ]);
  });

  it('`resume` alone continues the only interrupted job, then says there is none', async () => {
    await interruptedCreate();
    const resumed = await run(['resume', '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
    const again = await run(['resume']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/no interrupted job to resume/);
  });

  it('`resume` alone with several interrupted jobs lists them (exit 2) and sends nothing', async () => {
    const one = await interruptedCreate(['a.com', 'b.com']);
    const two = await interruptedCreate(['c.com', 'd.com']);
    const posts = await world.posts();
    const result = await run(['resume']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(one.id);
    expect(result.stderr).toContain(two.id);
    expect(result.stderr).toMatch(/taskctl resume ID/);
    expect(await world.posts()).toBe(posts);
  });
});

describe('a job is known by its id, not by the path as typed', () => {
  it('its journal reached through a symlinked directory or copied elsewhere is the same job; they exclude each other', async () => {
    const journal = join(dir, 'real', 'job.jsonl');
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const stopped = await stoppedInChunk2Check(world, (stop) =>
      run(['create', S, ...ITEMS, '--chunk-size', '1', '--journal', journal, '-q'], stop),
    );
    expect(stopped.code).toBe(130);
    const id = jobId(stopped.stderr);
    const copy = join(dir, 'copy.jsonl');
    cpSync(journal, copy);
    // A live run of the job holds its lock: the copy is refused, whichever path names it.
    const lock = join(state(), 'locks', `${id}.lock`);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), at: T0, token: 'held' }));
    for (const path of [copy, join(dir, 'link', 'job.jsonl')]) {
      const refused = await run(['resume', path]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/in use by another taskctl/);
      expect(refused.stderr).toMatch(/Wait for that run to end: its lock goes with it/);
      expect(refused.stderr).not.toMatch(/if none is running/);
    }
    rmSync(lock);
    if (process.platform === 'linux') {
      // Held by a run in another container sharing the directory (same host and boot, another pid namespace): its pid
      // means nothing here, even one that no process of ours has, so the job is not taken from it.
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const owner = { pid: notRunningPid(), host: hostname(), at: T0, token: 'held', boot, pidns: 'pid:[1]' };
      writeFileSync(lock, JSON.stringify(owner));
      const posts = await world.posts();
      const refused = await run(['resume', copy]);
      expect(refused.code).toBe(2);
      // The holder is said as it is, not as a process of this host.
      expect(refused.stderr).toContain(
        `in use by another taskctl (process ${owner.pid} in another container of this machine (pid namespace pid:[1]))`,
      );
      expect(refused.stderr).toMatch(
        `A lock taken in another container of this machine (pid namespace pid:[1]) cannot be checked from here: only if process ${owner.pid} there is no taskctl, delete ${lock}.`,
      );
      expect(await world.posts()).toBe(posts);
      rmSync(lock);
    }
    const resumed = await run(['resume', join(dir, 'link', 'job.jsonl'), '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
    // The copy is the same job: it adopts what the other file's run created (nothing is sent again).
    const posts = await world.posts();
    const fromCopy = await run(['resume', copy, '-q']);
    expect(fromCopy.code, fromCopy.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
    expect(await world.posts()).toBeLessThanOrEqual(posts + 0);
  });
});

describe('one row per job id', () => {
  it('a copy of a state-directory journal resumed by its path adds no second row to `jobs` or TAB', async () => {
    const { id } = await interruptedCreate();
    const own = join(state(), 'jobs', `${id}.jsonl`);
    const copy = join(dir, 'copy.jsonl');
    cpSync(own, copy);
    expect((await run(['resume', id, '-q'])).code).toBe(0);
    const posts = await world.posts();
    const fromCopy = await run(['resume', copy, '-q']);
    expect(fromCopy.code, fromCopy.stderr).toBe(0);
    expect(await world.posts()).toBe(posts);
    // The state directory's own journal is the job's: no ref to the copy beside it.
    expect(existsSync(join(state(), 'jobs', `${id}.ref`))).toBe(false);
    // One row and one completion, for the state directory's own journal.
    const expectOneRow = async () => {
      const rows = JSON.parse((await run(['jobs', '--all', '-o', 'json'])).stdout) as Array<{
        id: string;
        journal: string;
      }>;
      expect(rows.map((row) => [row.id, row.journal])).toEqual([[id, own]]);
      expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\t${S} finished\n`);
    };
    await expectOneRow();
    // A ref left beside its own journal (by an older taskctl) is not a second row either.
    writeFileSync(join(state(), 'jobs', `${id}.ref`), `${copy}\n`);
    await expectOneRow();
  });
});

describe('a journal in jobs/ named for another id', () => {
  it('is listed as unreadable, saying whose job it holds, never silently left out', async () => {
    const created = await run(['create', S, 'a.com', '-q']);
    const id = /^job (j-[0-9a-z]+)/m.exec(created.stderr)?.[1] ?? '';
    const misnamed = join(state(), 'jobs', 'j-zzzzzzzz.jsonl');
    cpSync(join(state(), 'jobs', `${id}.jsonl`), misnamed);
    const listed = await run(['jobs', '--all', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ id: string; state: string; journal: string; reason?: string }>;
    expect(rows.map((row) => [row.id, row.state]).sort()).toEqual([
      [id, 'finished'],
      ['j-zzzzzzzz', 'unreadable'],
    ]);
    expect(rows.find((row) => row.id === 'j-zzzzzzzz')?.reason).toContain(`holds job ${id}`);
    const offered = (await run(['__complete', 'jobs'])).stdout.split('\n').sort();
    expect(offered).toContain('j-zzzzzzzz\tunreadable');
  });
});

/** A create of ITEMS in one-item chunks whose journal write fails with `code` at chunk 2's send record (its 4th). */
async function createFailingAtChunk2(code: string) {
  const write = journalIo.write;
  let calls = 0;
  // The job record, then chunk 1's send and created; chunk 2's send record fails.
  journalIo.write = (fd, bytes, offset) => {
    if (++calls === 4) throw Object.assign(new Error(`${code}: failed, write`), { code });
    return write(fd, bytes, offset);
  };
  try {
    return await run(['create', S, ...ITEMS, '--chunk-size', '1', '-q']);
  } finally {
    journalIo.write = write;
  }
}

describe('a journal that cannot be written', () => {
  it('stops the job before the next POST with exit 14, every task named, and `resume` ends it when there is room', async () => {
    const result = await createFailingAtChunk2('ENOSPC');
    const tasks = await world.tasks();
    expect(result.code, result.stderr).toBe(14);
    expect(tasks).toHaveLength(1);
    expect(result.stdout).toBe(`${tasks[0]?.id}\n`);
    expect(result.stderr).toMatch(/cannot write the journal .*: the disk is full/);
    expect(result.stderr).not.toMatch(/ENOSPC|bug/);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 4 tasks before that: ${tasks[0]?.id}`));
    expect(result.stderr).toMatch(/When there is room again: taskctl resume j-[0-9a-z]+\n$/);
    const resumed = await run(['resume', jobId(result.stderr), '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
  });

  it('refused by a permission (an immutable file) mid-job: the next step names the permission, not room', async () => {
    const result = await createFailingAtChunk2('EPERM');
    expect(result.code, result.stderr).toBe(14);
    expect(result.stderr).not.toMatch(/room/);
    expect(result.stderr).toMatch(
      /\nOnce this user may write the journal again \(its permissions, its attributes\): taskctl resume j-[0-9a-z]+\n$/,
    );
  });

  it("a full disk at a new job's lock: warned once, the create goes on without a journal (as for an unwritable state dir)", async () => {
    const full = () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC' });
    };
    const lock = journalIo.lock;
    journalIo.lock = full;
    let result;
    let explicit;
    try {
      result = await run(['create', S, 'a.com', '-q']);
      // A --journal FILE of the user's: exit 2, with advice true for a job that never started.
      explicit = await run(['create', S, 'b.com', '--journal', join(dir, 'j.jsonl'), '-q']);
    } finally {
      journalIo.lock = lock;
    }
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+\n$/);
    expect(result.stderr).toMatch(
      /^warning: cannot keep a journal in \S+ \(the disk is full\): this create cannot be resumed/,
    );
    expect(result.stderr).not.toMatch(/resume it as|taskctl resume/);
    expect(readdirSync(join(state(), 'jobs'))).toEqual([]);
    expect(explicit.code).toBe(2);
    expect(explicit.stderr).toMatch(/the disk is full; nothing was sent/);
    expect(explicit.stderr).toMatch(/run the same command again/);
    expect(explicit.stderr).not.toMatch(/resume/);
    expect(await world.tasks()).toHaveLength(1);
  });

  it.each([
    ['that already holds jobs/', true],
    ['with no jobs/ yet', false],
  ])(
    'a read-only state directory %s: warned once, the create goes on without a journal (docs/behaviour.md#jobs)',
    async (_, holdsJobs) => {
      if (holdsJobs) for (const sub of ['jobs', 'locks']) mkdirSync(join(state(), sub), { recursive: true });
      const result = await whileFailingFs(writesFailUnder(state(), 'EROFS'), () => run(['create', S, 'a.com', '-q']));
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^\d+\n$/);
      expect(result.stderr).toMatch(
        /^warning: cannot keep a journal in \S+ \((\S+ cannot be made: )?the file system is read-only\): this create cannot be resumed/,
      );
      expect(result.stderr).not.toMatch(/taskctl resume|EROFS/);
      expect(await world.tasks()).toHaveLength(1);
    },
  );

  it('a task whose record cannot be written is still printed and named', async () => {
    const write = journalIo.write;
    let calls = 0;
    journalIo.write = (fd, bytes, offset) => {
      calls++;
      if (calls === 3) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
      return write(fd, bytes, offset);
    };
    let result;
    try {
      result = await run(['create', S, ...ITEMS, '--chunk-size', '2', '-q']);
    } finally {
      journalIo.write = write;
    }
    const [task] = await world.tasks();
    expect(result.code, result.stderr).toBe(14);
    expect(result.stdout).toBe(`${task?.id}\n`);
    expect(result.stderr).toMatch(new RegExp(`created 1 of 2 tasks before that: ${task?.id}`));
    const resumed = await run(['resume', jobId(result.stderr), '-q']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await expectEachItemOnce(ITEMS);
  });

  it('--journal in a directory that does not exist is exit 2 before any request, naming the path', async () => {
    const path = join(dir, 'missing', 'job.jsonl');
    const result = await run(['create', S, 'a.com', '--journal', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot write the journal ${path}: its directory does not exist`);
    expect(result.stderr).not.toMatch(/ENOENT|\.lock/);
    expect(await world.posts()).toBe(0);
  });
});

describe('a journal that is not a regular file', () => {
  // Opening a FIFO for writing blocks until someone reads it: the journal is opened so that it never can.
  it.each([
    ['a FIFO', 'FIFO (named pipe)', (path: string) => execFileSync('mkfifo', [path])],
    ['a directory', 'directory', (path: string) => mkdirSync(path)],
  ])('%s: --journal and resume are exit 2 at once, naming it, before any request', async (_, kind, make) => {
    const path = join(dir, 'journal');
    make(path);
    for (const argv of [
      ['create', S, 'a.com', '--journal', path],
      ['resume', path],
    ]) {
      const result = await run(argv);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${path} is a ${kind}, not a regular file`);
      expect(result.stderr).not.toMatch(/ENXIO|EISDIR|\.lock/);
    }
    expect(await world.posts()).toBe(0);
  });
});

describe("a journal's copy of its input that is a FIFO", () => {
  it.each([
    ['stdin', '.input', { stdin: 'a.com\n' }, [] as string[]],
    ['arguments', '.args', {}, ['a.com']],
  ])('(%s) is exit 2 at once, before any request, not a wait for a reader', async (_, suffix, options, items) => {
    const path = join(dir, 'job.jsonl');
    execFileSync('mkfifo', [`${path}${suffix}`]);
    const result = await run(['create', S, ...items, '--journal', path], options);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${path}${suffix}`);
    expect(result.stderr).toContain('not a regular file');
    expect(await world.posts()).toBe(0);
  });
});

describe('retention', () => {
  it('--prune removes finished jobs of the state directory, never an interrupted one or a --journal FILE', async () => {
    const finished = await run(['create', S, 'a.com', '-q']);
    const own = /^job (j-[0-9a-z]+)/m.exec(finished.stderr)?.[1] ?? '';
    const mine = join(dir, 'mine.jsonl');
    expect((await run(['create', S, 'b.com', '--journal', mine, '-q'])).code).toBe(0);
    const { id: interrupted } = await interruptedCreate(['c.com', 'd.com']);
    const pruned = await run(['jobs', '--prune', '-q']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).not.toContain(own);
    expect(pruned.stdout).toContain(interrupted);
    expect(existsSync(join(state(), 'jobs', `${own}.jsonl`))).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });

  it('a stop signal before --prune removes anything removes nothing: exit 130, and it says so', async () => {
    const finished = await run(['create', S, 'a.com', '-q']);
    const id = /^job (j-[0-9a-z]+)/m.exec(finished.stderr)?.[1] ?? '';
    const controller = new AbortController();
    controller.abort(); // as a Ctrl-C heard while the journals were being read
    const pruned = await run(['jobs', '--prune'], { signal: controller.signal });
    expect(pruned.code, pruned.stderr).toBe(130);
    expect(pruned.stderr).not.toMatch(/removed \d/);
    expect(pruned.stderr).toMatch(/Nothing was removed/);
    expect(existsSync(join(state(), 'jobs', `${id}.jsonl`))).toBe(true);
  });

  it("a finished job whose lock a run holds stays, through --prune and a create's retention; released, it goes", async () => {
    const created = await run(['create', S, 'a.com', '-q']);
    const id = /^job (j-[0-9a-z]+)/m.exec(created.stderr)?.[1] ?? '';
    const store = new JobStore(state());
    const journal = store.journalPath(id);
    const expired = () => {
      const old = (world.clock.now() - 31 * 24 * 3600_000) / 1000;
      utimesSync(journal, old, old);
    };
    // Each of its locks, as a `resume ID --adopt` of it holds them (by its id, and beside its journal).
    for (const lockPath of [store.lockPath(id), `${journal}.lock`]) {
      const lock = tryLock(lockPath);
      if (!('release' in lock)) throw new Error(`${lockPath} not taken`);
      const pruned = await run(['jobs', '--prune', '-q']);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stdout).toContain(id);
      expired();
      expect((await run(['create', S, 'b.com', '-q'])).code).toBe(0);
      expect(existsSync(journal)).toBe(true);
      expect(existsSync(lockPath)).toBe(true); // still the run's
      lock.release();
    }
    expired();
    expect((await run(['create', S, 'c.com', '-q'])).code).toBe(0);
    expect(existsSync(journal)).toBe(false);
    // The lock beside a finished journal left by a run that was killed goes with it.
    const other = /^job (j-[0-9a-z]+)/m.exec((await run(['create', S, 'd.com', '-q'])).stderr)?.[1] ?? '';
    const left = `${store.journalPath(other)}.lock`;
    writeFileSync(left, JSON.stringify({ pid: notRunningPid(), host: hostname(), at: T0, token: 'killed' }));
    expect((await run(['jobs', '--prune'])).stderr).toMatch(/removed 3 finished jobs/);
    expect(readdirSync(join(state(), 'jobs'))).toEqual([]);
    expect(readdirSync(join(state(), 'locks'))).toEqual([]);
  });

  it('finished jobs younger than the retention cost `jobs` no lock and no write; one past it still goes', async () => {
    const created = await run(['create', S, 'a.com', '-q']);
    const id = /^job (j-[0-9a-z]+)/m.exec(created.stderr)?.[1] ?? '';
    const store = new JobStore(state());
    const text = readFileSync(store.journalPath(id), 'utf8');
    const young = Array.from({ length: 30 }, (_, n) => `j-young${n}`);
    for (const other of young) writeFileSync(store.journalPath(other), text.replaceAll(id, other));
    // A lock taken or a file written in jobs/ or locks/ would change the directory's time.
    const dirs = [join(state(), 'jobs'), join(state(), 'locks')];
    for (const path of dirs) utimesSync(path, 1_000_000, 1_000_000);
    const listed = await run(['jobs', '-q']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').filter(Boolean)).toHaveLength(young.length + 1);
    for (const path of dirs) expect(statSync(path).mtimeMs).toBe(1_000_000_000);
    const old = (world.clock.now() - 31 * 24 * 3600_000) / 1000;
    utimesSync(store.journalPath(id), old, old);
    expect((await run(['jobs', '-q'])).stdout).not.toContain(id);
    expect(existsSync(store.journalPath(id))).toBe(false);
    expect(readdirSync(join(state(), 'jobs'))).toHaveLength(young.length);
    expect(readdirSync(join(state(), 'locks'))).toEqual([]);
  });

  it("a create's clean-up removes copies whose journal is gone past the retention, never those a live run holds", async () => {
    const store = new JobStore(state());
    store.prepare();
    const copies = (id: string) => [`${store.journalPath(id)}.input`, `${store.journalPath(id)}.input-1`];
    const leave = (id: string, ageMs: number) => {
      const at = (world.clock.now() - ageMs) / 1000;
      for (const path of copies(id)) {
        writeFileSync(path, 'x'.repeat(100));
        utimesSync(path, at, at);
      }
    };
    const month = 31 * 24 * 3600_000;
    leave('j-oldcopies', month);
    leave('j-newcopies', 3600_000);
    leave('j-livecopies', month);
    leave('j-deadcopies', month);
    // A run that holds its job (a create about to record its journal), and the lock a killed one left behind.
    const live = tryLock(store.lockPath('j-livecopies'));
    if (!('release' in live)) throw new Error('lock not taken');
    writeFileSync(
      store.lockPath('j-deadcopies'),
      JSON.stringify({ pid: notRunningPid(), host: hostname(), at: T0, token: 'killed' }),
    );
    try {
      const created = await run(['create', S, 'a.com', '-q']);
      expect(created.code, created.stderr).toBe(0);
      for (const path of [...copies('j-oldcopies'), ...copies('j-deadcopies')]) expect(existsSync(path)).toBe(false);
      for (const path of [...copies('j-newcopies'), ...copies('j-livecopies')]) expect(existsSync(path)).toBe(true);
      expect(existsSync(store.lockPath('j-deadcopies'))).toBe(false);
    } finally {
      live.release();
    }
  });

  it('job-retention is a setting with a documented default', async () => {
    const listed = await run(['config', 'list', '-o', 'json']);
    expect(listed.stdout).toMatch(/job-retention/);
    expect((await run(['config', 'set', 'job-retention', '48h'])).code).toBe(0);
    expect((await run(['config', 'set', 'job-retention', 'soon'])).code).toBe(2);
  });
});

describe('completion', () => {
  it('`__complete jobs` offers this machine’s job ids with their service and state, from the state directory', async () => {
    const created = await run(['create', S, 'a.com', '-q']);
    const id = /^job (j-[0-9a-z]+)/m.exec(created.stderr)?.[1] ?? '';
    const posts = await world.posts();
    const offered = await run(['__complete', 'jobs']);
    expect(offered.code, offered.stderr).toBe(0);
    expect(offered.stdout).toBe(`${id}\t${S} finished\n`);
    expect(await world.posts()).toBe(posts);
  });

  it('a TAB reads a journal’s first record and its tail, never its middle (bounded whatever its size)', async () => {
    const { id } = await interruptedCreate();
    expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\t${S} interrupted\n`);
    // A second job record in the middle and a `done` at the end: a full read refuses the journal, the glance sees only
    // the job record and the `done`.
    const path = join(state(), 'jobs', `${id}.jsonl`);
    const [job = '', ...rest] = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const done = JSON.stringify({ type: 'done', tasks: 4, items: 4, cost: 4 });
    writeFileSync(path, [job, rest[0], job, ...rest.slice(1), done, ''].join('\n'));
    expect(JSON.parse((await run(['jobs', '-o', 'json'])).stdout)).toEqual([
      expect.objectContaining({ id, state: 'unreadable' }),
    ]);
    expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\t${S} finished\n`);
  });
});

describe('another run of this machine', () => {
  it('a ledger entry of a job whose lock is free is a run that has stopped, never one "still sending"', async () => {
    // An entry of job j-00000000abcd for the same items, left by a run that died (its pid is alive: this process).
    new CreateLedger(join(dir, 'cache'), () => world.clock.now(), 'killed-run').begin({
      account: accountKey(world.sandbox.url, world.sandbox.apiKey),
      service: S,
      items: ['a.com'],
      liveForMs: 600_000,
      job: { journal: 'j-00000000abcd', chunk: 1 },
      sentAt: world.clock.now(),
    });
    await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
    const result = await run(['create', S, 'a.com', '-q']);
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(
      /a taskctl run on this machine that has stopped \(process \d+, sent [^)]*\) may have created it \(taskctl resume j-00000000abcd settles it\)/,
    );
    expect(result.stderr).not.toMatch(/still sending/);
  });

  /** An entry for the same items of a run that is not a job's, with its process's identity replaced by `owner`. */
  const foreignEntry = (owner: Partial<LedgerEntry>) => {
    const ledger = new CreateLedger(join(dir, 'cache'), () => world.clock.now(), 'other-run');
    const entry = ledger.begin({
      account: accountKey(world.sandbox.url, world.sandbox.apiKey),
      service: S,
      items: ['a.com'],
      liveForMs: 600_000,
    });
    const file = join(dir, 'cache', 'creates.json');
    writeFileSync(file, JSON.stringify({ version: 1, entries: [{ ...entry, ...owner }] }));
  };

  it.runIf(process.platform === 'linux')(
    'a run whose pid runs here but whose boot is another (written before this boot) has stopped',
    async () => {
      foreignEntry({ pid: process.ppid, boot: OTHER_BOOT, ownedAt: bootedAt() - 60_000 });
      await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
      const result = await run(['create', S, 'a.com', '-q']);
      expect(result.code, result.stderr).toBe(9);
      expect(result.stderr).toContain(`a taskctl run on this machine that has stopped (process ${process.ppid}, sent`);
    },
  );

  it.runIf(process.platform === 'linux')(
    'a run of this host name in another pid namespace (a container) is not judged by its pid here: still sending',
    async () => {
      const dead = notRunningPid();
      foreignEntry({ pid: dead, pidns: OTHER_PIDNS });
      await world.fault({ method: 'POST', path: '/tasks', kind: 'reset-after' });
      const result = await run(['create', S, 'a.com', '-q']);
      expect(result.code, result.stderr).toBe(9);
      expect(result.stderr).toContain(
        `another taskctl run in another container of this machine (pid namespace pid:[1]) (process ${dead}, sent`,
      );
      expect(result.stderr).toContain(') still sending');
    },
  );
});

describe('a journal too large to read, or damaged (docs/behaviour.md#records)', () => {
  /** Runs `body` with what is read of a journal lowered to `maxBytes` (a job's journal of a few KB is then "large"). */
  async function withReadBound(maxBytes: number, body: () => Promise<void>): Promise<void> {
    const saved = journalLimits.maxBytes;
    journalLimits.maxBytes = maxBytes;
    try {
      await body();
    } finally {
      journalLimits.maxBytes = saved;
    }
  }

  it('create refuses a job whose journal could outgrow what is read back: exit 2, nothing sent, the chunk size to use', async () => {
    await withReadBound(3 * 4096, async () => {
      const result = await run(['create', S, ...ITEMS, '--chunk-size', '1']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/4 chunks are more than the 2 a job can journal; nothing was sent/);
      expect(result.stderr).toMatch(/Pass --chunk-size 2 or more/);
      expect(await world.posts()).toBe(0);
      expect(readdirSync(join(state(), 'jobs'))).toEqual([]);
      expect((await run(['create', S, ...ITEMS, '--chunk-size', '2', '-q'])).code).toBe(0);
    });
  });

  it('past the read bound: listed as unreadable with its reason, never "writes it anew", and the job is kept', async () => {
    const { id } = await interruptedCreate();
    const posts = await world.posts();
    await withReadBound(100, async () => {
      const listed = await run(['jobs', '-o', 'json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, state: 'unreadable' })]);
      expect(listed.stderr).toMatch(
        new RegExp(`job ${id}: the journal .* bytes, more than the 100 taskctl reads. Keep it`),
      );
      expect(listed.stderr).toMatch(/1 job on this machine/);
      const table = await run(['jobs']);
      expect(table.stdout).toMatch(new RegExp(`${id}.*unreadable`));
      // The glance of a TAB refuses it by the same bound.
      expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\tunreadable\n`);
      const bare = await run(['resume']);
      expect(bare.code).toBe(2);
      expect(bare.stderr).toMatch(new RegExp(`${id} \\(its journal .* cannot be read\\)`));
      const shown = await run(['show', '--job', id]);
      expect(shown.code).toBe(2);
      expect(shown.stderr).toMatch(/Keep it: it is the record of what the job sent/);
      for (const said of [listed.stderr, bare.stderr, shown.stderr]) expect(said).not.toMatch(/anew|Move it away/);
      expect(await world.posts()).toBe(posts);
    });
    expect((await run(['resume', id, '-q'])).code).toBe(0);
    await expectEachItemOnce(ITEMS);
  });

  it('a job record damaged in place: a row of state unreadable, never dropped from the list', async () => {
    const { id } = await interruptedCreate();
    const path = join(state(), 'jobs', `${id}.jsonl`);
    writeFileSync(path, `xx${readFileSync(path, 'utf8')}`);
    const listed = await run(['jobs', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, state: 'unreadable', journal: path })]);
    // What its journal would have said is not known: null, never an empty string or a zero that reads as a fact.
    const unknown = { service: null, items: null, chunks: null, chunks_created: null, in_doubt: null, base_url: null };
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining(unknown)]);
    expect(JSON.parse(listed.stdout)[0].started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(listed.stderr).toMatch(new RegExp(`job ${id}: .*job record \\(line 1\\)`));
    expect((await run(['__complete', 'jobs'])).stdout).toBe(`${id}\tunreadable\n`);
  });
});

describe('a jobs directory that cannot be read', () => {
  const unreadable = () => {
    mkdirSync(state(), { recursive: true });
    writeFileSync(join(state(), 'jobs'), ''); // not a directory: as unreadable as another user's (tests may run as root)
  };

  it('a create refuses before it sends anything, naming it (its look for the same work reads every job)', async () => {
    unreadable();
    const created = await run(['create', 'domain_check_availability', 'a.com', '--journal', join(dir, 'job.jsonl')]);
    expect(created.code).toBe(2);
    expect(created.stderr).toContain(`cannot read the jobs directory ${join(state(), 'jobs')}`);
    expect(await itemCounts()).toEqual(new Map());
  });

  it('the housekeeping after a create that ran never fails it: `taskctl jobs` says it', async () => {
    unreadable();
    const ctx = { env: world.env, clock: world.clock, settings: () => Promise.resolve({}) };
    await expect(pruneExpired(ctx as never, new JobStore(state()))).resolves.toBeUndefined();
  });
});
