/**
 * The jobs of this machine in the state directory (state-dir.ts; docs/behaviour.md#jobs):
 *   jobs/ID.jsonl   the journal of a job started without --journal (and its copies, ID.jsonl.input / .args, and
 *                   ID.jsonl.input-1, -2, … of its `-f` inputs that were not regular files)
 *   jobs/ID.ref     where the journal of a job started with --journal FILE is (its real path, one line)
 *   locks/ID.lock   held by the one run continuing job ID: a job is locked by its id, and its journal beside it
 *                   (ID.jsonl.lock, FILE.lock: store/journal-file.ts)
 * What a record means is core's (core/job/registry.ts); this module only finds, sizes and removes files.
 */
import { readdirSync, realpathSync, rmSync, statSync, existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { lockHolder, tryLock, type HeldLock, type LockOwner } from './lock-file.js';
import { readRegularFile, writeFileAtomicSync } from './atomic-file.js';
import { makeStateDirectory } from './state-dir.js';
import { systemErrorWords, UsageError } from '../errors.js';
import { shellWord } from '../lib/shell-word.js';

/** The files beside a journal that belong to it: the copies of stdin and of the arguments. */
const COPIES = ['.input', '.args'] as const;

/** The `n`th stream copy of the journal at `path` (from 1, in the order the job opened its `-f` streams). */
export function streamCopyPath(path: string, n: number): string {
  return `${path}.input-${n}`;
}

/**
 * The stream copies of the journal at `path` (`-f <(cmd)`, `-f FIFO`): `.input-1`, `.input-2`, … numbered from 1 in
 * the order the job opened them, so the first number with no file ends them (one stat for a job with none).
 */
function* streamCopies(path: string): Generator<{ path: string; size: number }> {
  for (let n = 1; ; n++) {
    const copy = streamCopyPath(path, n);
    let size: number | undefined;
    try {
      size = statSync(copy, { throwIfNoEntry: false })?.size;
    } catch {
      return; // not readable: counted as nothing, as the others
    }
    if (size === undefined) return;
    yield { path: copy, size };
  }
}
/** A job id as taskctl writes them: never all digits (a bare number is a task id). */
export const JOB_ID = /^j-[0-9a-z]{4,24}$/;

/** A copy beside a journal of the state directory, by name: `ID.jsonl.input`, `.args`, `.input-N`. */
const COPY_NAME = /^(.+)\.jsonl\.(?:input|args|input-[1-9][0-9]*)$/;

/** The copies of one job whose journal is gone (`JobStore.leftovers`). */
export interface LeftoverCopies {
  id: string;
  /** Where its journal was. */
  path: string;
  files: string[];
  /** The newest copy's last change, epoch ms. */
  mtimeMs: number;
  /** The copies' bytes. */
  size: number;
}

export interface StoredJob {
  id: string;
  /** The journal's absolute path. */
  path: string;
  /** In the state directory (taskctl's to prune), or a --journal FILE of the user's (never removed). */
  own: boolean;
  /** Last change of the journal, epoch ms. */
  mtimeMs: number;
  /** The journal's size in bytes (with its copies: `diskBytes`, asked only where shown, not on each create's glance). */
  size: number;
  /**
   * A `--journal FILE` that cannot be reached now (a disk not mounted, its directory renamed): why, in words. The job
   * is still listed, where its journal should be; it is never forgotten for it.
   */
  away?: string;
}

export class JobStore {
  /**
   * `elsewhere`: where job `id` was last run outside this state directory, when known (core/job/registry.ts: the cache
   * directory's record of it), for `find`.
   */
  constructor(
    readonly dir: string,
    private readonly elsewhere?: (id: string) => string | undefined,
  ) {}

  private get jobsDir(): string {
    return join(this.dir, 'jobs');
  }

  /** Makes the directories (0700); throws the fs error (an unwritable state directory). */
  prepare(): void {
    makeStateDirectory(this.jobsDir);
    makeStateDirectory(join(this.dir, 'locks'));
  }

  /** Where a job started without --journal keeps its journal. */
  journalPath(id: string): string {
    return join(this.jobsDir, `${id}.jsonl`);
  }

  lockPath(id: string): string {
    return join(this.dir, 'locks', `${id}.lock`);
  }

  /** Who runs job `id` now (a live holder of its lock, or of the lock beside its journal at `path`), if anyone. */
  runner(id: string, path?: string): LockOwner | undefined {
    return lockHolder(this.lockPath(id)) ?? (path === undefined ? undefined : lockHolder(`${path}.lock`));
  }

  /**
   * Removes a journal of the state directory and its copies under both of its locks, when `due(mtimeMs)` says so: asked
   * of a stat first, before any lock (a job not due, the usual case of `taskctl jobs`, costs no lock and no write), and
   * again under them: a run opening it now holds them (a `resume --adopt` of a finished job, a create reading its
   * input), or finds its file gone. False, and nothing removed, when a live run holds either lock (left for the next
   * time) or the journal is gone. A lock left by a killed run is taken over, and goes with the release.
   */
  removeLocked(job: Pick<StoredJob, 'id' | 'path'>, due: (mtimeMs: number) => boolean): boolean {
    const before = mtimeOf(job.path);
    if (before === undefined || !due(before)) return false;
    return this.underLocks(job, () => {
      const mtimeMs = mtimeOf(job.path);
      if (mtimeMs === undefined || !due(mtimeMs)) return false; // removed, or written, meanwhile
      this.remove({ ...job, own: true });
      return true;
    });
  }

  /**
   * The copies in the state directory whose journal is gone (a removal cut short, a journal deleted by hand), one entry
   * per job: nothing can use them. A create writes its copies only after its journal exists, under the job's locks.
   */
  leftovers(): LeftoverCopies[] {
    const names = jobNames(this.jobsDir);
    const journals = new Set(names.filter((name) => name.endsWith('.jsonl')));
    const byId = new Map<string, LeftoverCopies>();
    for (const name of names) {
      const id = COPY_NAME.exec(name)?.[1];
      if (id === undefined || !JOB_ID.test(id) || journals.has(`${id}.jsonl`)) continue;
      const path = join(this.jobsDir, name);
      let stat;
      try {
        stat = statSync(path);
      } catch {
        continue; // gone meanwhile
      }
      const entry = byId.get(id) ?? { id, path: this.journalPath(id), files: [], mtimeMs: 0, size: 0 };
      entry.files.push(path);
      entry.mtimeMs = Math.max(entry.mtimeMs, stat.mtimeMs);
      entry.size += stat.size;
      byId.set(id, entry);
    }
    return [...byId.values()];
  }

  /**
   * Removes `left` under the job's locks when `due(mtimeMs)` (its newest copy) says so and its journal is still gone:
   * false, and nothing removed, when a live run holds the job (the next time removes them).
   */
  removeLeftover(left: LeftoverCopies, due: (mtimeMs: number) => boolean): boolean {
    if (!due(left.mtimeMs)) return false;
    return this.underLocks(left, () => {
      if (existsSync(left.path)) return false; // a run recorded its journal meanwhile: the copies are its own
      for (const path of left.files) rmSync(path, { force: true });
      return true;
    });
  }

  /** Runs `act` holding both locks of `job` (its journal's, its id's); false when a live run holds either. */
  private underLocks(job: Pick<StoredJob, 'id' | 'path'>, act: () => boolean): boolean {
    this.prepare();
    const locks: HeldLock[] = [];
    try {
      for (const path of [`${job.path}.lock`, this.lockPath(job.id)]) {
        const lock = tryLock(path);
        if (!('release' in lock)) return false;
        locks.push(lock);
      }
      return act();
    } finally {
      for (const lock of locks.reverse()) lock.release();
    }
  }

  /**
   * Records where the journal of job `id` is, when it is not in the state directory (the file given is the one used).
   * Nothing when the state directory holds a journal of that id: that one is the job's (`locate`, `list`), and a copy
   * resumed by its path is still locked by the id, so nothing is sent twice.
   */
  register(id: string, path: string): void {
    if (path === this.journalPath(id) || existsSync(this.journalPath(id))) return;
    this.prepare();
    writeFileAtomicSync(join(this.jobsDir, `${id}.ref`), `${realPath(path)}\n`);
  }

  /** The journal of job `id`, if this machine knows it. */
  locate(id: string): string | undefined {
    if (!JOB_ID.test(id)) return undefined;
    const own = this.journalPath(id);
    if (existsSync(own)) return own;
    const target = this.refTarget(id);
    return target !== undefined && existsSync(target) ? target : undefined;
  }

  /**
   * The journal of job `id`: this state directory's (`locate`), else the file this user last ran it from under another
   * state directory that shares the cache directory, and so the ledger (a CI step's own TASKCTL_STATE_DIR). Only to
   * follow a takeover between jobs (core/submit/hand-over.ts): the job a command names is this state directory's.
   */
  find(id: string): string | undefined {
    return this.locate(id) ?? this.elsewhere?.(id);
  }

  /**
   * Every job this machine knows of: each journal of the state directory present, and each `--journal FILE` it has a
   * reference to, there or not (`away`): a file out of reach for a while (a disk not mounted, a share down) is no job
   * to forget, and forgetting it would let its printed `resume ID` fail and a re-run buy its items again.
   */
  list(): StoredJob[] {
    const jobs: StoredJob[] = [];
    for (const { id, path, own } of this.places()) {
      try {
        const stat = statSync(path);
        if (!stat.isFile()) continue;
        jobs.push({ id, path, own, mtimeMs: stat.mtimeMs, size: stat.size });
      } catch (error) {
        // A journal of the state directory gone meanwhile was removed (a prune): nothing left to list.
        if (!own) jobs.push({ id, path, own, mtimeMs: 0, size: 0, away: systemErrorWords(error) });
      }
    }
    return jobs;
  }

  /** Where the `--journal FILE` of job `id` is, as this state directory recorded it, whether or not it is there now. */
  referenced(id: string): string | undefined {
    return JOB_ID.test(id) ? this.refTarget(id) : undefined;
  }

  /** The file that records where job `id`'s `--journal FILE` is: removed, the job is forgotten. */
  referencePath(id: string): string {
    return join(this.jobsDir, `${id}.ref`);
  }

  /** Throws when the jobs directory cannot be read (`jobNames`): before saying a job is not there. */
  requireReadable(): void {
    jobNames(this.jobsDir);
  }

  /**
   * Every job this machine knows of, by where its journal should be: none asked whether it is there, nor its date or
   * size (`list` stats each). For a look that opens every journal anyway (core/submit/same-work.ts, on each create).
   */
  places(): Array<Pick<StoredJob, 'id' | 'path' | 'own'>> {
    const dir = this.jobsDir;
    const names = jobNames(dir);
    const places: Array<Pick<StoredJob, 'id' | 'path' | 'own'>> = [];
    // One row per id: a ref beside a journal of its own id (an older taskctl wrote one) is not a second job.
    const owned = new Set(
      names.filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length)),
    );
    for (const name of names) {
      const own = name.endsWith('.jsonl');
      if (!own && !name.endsWith('.ref')) continue;
      const id = name.slice(0, name.lastIndexOf('.'));
      if (!JOB_ID.test(id) || (!own && owned.has(id))) continue;
      const path = own ? `${dir}${sep}${name}` : this.refTarget(id);
      if (path !== undefined) places.push({ id, path, own });
    }
    return places;
  }

  /**
   * Removes a job by the holder of its locks (`removeLocked`, or the run that holds them): its journal and copies when
   * taskctl's own, and what the state directory knows of it. Never its locks: each goes when its holder releases it.
   */
  remove(job: Pick<StoredJob, 'id' | 'path' | 'own'>): void {
    if (job.own) {
      // The journal last: it is what makes its copies found, should the removal stop part-way.
      const streams = [...streamCopies(job.path)].map((copy) => copy.path);
      for (const path of [...COPIES.map((suffix) => job.path + suffix), ...streams, job.path]) {
        rmSync(path, { force: true });
      }
    }
    this.forget(job.id);
  }

  private forget(id: string): void {
    rmSync(this.referencePath(id), { force: true });
  }

  private refTarget(id: string): string | undefined {
    try {
      // Read as every state file is (no FIFO opened for real: it would block here, deaf to signals); any refusal or
      // failure is a job this machine does not know.
      const line = readRegularFile(join(this.jobsDir, `${id}.ref`), { what: 'job reference' })?.trim() ?? '';
      return line === '' ? undefined : line;
    } catch {
      return undefined;
    }
  }
}

/**
 * The names in the state directory's `jobs`: none before a first job made it. One that cannot be read (another
 * user's: `sudo taskctl` made it) is an error, never "no jobs": told its job is not there, a user would create the
 * items again and pay twice.
 */
function jobNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    const hint =
      code === 'EACCES' || code === 'EPERM'
        ? `taskctl records its jobs there: run it as the user who owns the directory (\`ls -ld ${shellWord(dir)}\` says who), or make it yours again.`
        : code === 'ENOTDIR'
          ? 'That path, or one above it, is a file where taskctl needs a directory: set TASKCTL_STATE_DIR to a directory of yours.'
          : `taskctl records its jobs there: see what is wrong with it (\`ls -ld ${shellWord(dir)}\`), then run the command again.`;
    throw new UsageError(`cannot read the jobs directory ${dir} (${systemErrorWords(error)})`, hint);
  }
}

/** The real path of a journal (symlinked directories resolved), or the path as given when it does not exist yet. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The last change of the file at `path`, epoch ms; undefined when it is gone or cannot be looked at. */
function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}

/** True when `path` names an existing file or directory (an argument that is both a path and a job id is the path). */
export function pathExists(path: string): boolean {
  return existsSync(path);
}

/** The journal of `job` and its copies, in bytes: a stat of each copy (most jobs have one of the two, or none). */
export function diskBytes(job: Pick<StoredJob, 'path' | 'size'>): number {
  let bytes = job.size;
  for (const suffix of COPIES) {
    try {
      // No throw for a copy that is not there (an error built per missing copy was most of the time of a listing).
      bytes += statSync(job.path + suffix, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      // Not readable: counted as nothing.
    }
  }
  for (const copy of streamCopies(job.path)) bytes += copy.size;
  return bytes;
}
