/**
 * `taskctl jobs`: this machine's jobs (every create that may send is one; docs/behaviour.md#jobs), newest first, from
 * their journals: the state directory's, and those of `--journal FILE` it was told of. Finished jobs' journals in the
 * state directory are removed after the `job-retention` setting (or now, `--prune`); a user's `--journal FILE` and an
 * unfinished job are never removed.
 */
import type { Output, Process, Runtime, Service, Store } from './capabilities.js';
import { LONGEST_DURATION_MS, parsePositiveDuration } from '../lib/duration.js';
import { formatBytes } from '../output/bytes.js';
import { isoSeconds } from '../output/times.js';
import { pickColumns } from '../output/columns.js';
import type { Column } from '../output/printer.js';
import { diskBytes, type JobStore, type LeftoverCopies, type StoredJob } from '../store/job-files.js';
import { glanceJournal, journalHolds, readJournalRecords } from '../store/journal-file.js';
import { CliError, InterruptedError } from '../errors.js';
import { NotRegularFileError } from '../store/atomic-file.js';
import { DEFAULT_JOB_RETENTION_MS, jobIdOf, jobStore, journalAway } from './job/registry.js';
import {
  isDoneRecord,
  isRefusedRecord,
  jobRecord,
  JobFold,
  lostChunks,
  lostInDone,
  lostWords,
  supersededIn,
  type JobState,
} from './submit/journal-records.js';
import { idsOnly } from './quiet.js';
import { accountsOf, readAliases } from '../store/account-aliases.js';
import { stateDirectory } from '../store/state-dir.js';
import { cacheDirectory } from '../store/cache-dir.js';
import { jobPlace, makerCache, retireJobPlace, sweepRetiredPlaces, type RemovedAs } from '../store/job-places.js';
import { endedFrom, tasksOnService, tasksSinceCommand } from './job/removed-place.js';
import { coveringChunk, readJobState, standingTakeover } from './submit/hand-over.js';
import { counted } from '../output/plural.js';
import { formatCount } from '../output/numbers.js';

export interface JobsOptions {
  limit?: number;
  all?: boolean;
  prune?: boolean;
  columns?: string[];
  wide?: boolean;
}

/**
 * `unreadable`: its journal cannot be read (too large, damaged job record, not a file): listed, never dropped.
 * `refused`: interrupted where the service refused a chunk's items, continued by `resume ID --skip-refused`.
 */
/**
 * `superseded`: stopped, then taken over whole by a re-run of the same items in the same chunks (its `superseded_by`),
 * which creates them all: `resume ID` continues that job.
 */
/**
 * `lost`: finished, but the service no longer has the tasks of some of its chunks (its ids started again), as a run
 * found and recorded (journal-records.ts `lost`); it goes as a finished job does.
 */
/**
 * `ended-elsewhere`: unfinished here, but the file this user last ran it from (a copy of the state directory) was
 * removed as the job ended there (store/job-places.ts `removed`): its resume here is refused (exit 2), its tasks are
 * on the service, and it goes as a finished job does, its age counted from that removal.
 */
export type JobStateName =
  'running' | 'interrupted' | 'refused' | 'superseded' | 'finished' | 'lost' | 'ended-elsewhere' | 'unreadable';

/**
 * The one rule of a job's state, for `taskctl jobs` (its journal read through) and TAB completion (a glance at its
 * first and last lines) alike: what each knows of the journal goes in, so that the two say the same of the same file.
 * `lost`: chunks lost (a finished journal's last `done` counts them); `superseded`: taken over whole, as far as it is
 * known; `refused`: stopped on a chunk whose items the service refused.
 */
function jobState(facts: {
  done: boolean;
  lost: number;
  running: boolean;
  endedElsewhere: boolean;
  superseded: boolean;
  refused: boolean;
}): JobStateName {
  if (facts.done) return facts.lost > 0 ? 'lost' : 'finished';
  if (facts.running) return 'running';
  if (facts.endedElsewhere) return 'ended-elsewhere';
  if (facts.superseded) return 'superseded';
  return facts.refused ? 'refused' : 'interrupted';
}

/** A job that has ended: pruned after the retention (`lost` is finished too, and one that ended elsewhere). */
const ended = (state: JobStateName) => state === 'finished' || state === 'lost' || state === 'ended-elsewhere';

/**
 * Where an unfinished job ended instead, when it did (JobRow `endedElsewhere`): the file this user last ran it from,
 * removed as the job ended there. The same rule as its resume's refusal (core/submit/journaled-run.ts lastPlaceOf).
 */
function endedElsewhere(cacheDir: string, id: string, maker: string | undefined): JobRow['endedElsewhere'] {
  const removed = jobPlace(cacheDir, id, maker);
  if (removed?.removed === undefined) return undefined;
  const atMs = Date.parse(removed.removed.at);
  return { path: removed.path, as: removed.removed.as, atMs: Number.isFinite(atMs) ? atMs : 0 };
}

/** One job as `jobs` shows it (and `-o json` prints it). */
export interface JobRow {
  id: string;
  started: string;
  service: string;
  items: number;
  chunks: number;
  /** Chunks with a task the service still has, as far as the journal knows (not `chunks_lost`). */
  chunks_created: number;
  /** Chunks whose task the service no longer has, as a run found and recorded (journal-records.ts `lost`). */
  chunks_lost: number;
  /** Not shown: those chunks, in order. */
  lost?: number[];
  in_doubt: number;
  state: JobStateName;
  base_url: string;
  journal: string;
  /** The journal and its copies of stdin or arguments, in bytes. */
  bytes: number;
  /** Not shown: the account the job ran under (`--all` lifts the filter). */
  account: string;
  own: boolean;
  /** Why its journal cannot be read (state `unreadable`): the error's words and its advice. */
  reason?: string;
  /**
   * Not shown: a `jobs/ID.ref` to a file with no taskctl record at all (state `unreadable`), left by an older taskctl
   * that recorded a `--journal FILE` before it found the file no journal: `--prune` forgets it, never the file.
   */
  notJournal?: true;
  /** The job that took it over (state `superseded`). */
  superseded_by?: string;
  /**
   * Not shown: a superseded job's, where the task of the chunk taken over is known (`settledTakeover`): `own`, in its
   * own journal; `theirs`, only in the journal of the job that took it over; `in-doubt`, nowhere yet (that job sent it).
   */
  coverTask?: 'own' | 'theirs' | 'in-doubt';
  /** The journal it ended in, removed since (state `ended-elsewhere`). */
  ended_in?: string;
  /**
   * Not shown: how it ended there, and when that journal was removed (ms; 0 when the record cannot say), from which
   * its retention is counted (state `ended-elsewhere`).
   */
  endedElsewhere?: { path: string; as: RemovedAs; atMs: number };
  /** Not shown: the cache directory its journal was made under, when another (store/job-places.ts makerCache). */
  makerCache?: string;
  /**
   * An unfinished job's: the jobs that took one of its chunks over (not it whole). Its resume takes tasks from them, so
   * they are kept while it is (`pruneJobs`).
   */
  taken_over_by?: string[];
  /**
   * Not shown: the jobs whose chunks in doubt were handed to chunks of this one (journal-records.ts `tookOver`): it is
   * kept while one of them, in whatever state directory, has not finished and may take its tasks (`pruneJobs`).
   */
  tookFrom?: string[];
}

export const JOB_COLUMNS: Array<Column<JobRow>> = [
  { header: 'ID', key: 'id', value: (j) => j.id },
  // An age for people (`5m ago`), as list's CREATED; left out after the two below when even then the rest would not fit
  // (80 columns), rather than stack every job as a card.
  { header: 'STARTED', key: 'started', value: (j) => j.started, time: true, optional: 1 },
  { header: 'SERVICE', key: 'service', value: (j) => known(j, j.service) },
  { header: 'ITEMS', key: 'items', value: (j) => known(j, j.items), align: 'right' },
  { header: 'CHUNKS', key: 'chunks', value: (j) => known(j, `${j.chunks_created}/${j.chunks}`), align: 'right' },
  { header: 'IN DOUBT', key: 'in_doubt', value: (j) => known(j, j.in_doubt), align: 'right' },
  { header: 'STATE', key: 'state', value: (j) => j.state },
  { header: 'BASE URL', key: 'base_url', value: (j) => j.base_url, optional: 2, truncate: true },
  // Dropped first: the id continues the job as well, and a path cut short cannot be copied.
  { header: 'JOURNAL', key: 'journal', value: (j) => j.journal, optional: 3, truncate: true, path: true },
];

/** What the journal says, or `-` for a job whose journal cannot be read. */
const known = <T>(row: JobRow, value: T): T | string => (row.state === 'unreadable' ? '-' : value);

/**
 * Every job this machine knows, newest first; one whose journal cannot be read is a row of state `unreadable`.
 * `cacheDir`: where this user's records of the jobs' places are (an unfinished job may have ended elsewhere).
 */
export function readJobs(store: JobStore, cacheDir: string): JobRow[] {
  return newestFirst(store.list().flatMap((stored) => jobRow(store, stored, cacheDir) ?? []));
}

/**
 * Newest first by `started` (the job record's `created_at`; an unreadable job's is its journal's last change, so it
 * sorts by when it last ran), then by id.
 */
function newestFirst<R extends Pick<JobRow, 'id' | 'started'>>(rows: R[]): R[] {
  return rows.sort((a, b) => (a.started === b.started ? b.id.localeCompare(a.id) : b.started.localeCompare(a.started)));
}

/** What a TAB shows of a job, and what `currentJobs` asks of it. */
export type JobGlance = Pick<JobRow, 'id' | 'started' | 'service' | 'state' | 'base_url' | 'account'>;

/**
 * `readJobs` at a glance, for TAB completion: each journal's first record and its last line, never what lies between
 * (store/journal-file.ts `glanceJournal`), so a keypress costs a bounded read per job whatever the journals' sizes.
 * Its state is `jobState`'s, as in `jobs`, from what the last line tells: finished is a last `done` record, `lost`
 * when that record counts lost chunks (or, written before the count, the journal holds `lost` records: `lostAtDone`);
 * `superseded` and `refused` when the last record says so. The rare damaged journal that `jobs` finds unfinished after
 * all is offered as finished. A first record that is no job is `unreadable`, as in `jobs`.
 */
export function glanceJobs(store: JobStore, cacheDir: string): JobGlance[] {
  return newestFirst(store.list().flatMap((stored) => glanceRow(store, stored, cacheDir) ?? []));
}

function glanceRow(store: JobStore, stored: StoredJob, cacheDir: string): JobGlance | undefined {
  const unreadable = unreadableGlance(stored);
  let ends;
  try {
    ends = glanceJournal(stored.path);
  } catch {
    return unreadable;
  }
  if (ends === undefined || ends.empty) return undefined;
  const job = jobRecord(ends.first);
  if (job === undefined) return unreadable;
  const holds = jobIdOf(ends.first);
  if (holds !== undefined && holds !== stored.id) return unreadable;
  if (holds !== stored.id) return undefined;
  const done = isDoneRecord(ends.last);
  const running = !done && store.runner(stored.id, stored.path) !== undefined;
  return {
    ...{ id: stored.id, started: startedOf(job), service: job.service },
    ...{ base_url: job.base_url, account: job.account },
    state: jobState({
      done,
      lost: done ? lostAtDone(stored.path, ends.last) : 0,
      running,
      endedElsewhere:
        !done && !running && endedElsewhere(cacheDir, stored.id, makerCache(job.origin, cacheDir)) !== undefined,
      superseded: supersededIn(ends.last) !== undefined,
      refused: isRefusedRecord(ends.last),
    }),
  };
}

/** How a `lost` record starts, as the journal writes it (JSON.stringify, `type` first): what a glance looks for. */
const LOST_MARKER = JSON.stringify({ type: 'lost' }).slice(1, -1);

/**
 * The chunks lost in a finished journal, for the glance: its last `done`'s count. A `done` written before the count
 * (journal-records.ts `lost_counted`) cannot tell none from unsaid: its bytes are looked through for a `lost` record,
 * and only a journal holding one is read through (`jobs`' fold, its `found` records undoing them).
 */
function lostAtDone(path: string, last: unknown): number {
  const counted = lostInDone(last);
  if (counted !== undefined) return counted;
  try {
    if (!journalHolds(path, LOST_MARKER)) return 0;
    const fold = new JobFold(path, { counts: true });
    const state = readJournalRecords(path, (record) => fold.add(record)) ? fold.end() : undefined;
    return state === undefined ? 0 : lostChunks(state).length;
  } catch {
    return 0; // damaged in its middle: offered as its last line says, as the glance does (`jobs` says more)
  }
}

/** When a job started: its job record's `created_at`, to the second. */
const startedOf = (job: { created_at: string }) => job.created_at.replace(/\.\d+Z$/, 'Z');

/** What a job whose journal cannot be read shows: its id, and its journal's last change for when it started. */
const unreadableGlance = (stored: StoredJob) =>
  ({ ...unknownJob, id: stored.id, started: isoSeconds(stored.mtimeMs), state: 'unreadable' }) as const;

/** What is not known of a job whose journal cannot be read (its columns show `-`). */
const unknownJob = { service: '', base_url: '', account: '' } as const;
/** The same in `-o json`: null, never an empty string or a zero that would read as a fact. */
const UNKNOWN_IN_JSON = {
  service: null,
  items: null,
  chunks: null,
  chunks_created: null,
  chunks_lost: null,
  in_doubt: null,
  base_url: null,
};

/** One job's row from its journal read a record at a time (`JobFold`): one journal's state in memory, never its lines. */
function jobRow(store: JobStore, stored: StoredJob, cacheDir: string): JobRow | undefined {
  if (stored.away !== undefined)
    return unreadableRow(stored, journalAway(stored.path, stored.away, store.referencePath(stored.id)));
  let state;
  const fold = new JobFold(stored.path, { counts: true });
  try {
    state = readJournalRecords(stored.path, (record) => fold.add(record)) ? fold.end() : undefined;
  } catch (error) {
    if (!stored.own && fold.holdsNoRecord()) {
      return {
        ...unreadableRow(
          stored,
          `${stored.path} is not a taskctl journal (no line of it is a job's record); \`taskctl jobs --prune\` forgets it (the file is kept)`,
        ),
        notJournal: true,
      };
    }
    return unreadableRow(stored, error instanceof CliError ? error : 'it cannot be read');
  }
  const holds = jobIdOf(fold.first);
  if (state && holds !== undefined && holds !== stored.id) return unreadableRow(stored, misnamed(holds));
  if (!state || holds !== stored.id) return undefined;
  const { job } = state;
  let created = 0;
  let doubt = 0;
  let refused = 0;
  const lost = lostChunks(state);
  for (const chunk of state.chunks.values()) {
    if (chunk.task) created += chunk.lost === true ? 0 : 1;
    else if (chunk.send) doubt++;
    else if (chunk.refused !== undefined) refused++;
  }
  const running = !state.done && store.runner(stored.id, stored.path) !== undefined;
  const maker = makerCache(job.origin, cacheDir);
  const elsewhere = state.done || running ? undefined : endedElsewhere(cacheDir, stored.id, maker);
  const takeover = running ? undefined : settledTakeover(store, state);
  const over = takeover?.job;
  const takers = state.done ? [] : [...new Set((state.takenOver ?? []).map((cover) => cover.job))];
  const tookFrom = [...new Set((state.tookOver ?? []).map((cover) => cover.job))];
  return {
    id: stored.id,
    started: startedOf(job),
    service: job.service,
    items: job.items,
    chunks: job.chunks,
    chunks_created: created,
    chunks_lost: lost.length,
    ...(lost.length > 0 && { lost }),
    in_doubt: doubt,
    state: jobState({
      done: state.done,
      lost: lost.length,
      running,
      endedElsewhere: elsewhere !== undefined,
      superseded: over !== undefined,
      refused: refused > 0,
    }),
    base_url: job.base_url,
    journal: stored.path,
    bytes: diskBytes(stored),
    account: job.account,
    own: stored.own,
    ...(elsewhere !== undefined && { ended_in: elsewhere.path, endedElsewhere: elsewhere }),
    ...(over !== undefined && { superseded_by: over }),
    ...(takeover !== undefined && { coverTask: takeover.task }),
    ...(takers.length > 0 && { taken_over_by: takers }),
    ...(tookFrom.length > 0 && { tookFrom }),
    ...(maker !== undefined && { makerCache: maker }),
  };
}

/**
 * The job that took `state`'s job over whole (`standingTakeover`), as `jobs` shows and prunes it: only once that job has
 * sent the chunk or given it its task. One that runs and has sent nothing of it yet may still stop before it sends
 * (Ctrl-C in its wait or walk, an outage, a refused key): the cover is then void and this job its own again, so until
 * then it is shown `interrupted`, and kept. `task`: where the chunk's task is known (`JobRow.coverTask`); only with
 * one may the superseded job be pruned (a send in doubt is settled from this job's journal too).
 */
function settledTakeover(
  store: JobStore,
  state: JobState,
): { job: string; task: NonNullable<JobRow['coverTask']> } | undefined {
  const job = standingTakeover(store, state);
  const cover = state.supersededCover;
  if (job === undefined || cover === undefined) return undefined;
  if (state.chunks.get(cover.chunk)?.task !== undefined) return { job, task: 'own' };
  const theirs = coveringChunk(store, cover);
  if (theirs?.task !== undefined) return { job, task: 'theirs' };
  return theirs?.sent === true ? { job, task: 'in-doubt' } : undefined;
}

/** Why a journal of the state directory named for one id is not that job (a copy saved under another job's name). */
const misnamed = (holds: string) =>
  `it holds job ${holds} (its job record), not the job its name says: a copy under another name; \`taskctl show --job FILE\` reads it`;

/** A job whose journal cannot be read: what is known without it (its id, path, size, date) and why. */
function unreadableRow(stored: StoredJob, why: CliError | string): JobRow {
  const words = typeof why === 'string' ? [why] : [why.message, why.hint];
  return {
    ...unreadableGlance(stored),
    ...{ items: 0, chunks: 0, chunks_created: 0, chunks_lost: 0, in_doubt: 0 },
    journal: stored.path,
    bytes: diskBytes(stored),
    own: stored.own,
    // The error and its advice as two sentences (the advice starts with a capital, as on its own line).
    reason: words.filter((word) => word !== undefined && word !== '').join('. '),
  };
}

/**
 * Removes the finished and superseded jobs of the state directory older than the retention (all of them with 0), each under its locks,
 * taken only for one that is due (docs/performance.md#a-create-that-is-a-job): one a run holds now (a `resume
 * --adopt`) stays for the next time.
 */
export function pruneJobs(
  store: JobStore,
  cacheDir: string,
  rows: readonly JobRow[],
  keepMs: number,
  nowMs: number,
  all: readonly JobRow[],
  odd: OddLock,
): JobRow[] {
  const remove = (row: JobRow) => {
    // One that ended elsewhere is as old as that journal's removal, at least: its own last write may be much older.
    const since = row.endedElsewhere?.atMs ?? 0;
    try {
      const removed = store.removeLocked({ id: row.id, path: row.journal }, (mtimeMs) =>
        expired(Math.max(mtimeMs, since), keepMs, nowMs),
      );
      // The record of where it ended stays as it is: it names that journal, and how the job ended there.
      if (removed && row.endedElsewhere === undefined) {
        retireJobPlace(cacheDir, row.id, row.journal, removedAs(row.state), nowMs);
        // The job's own record too, so its original (or another copy) learns that this one ended here.
        if (row.makerCache !== undefined)
          retireJobPlace(row.makerCache, row.id, row.journal, removedAs(row.state), nowMs);
      }
      return removed;
    } catch (error) {
      return leftForOdd(error, row.id, odd);
    }
  };
  // A superseded job goes as a finished one does, but never after the job that took it over, so the superseded job's
  // commands can always point to it (the takeover itself is in the superseded job's journal): a job stays while a
  // superseded job that names it stays, and those go first. A job that took chunks of an unfinished one over stays
  // while that one does: its resume takes their tasks from it. `all`: every job of the state directory, when `rows`
  // are only those past the retention (a young job keeps an old finished one too). A superseded job goes only once the
  // chunk taken over has its task. One of a `--journal FILE` (never pruned) whose own journal records that task does
  // not keep the job that took it over: the takeover stands without it, and it would stay forever.
  // One whose chunks were handed chunks of a job of another state directory (sharing this cache directory, so the
  // ledger) stays while that job has not finished the same way: that directory's prune knows nothing of this one.
  const listed = new Set(all.map((row) => row.id));
  const due = rows.filter(
    (row) =>
      row.own &&
      (ended(row.state) || (row.state === 'superseded' && row.coverTask !== 'in-doubt')) &&
      !(row.tookFrom ?? []).some((from) => !listed.has(from) && waitsForIt(store, from, row.id)),
  );
  const staying = new Set(all.filter((row) => !ended(row.state)).map((row) => row.id));
  const removed: JobRow[] = [];
  const tried = new Set<string>();
  for (let progress = true; progress;) {
    progress = false;
    const namedByStaying = new Set(
      all
        .filter((row) => staying.has(row.id))
        .flatMap((row) => {
          const named = [...(row.superseded_by === undefined ? [] : [row.superseded_by]), ...(row.taken_over_by ?? [])];
          return !row.own && row.coverTask === 'own' ? named.filter((id) => id !== row.superseded_by) : named;
        }),
    );
    for (const row of due) {
      if (tried.has(row.id) || namedByStaying.has(row.id)) continue;
      tried.add(row.id);
      progress = true;
      if (!remove(row)) continue;
      removed.push(row);
      staying.delete(row.id);
    }
  }
  // The records of removed journals (a copy elsewhere never buys again what they bought) are kept a year after the
  // removal, or the retention when longer: swept when a job is removed, so a `jobs` that removes none reads none.
  if (removed.length > 0) sweepRetiredPlaces(cacheDir, Math.max(keepMs, RETIRED_PLACE_MS), nowMs);
  return removed;
}

/**
 * Job `from`, found where this user last ran it (JobStore.find: another state directory), has not finished and names
 * job `taker` as one that took a chunk of it over: its `resume` takes from `taker`'s journal the tasks of its chunks
 * of the same items (hand-over.ts `coveringTasks`), so that journal must stay. Not when that job is gone or cannot be
 * read (nothing can resume it), was handed back (`handBack`: it names `taker` no more), or was taken over whole by
 * `taker` with the chunk's task in its own journal: that takeover stands without `taker`'s journal, and its resume
 * sends nothing (journaled-run.ts runResume).
 */
function waitsForIt(store: JobStore, from: string, taker: string): boolean {
  const path = store.find(from);
  const state = path === undefined ? undefined : readJobState(path, from);
  if (state === undefined || state.done || !(state.takenOver ?? []).some((cover) => cover.job === taker)) return false;
  const whole = state.supersededCover;
  return !(whole?.job === taker && state.chunks.get(whole.chunk)?.task !== undefined);
}

/** What a pruned job's record says it was (store/job-places.ts retireJobPlace): `lost` is never called finished. */
const removedAs = (state: JobStateName): RemovedAs =>
  state === 'lost' ? 'lost' : state === 'finished' ? 'finished' : 'superseded';

/** How long the record of where a removed journal ran is kept at least (store/job-places.ts retireJobPlace). */
const RETIRED_PLACE_MS = LONGEST_DURATION_MS;

/** With no retention (`--prune`) its age is not asked: a journal stamped ahead of the clock goes too. */
const expired = (mtimeMs: number, keepMs: number, nowMs: number) => keepMs <= 0 || nowMs - mtimeMs >= keepMs;

/**
 * The journals of the state directory that hold no record at all: a create killed before it recorded its job (while
 * it read a long stdin), nothing of it sent, its copy of stdin still beside it. One being written now is listed too:
 * removing takes its locks first (`JobStore.removeLocked`).
 */
export function unrecordedStarts(store: JobStore): StoredJob[] {
  return store.list().filter((stored) => stored.own && holdsNothing(stored.path));
}

function holdsNothing(path: string): boolean {
  try {
    return glanceJournal(path)?.empty === true;
  } catch {
    return false; // unreadable: never removed on a guess
  }
}

/** Removes those of `starts` older than the retention (all of them with 0), each unless its run is alive. */
function pruneUnrecorded(
  store: JobStore,
  starts: readonly StoredJob[],
  keepMs: number,
  nowMs: number,
  odd: OddLock,
): StoredJob[] {
  return starts.filter((stored) => {
    if (!expired(stored.mtimeMs, keepMs, nowMs)) return false;
    try {
      return store.removeLocked(stored, (mtimeMs) => expired(mtimeMs, keepMs, nowMs) && holdsNothing(stored.path));
    } catch (error) {
      return leftForOdd(error, stored.id, odd);
    }
  });
}

/**
 * Told of each job whose lock path holds something other than a lock file (a FIFO, a directory, …: atomic-file.ts
 * `NotRegularFileError`, never opened): `taskctl jobs` lists and prunes around it, and names it on stderr; the
 * housekeeping after a create skips it unsaid (`taskctl jobs` names it).
 */
type OddLock = (id: string, error: NotRegularFileError) => void;

/**
 * A removal that failed leaves the job for the next run. A lock path that is no lock file is told to `odd`: the job is
 * skipped, and the others go on.
 */
function leftForOdd(error: unknown, id: string, odd: OddLock): false {
  if (error instanceof NotRegularFileError) odd(id, error);
  return false;
}

/**
 * `store` whose `runner` tells a lock path holding no lock file to `odd` and answers "no runner": no taskctl can hold
 * a lock there (it makes its locks as regular files, and refuses that path), so the job is listed by its journal.
 */
function listingStore(store: JobStore, odd: OddLock): JobStore {
  const runner: JobStore['runner'] = (id, path) => {
    try {
      return store.runner(id, path);
    } catch (error) {
      if (!(error instanceof NotRegularFileError)) throw error;
      odd(id, error);
      return undefined;
    }
  };
  return Object.assign(Object.create(store) as JobStore, { runner });
}

/**
 * After a create: the state directory's finished jobs, unfinished starts and leftover copies past the retention go (a
 * glance at their dates first). A job whose lock path holds no lock file is skipped, the others go: housekeeping never
 * fails the create that ran, and `taskctl jobs` names that job.
 */
export async function pruneExpired(ctx: Service & Runtime, jobs: JobStore | undefined): Promise<void> {
  if (!jobs) return;
  try {
    await pruneExpiredIn(jobs, ctx);
  } catch (error) {
    // A jobs directory that cannot be read (store/job-files.ts) is said by `taskctl jobs`, not by the create that ran.
    if (!(error instanceof CliError)) throw error;
  }
}

async function pruneExpiredIn(jobs: JobStore, ctx: Service & Runtime): Promise<void> {
  const skip: OddLock = () => {};
  const store = listingStore(jobs, skip);
  // A bad job-retention is reported by `taskctl jobs`.
  const keep = await retentionMs(ctx).catch(() => DEFAULT_JOB_RETENTION_MS);
  const now = ctx.clock.now();
  const old = store.list().filter((job) => job.own && now - job.mtimeMs >= keep);
  if (old.length > 0) {
    const cacheDir = cacheDirectory(ctx.env);
    const rows = old.flatMap((stored) => jobRow(store, stored, cacheDir) ?? []);
    // Every job is read only when a finished one is due: a superseded job not due yet keeps the job that took it over.
    const all = rows.some((row) => ended(row.state)) ? readJobs(store, cacheDir) : rows;
    pruneJobs(store, cacheDir, rows, keep, now, all, skip);
    pruneUnrecorded(
      store,
      old.filter((stored) => holdsNothing(stored.path)),
      keep,
      now,
      skip,
    );
  }
  // Copies whose journal is gone (a removal cut short, a journal deleted by hand): the same retention, each under its
  // job's locks, so never those of a live run.
  removeLeftovers(store, store.leftovers(), keep, now, skip);
}

export async function retentionMs(ctx: Service): Promise<number> {
  const setting = (await ctx.settings()).jobRetention;
  return setting ? parsePositiveDuration(setting.value, 'job-retention') : DEFAULT_JOB_RETENTION_MS;
}

/**
 * The jobs of the current profile and base URL (every one with `all`, or without a configured account): those of its
 * key, and of keys proved to be its account (a key rotated: core/job/job-account.ts); one whose journal cannot be read
 * may be of any, so it is always shown.
 */
export async function currentJobs<R extends JobGlance>(
  ctx: Store & Runtime,
  rows: readonly R[],
  all: boolean,
): Promise<R[]> {
  return (await splitJobs(ctx, rows, all)).current;
}

/** `currentJobs`, and the jobs left out that the same base URL ran under another key (`otherKey`). */
export async function splitJobs<R extends JobGlance>(
  ctx: Store & Runtime,
  rows: readonly R[],
  all: boolean,
): Promise<{ current: R[]; otherKey: R[] }> {
  if (all) return { current: [...rows], otherKey: [] };
  const baseUrl = await ctx.bindCacheAccount().catch(() => undefined);
  if (baseUrl === undefined) return { current: [...rows], otherKey: [] };
  // This key's account and every one proved the same: found once, not per row.
  const mine = accountsOf(readAliases(stateDirectory(ctx.env)), ctx.cache.account ?? '');
  const current: R[] = [];
  const otherKey: R[] = [];
  for (const row of rows) {
    if (row.state === 'unreadable') current.push(row);
    else if (row.base_url !== baseUrl) continue;
    else (mine.has(row.account) ? current : otherKey).push(row);
  }
  return { current, otherKey };
}

export async function runJobs(ctx: Output & Store & Service & Runtime & Process, options: JobsOptions): Promise<void> {
  // A lock path holding no lock file (a FIFO, …) fails no listing: the job is listed, and named once on stderr.
  const odd = new Map<string, NotRegularFileError>();
  const noteOdd: OddLock = (id, error) => {
    if (!odd.has(id)) odd.set(id, error);
  };
  const store = listingStore(jobStore(ctx.env), noteOdd);
  const cacheDir = cacheDirectory(ctx.env);
  let rows = readJobs(store, cacheDir);
  const keep = options.prune === true ? 0 : await retentionMs(ctx);
  // Reading the journals and removing them run without a turn of the event loop: a Ctrl-C or SIGTERM that came
  // meanwhile is heard here, before anything is removed.
  await new Promise(setImmediate);
  if (ctx.signal.aborted) throw new InterruptedError('interrupted', 'Nothing was removed.');
  const removed = new Set(pruneJobs(store, cacheDir, rows, keep, ctx.clock.now(), rows, noteOdd).map((row) => row.id));
  const forgotten = options.prune === true ? forgetNotJournals(store, rows) : [];
  for (const id of forgotten) removed.add(id);
  let starts = unrecordedStarts(store);
  const gone = new Set(pruneUnrecorded(store, starts, keep, ctx.clock.now(), noteOdd).map((stored) => stored.id));
  starts = starts.filter((stored) => !gone.has(stored.id) && store.runner(stored.id, stored.path) === undefined);
  const leftovers = pruneLeftovers(store, keep, ctx.clock.now(), noteOdd);
  if (options.prune === true) {
    const superseded = rows.filter((row) => removed.has(row.id) && row.state === 'superseded').length;
    const also = [
      counted(removed.size - superseded - forgotten.length, 'finished job'),
      ...(superseded > 0 ? [counted(superseded, 'superseded job')] : []),
      ...(gone.size > 0 ? [counted(gone.size, UNRECORDED)] : []),
      ...(leftovers.removed > 0 ? [counted(leftovers.removed, LEFTOVER)] : []),
      ...(forgotten.length > 0 ? [notJournalWords(forgotten.length)] : []),
    ];
    ctx.printer.info(
      `removed ${also.length > 2 ? `${also.slice(0, -1).join(', ')} and ${also.at(-1)}` : also.join(' and ')}`,
    );
  }
  rows = rows.filter((row) => !removed.has(row.id));
  const { current, otherKey } = await splitJobs(ctx, rows, options.all === true);
  const shown = current.slice(0, options.limit ?? Infinity);
  // Each job whose lock path holds no lock file: where, and what to do (a prune left it); -q keeps warnings.
  const warnOdd = () => {
    for (const [id, error] of odd) ctx.printer.warn(`job ${id}: ${oddLockWords(error)}`);
  };
  if (idsOnly(ctx.globals)) {
    for (const row of shown) ctx.printer.line(row.id);
    warnOdd();
    return;
  }
  const columns = pickColumns(JOB_COLUMNS, options.columns);
  const json = shown.map(
    ({
      account: _account,
      own: _own,
      coverTask: _coverTask,
      lost: _lost,
      notJournal: _no,
      endedElsewhere: _elsewhere,
      makerCache: _maker,
      tookFrom: _tookFrom,
      ...row
    }) => (row.state === 'unreadable' ? { ...row, ...UNKNOWN_IN_JSON } : row),
  );
  await ctx.printer.list(shown, columns, json, {
    wide: options.wide === true,
    chosen: (options.columns?.length ?? 0) > 0,
    // The count below says `0 jobs on this machine` (or why none is shown): no `No results.` above it.
    emptyMessage: '',
  });
  // Once each, on stderr: why a listed job's journal cannot be read.
  for (const row of shown) if (row.reason !== undefined) ctx.printer.warn(`job ${row.id}: ${row.reason}`);
  // And which of a job's chunks lost their task (its CHUNKS count them no more).
  for (const row of shown) if (row.lost !== undefined) ctx.printer.warn(`job ${row.id}: ${lostWords(row.lost)}`);
  // And where a job ended that is unfinished here: never a resume (refused here), only where its tasks are.
  for (const row of shown)
    if (row.endedElsewhere !== undefined) ctx.printer.warn(endedElsewhereWords(row, row.endedElsewhere));
  warnOdd();
  const startBytes = starts.reduce((sum, stored) => sum + diskBytes(stored), 0);
  const leftoverBytes = leftovers.kept.reduce((sum, left) => sum + left.size, 0);
  const bytes = rows.reduce((sum, row) => sum + row.bytes, startBytes + leftoverBytes);
  ctx.printer.info(
    `${counted(rows.length, 'job')} on this machine${hiddenWords(rows.length - current.length, current.length - shown.length, options.limit)}; their journals use ${formatBytes(bytes)} (state directory: ${store.dir})`,
  );
  if (otherKey.length > 0) ctx.printer.info(otherKeyNote(otherKey.length));
  if (starts.length > 0) {
    ctx.printer.info(
      `${counted(starts.length, UNRECORDED)} (a create stopped before it recorded its job: nothing of it was sent) ${starts.length === 1 ? 'uses' : 'use'} ${formatBytes(startBytes)}; taskctl jobs --prune removes ${starts.length === 1 ? 'it' : 'them'}`,
    );
  }
  const left = leftovers.kept.length;
  if (left > 0) {
    ctx.printer.info(
      `${counted(left, LEFTOVER)} (copies of a job's input whose journal is gone: nothing can use them) ${left === 1 ? 'uses' : 'use'} ${formatBytes(leftoverBytes)}; taskctl jobs --prune removes ${left === 1 ? 'it' : 'them'}`,
    );
  }
}

/**
 * The jobs not shown, by what hides them, each only when it does: `--limit N` (` (29 not shown: past --limit 1)`), and
 * the account (of another key or base URL, which `--all` lists); empty when every job is shown.
 */
function hiddenWords(byAccount: number, byLimit: number, limit: number | undefined): string {
  if (byAccount + byLimit === 0) return '';
  const past = `past --limit ${limit ?? ''}`;
  const other = `of another account or service; --all lists ${byAccount === 1 ? 'it' : 'them'}`;
  const why =
    byAccount === 0
      ? past
      : byLimit === 0
        ? other
        : `${formatCount(byLimit)} ${past}, ${formatCount(byAccount)} ${other}`;
  return ` (${formatCount(byAccount + byLimit)} not shown: ${why})`;
}

/**
 * Removes the state directory's copies whose journal is gone (`JobStore.leftovers`) past the retention (all with 0),
 * each under the job's locks; returns how many went and those kept that no live run holds (to count).
 */
function pruneLeftovers(
  store: JobStore,
  keepMs: number,
  nowMs: number,
  odd: OddLock,
): { removed: number; kept: LeftoverCopies[] } {
  const leftovers = store.leftovers();
  const gone = new Set(removeLeftovers(store, leftovers, keepMs, nowMs, odd));
  const kept = leftovers.filter((left) => !gone.has(left) && store.runner(left.id, left.path) === undefined);
  return { removed: gone.size, kept };
}

/**
 * Those of `leftovers` past the retention removed, each under its job's locks (asked only of one that is due): one a
 * live run holds stays; a lock a killed run left is taken over. Returns those removed.
 */
function removeLeftovers(
  store: JobStore,
  leftovers: readonly LeftoverCopies[],
  keepMs: number,
  nowMs: number,
  odd: OddLock,
): LeftoverCopies[] {
  return leftovers.filter((left) => {
    try {
      return store.removeLeftover(left, (mtimeMs) => expired(mtimeMs, keepMs, nowMs));
    } catch (error) {
      return leftForOdd(error, left.id, odd);
    }
  });
}

/**
 * Jobs of this base URL under another API key are not this key's to list, but after a key rotation they are the
 * user's: said, with how to see them and how one is continued (docs/behaviour.md#a-rotated-api-key).
 */
export function otherKeyNote(count: number, what = 'job'): string {
  const one = count === 1;
  return `${counted(count, what)} of this base URL ${one ? 'was' : 'were'} created with another API key and ${one ? 'is' : 'are'} not shown (\`taskctl jobs --all\` lists ${one ? 'it' : 'them'}); after a key change, \`taskctl resume ID\` continues one once a task of it, read with this key, shows the same account`;
}

/** A lock path holding no lock file, in the warning of `taskctl jobs`: the refusal, and that it is left as it is. */
function oddLockWords(error: NotRegularFileError): string {
  return `${error.message}; the job is listed by its journal, and neither removed nor continued while it is there. ${
    error.hint ?? 'Remove it, then try again.'
  }`;
}

/**
 * A job that ended elsewhere (JobRow `endedElsewhere`), on stderr: where and how, that nothing is left to resume here
 * (its resume is refused), when it goes, and the read that lists its tasks. No command that sends.
 */
function endedElsewhereWords(row: JobRow, ended: NonNullable<JobRow['endedElsewhere']>): string {
  return `job ${row.id} ${endedFrom(ended.as, ended.path)}, which was removed since as ${ended.as} (taskctl jobs --prune or the job-retention): ${tasksOnService(ended.as)}, not in this journal; nothing is left to resume here, and this journal goes as a finished job's does; \`${tasksSinceCommand(row.service, row.started)}\` lists the tasks made since it started`;
}

/** A journal with no record (`unrecordedStarts`), in words a person reads. */
const UNRECORDED = 'unfinished start';
/** The `jobs/ID.ref`s to files that are no journal (JobRow `notJournal`) that `--prune` forgot. */
const notJournalWords = (count: number) =>
  count === 1
    ? '1 reference to a file that is not a journal (the file is kept)'
    : `${formatCount(count)} references to files that are not journals (the files are kept)`;

/** `--prune`: forgets the refs to files that are no journal (never the files); the ids forgotten. */
function forgetNotJournals(store: JobStore, rows: readonly JobRow[]): string[] {
  return rows.flatMap((row) => {
    if (row.notJournal !== true) return [];
    try {
      store.remove({ id: row.id, path: row.journal, own: false });
      return [row.id];
    } catch {
      return []; // left for the next time
    }
  });
}
/** The copies of a job whose journal is gone (`JobStore.leftovers`), in words a person reads. */
const LEFTOVER = 'leftover input';
