/**
 * Jobs by id (docs/behaviour.md#jobs): the id a new job gets, the id of a journal (written in its job record; a
 * journal of an earlier version gets one derived from its record, the same for every copy), the state directory's
 * store, and an argument that names a job (a journal path, or an id; a path that exists wins).
 */
import { createHash, randomBytes } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { Env } from '../../lib/env.js';
import { shellWord } from '../../lib/shell-word.js';
import { JOB_ID, JobStore, pathExists } from '../../store/job-files.js';
import { stateDirectory } from '../../store/state-dir.js';
import { cacheDirectory } from '../../store/cache-dir.js';
import { fileIdentity, lastJobPlace, sameFile } from '../../store/job-places.js';

/** Digits of the start time (ms, base 36): 8 hold every instant until 2059, so ids sort as their jobs started. */
const TIME_DIGITS = 8;

/** `j-mi3k2x1a7f3q`: the start time, then 4 random characters; time-sortable, never all digits. */
export function newJobId(nowMs: number): string {
  const random = [...randomBytes(4)].map((byte) => (byte % 36).toString(36)).join('');
  return `j-${timePart(nowMs)}${random}`;
}

/** The id of the job whose first record is `first` (undefined when it is no job record). */
export function jobIdOf(first: unknown): string | undefined {
  if (typeof first !== 'object' || first === null) return undefined;
  const record = first as { type?: unknown; id?: unknown; created_at?: unknown };
  if (record.type !== 'job') return undefined;
  if (typeof record.id === 'string' && JOB_ID.test(record.id)) return record.id;
  // Written before jobs had ids: derived from the record itself, so the journal and its copies are one job.
  const started = typeof record.created_at === 'string' ? Date.parse(record.created_at) : Number.NaN;
  const digest = createHash('sha256').update(JSON.stringify(first)).digest('hex').slice(0, 4);
  return `j-${timePart(Number.isFinite(started) ? started : 0)}${digest}`;
}

function timePart(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(36).padStart(TIME_DIGITS, '0').slice(-TIME_DIGITS);
}

export function jobStore(env: Env): JobStore {
  return new JobStore(stateDirectory(env), (id) => lastRunElsewhere(cacheDirectory(env), id));
}

/**
 * The journal this user last ran job `id` from (store/job-places.ts), while that file is still the one run there (its
 * device, inode and birth) and was not removed as its job ended: a job of another state directory sharing this cache
 * directory (`JobStore.find`).
 */
function lastRunElsewhere(cacheDir: string, id: string): string | undefined {
  const last = lastJobPlace(cacheDir, id);
  if (last === undefined || last.removed !== undefined) return undefined;
  return sameFile(fileIdentity(last.path), last) ? last.path : undefined;
}

/**
 * An argument shaped like a job id (`j-` then letters and digits: no path separator, no extension) is meant as one,
 * whether or not it is well formed: naming no file, it is a job this machine does not know, never a journal path.
 */
const ID_SHAPED = /^j-[0-9a-z]*$/i;

/**
 * A `--journal FILE` out of reach (store/job-files.ts `list`), what brings its job back, and how to forget it when the
 * file is gone for good (`reference`: the state directory's record of where it is).
 */
export function journalAway(path: string, why: string, reference: string): string {
  return `its journal ${path} is not there (${why}): put it back where it was (a disk to mount, a directory to rename back) to continue the job; if it is gone for good, removing ${shellWord(reference)} forgets the job`;
}

/** The journal an argument names: an existing path as given, else the journal of job ID on this machine. */
export function journalOf(env: Env, arg: string): string {
  // Resolved as a path, '' would be the current directory.
  if (arg === '')
    throw new UsageError(
      'an empty argument names no job',
      'Name a job by its id (`taskctl jobs` lists them) or its journal file; is a shell variable unset?',
    );
  if (pathExists(arg) || !namesJobId(arg)) return arg;
  const store = jobStore(env);
  const path = JOB_ID.test(arg) ? store.locate(arg) : undefined;
  if (path !== undefined) return path;
  const away = store.referenced(arg);
  if (away !== undefined) {
    const why = store.list().find((job) => job.id === arg)?.away ?? 'it cannot be read';
    throw new UsageError(`job ${arg}: ${journalAway(away, why, store.referencePath(arg))}`);
  }
  // A jobs directory that cannot be read says so, never that the job is not there.
  store.requireReadable();
  throw new UsageError(`no job ${arg} on this machine`, '`taskctl jobs --all` lists the jobs this machine knows.');
}

/** True for an argument that looks like a job id (`j-…`), whether or not the job exists. */
export function looksLikeJobId(arg: string): boolean {
  return JOB_ID.test(arg);
}

/** True for an argument meant as a job id (`j-zzz` too, which no job has): `diff` reads it as a job, not a file. */
export function namesJobId(arg: string): boolean {
  return ID_SHAPED.test(arg);
}

/** How long a finished job's journal stays in the state directory without `job-retention`: 30 days. */
export const DEFAULT_JOB_RETENTION_MS = 720 * 3_600_000;
