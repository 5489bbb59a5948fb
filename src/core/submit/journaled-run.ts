/**
 * Every create that may send is a job (docs/behaviour.md#jobs), journaled where `--journal FILE` says or in the state
 * directory, and continued by `taskctl resume ID` (or `resume FILE`). Both check what must match (options, input
 * digests) before any wait or request, say where the job stands, then run the one pipeline (pipeline.ts) with the
 * journal as its observer (job-journal.ts); chunks left in doubt are settled (settle.ts) after the money guard and
 * before anything is sent. A job is known and locked by its id, never by the path as typed: a copy of a journal, or
 * one reached through a symlink, is the same job; its file is locked too (`FILE.lock`), for runs of another state
 * directory. Each chunk's entry in the local ledger (store/ledger.ts) carries the
 * job id and chunk: resume takes it over as its own. The records: journal-records.ts.
 */
import { shellWord } from '../../lib/shell-word.js';
import { formatDuration, LONGEST_DURATION_MS } from '../../lib/duration.js';
import { requireJobAccount } from '../job/job-account.js';
import { createHash, type Hash } from 'node:crypto';
import { basename, dirname, resolve, sep } from 'node:path';
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import {
  CliError,
  CreateUnknownError,
  InputError,
  InterruptedError,
  interruptedBeforeSend,
  JournalWriteError,
  systemErrorWords,
  UsageError,
} from '../../errors.js';
import { checkArguments, type ItemList, type ItemSource, type PreparedItems } from '../items/index.js';
import { formatFromPath } from '../items/formats.js';
import type { JobStore } from '../../store/job-files.js';
import {
  InputCopy,
  inputSize,
  JobUnwritableError,
  JournalFile,
  NewJobLockError,
  maxJobChunks,
  readJournalRecords,
  writeArgumentsCopy,
} from '../../store/journal-file.js';
import { realPath, streamCopyPath } from '../../store/job-files.js';
import {
  fileIdentity,
  jobPlace,
  makerCache,
  recordJobPlace,
  sameFile,
  type FileIdentity,
  type JobPlaceRecord,
  type RemovedAs,
} from '../../store/job-places.js';
import { endedFrom, tasksOnService } from '../job/removed-place.js';
import { cacheDirectory } from '../../store/cache-dir.js';
import { heldLockHint, holderWords, lockHolder } from '../../store/lock-file.js';
import { StateDirectoryError } from '../../store/state-dir.js';
import { jobIdOf, jobStore, journalOf, newJobId } from '../job/registry.js';
import { chunkDigest, JobJournal } from './job-journal.js';
import { itemsDigest } from '../items/multiset.js';
import {
  chunkItems,
  chunkList,
  chunkNamed,
  holdsAnything,
  JobFold,
  rebuild,
  type Cover,
  type Job,
  type JobInput,
  type JobState,
} from './journal-records.js';
import { nothingSent, runPipeline } from './pipeline.js';
import { itemSources, prepareItems, type ReadOptions } from './prepare-items.js';
import { LANDING_MARGIN_MS, postTimeoutMs } from './send.js';
import { parseUserSettlement, settleInDoubt, type UserSettlement } from './settle.js';
import { hintFlags, type SubmitOptions, type Submitter } from './types.js';
import { coveringTasks, coverStands, readJobState, resumeName, standingTakeover } from './hand-over.js';
import { sameWork, stoppedSameWork, type StoppedJob } from './same-work.js';
import { isoSeconds } from '../../output/times.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { refusedAdvice, resumeCommand, spending, type JobRef } from './resume-command.js';

/** What reading a job's items uses of a run: stdin, the printer for what was skipped, and --api-key-file. */
type Reader = Pick<Output, 'io' | 'printer'> & Pick<Service, 'globals'> & Pick<Process, 'signal'>;

export interface ResumeOptions extends SubmitOptions {
  /** `--adopt CHUNK=ID`: chunk CHUNK (in flight) is task ID. */
  adopt?: string[];
  /** `--resend CHUNK`: send chunk CHUNK (in flight) again, unless the task list shows a task of it not named before. */
  resend?: string[];
  /** `--skip-refused`: the chunks whose items the service refused are left without a task; the rest is sent. */
  skipRefused?: boolean;
  /** `--no-reuse` (false): no `--reuse-window` lookup, whatever the job's. */
  reuse?: boolean;
  /** `--ignore-job JOB`: a job that took a chunk over and has not finished is not waited for (recorded in the journal). */
  ignoreJob?: string[];
  /**
   * `--forget-gone-journal`: the file this job was last run from is gone, and what its run created may be bought again
   * (recorded as the job's place, this file, once the run goes on past the money guard).
   */
  forgetGoneJournal?: boolean;
}

/** The job's chunk size without --chunk-size: one chunk. */
const ONE_CHUNK = Number.MAX_SAFE_INTEGER;

type JobOptions = Omit<
  Job,
  | 'type'
  | 'version'
  | 'id'
  | 'created_at'
  | 'inputs'
  | 'items'
  | 'items_sha256'
  | 'chunks'
  | 'retry_of'
  | 'reuse_window'
  | 'not_reusable'
>;
/** The options of a journaled create; `retryOf` when it is a retry (its prompt says `Retry`). */
type CreateJobOptions = ReadOptions & SubmitOptions & { retryOf?: Job['retry_of'] };

const verbOf = (options: CreateJobOptions): string => (options.retryOf ? 'Retry' : 'Create');

/** Where a job's journal is: `--journal FILE` (`name` as given), or the state directory (`name` is the id). */
export interface JobPlace {
  path: string;
  name: string;
  /** The state directory, when it can be written (the job's lock is there). */
  store: JobStore | undefined;
}

/**
 * Where a new job's journal goes: `--journal FILE`, else the state directory. Undefined when the state directory
 * cannot be written (a read-only HOME): warned once, and the create goes on without a journal.
 */
export function placeJob(
  ctx: Pick<Output, 'printer'> & Pick<Runtime, 'clock' | 'env'>,
  journal: string | undefined,
): JobPlace | undefined {
  const store = jobStore(ctx.env);
  let usable: JobStore | undefined = store;
  try {
    store.prepare();
  } catch (error) {
    usable = undefined;
    if (journal === undefined) {
      ctx.printer.warn(
        `cannot keep a journal in ${store.dir} (${error instanceof StateDirectoryError ? error.message : systemErrorWords(error)}): this create cannot be resumed; pass --journal FILE to make it resumable`,
      );
      return undefined;
    }
  }
  if (journal !== undefined) return { path: resolve(journal), name: journal, store: usable };
  const id = newJobId(ctx.clock.now());
  return { path: store.journalPath(id), name: id, store };
}

/**
 * Runs the job at `place`; one of the state directory whose journal or lock cannot be made as it starts (a full disk, a
 * read-only `jobs/` or `locks/`) is warned about once, as an unwritable state directory is, and false returned: the
 * caller goes on without a journal (docs/behaviour.md#jobs). Nothing was sent then: the journal is opened and locked before anything else.
 */
export async function journaledOr(
  ctx: Pick<Output, 'printer'>,
  place: JobPlace,
  run: () => Promise<void>,
): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    const { store } = place;
    if (!(error instanceof NewJobLockError) || store?.journalPath(place.name) !== place.path) throw error;
    ctx.printer.warn(
      `cannot keep a journal in ${store.dir} (${error.reason}): this create cannot be resumed; pass --journal FILE to make it resumable`,
    );
    return false;
  }
}

/**
 * The journal at `place`, locked by the id of the job it holds (a new job's id when it holds none), its records folded
 * into the job's state as they are read (`fold`; its `end()` is the state), never held. Another file of the same job
 * that this machine knows (the original of a copy, or the copy of an original) is read, and what it knows that this
 * one does not is appended here (adoptOther): either file continues what the other's run created.
 */
function openJournal(place: JobPlace, nowMs: number, elsewhere: Elsewhere, existing = false): Opened {
  let id = '';
  const fold = foldOf(place.path);
  const file = JournalFile.open(
    place.path,
    (first) => {
      id = jobIdOf(first) ?? (place.path === place.store?.journalPath(place.name) ? place.name : newJobId(nowMs));
      return place.store?.lockPath(id); // beside the file too, always: JournalFile.open
    },
    existing,
    (record) => fold.add(record),
  );
  try {
    // A file that is no journal is refused before it is recorded as a job: a refusal leaves no `jobs/ID.ref`.
    fold.refuseNotAJob();
  } catch (error) {
    file.close();
    throw error;
  }
  try {
    const other = place.store?.locate(id);
    if (other !== undefined && realPath(other) !== realPath(place.path)) adoptOther(file, fold, id, other);
    place.store?.register(id, place.path);
  } catch (error) {
    if (error instanceof JournalWriteError) {
      file.close();
      throw error;
    }
    // Not listed by `taskctl jobs`; the job itself is unharmed, and `resume FILE` still continues it.
  }
  try {
    return { file, id, fold, ...lastPlaceOf(file, fold, id, place, nowMs, elsewhere) };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** An open journal (openJournal). */
interface Opened {
  file: JournalFile;
  id: string;
  fold: JobFold;
  took: Took | undefined;
  gone: GonePlace | undefined;
  /** Found shorter than this user's runs last wrote it at that path: put back from an earlier copy (`pastRestored`). */
  restored?: Restored | undefined;
  /** Let past with the ledger's word for the lost part's chunks (`pastRestored`): types.ts `restoredUpTo`. */
  restoredUpTo?: SubmitOptions['restoredUpTo'];
}

/** How far a journal put back had got (store/job-places.ts `size`, `reached`) and its size now. */
interface Restored {
  size: number;
  was: number;
  reached: number;
}

/** The tasks a run took from the file its job was last run from: how many chunks, and that file. */
interface Took {
  chunks: number;
  from: string;
}

/** What a run says of the tasks it took from the file its job was last run from. */
const tookWords = (id: string, took: Took) =>
  `job ${id}: the tasks of ${counted(took.chunks, 'chunk')} taken from ${took.from}, where this job was last run (they are not bought again)`;

/**
 * What a run needs to find the place this user last ran the job from (store/job-places.ts): the cache directory, the
 * window within which this run looks for each chunk's task on the service before sending it (a `--reuse-window` given
 * to it), and `forget`: `resume --forget-gone-journal`.
 */
interface Elsewhere {
  cacheDir: string;
  window: number | undefined;
  /** `--no-reuse`: no lookup, not even the job's own window. */
  noReuse: boolean;
  forget: boolean;
  /** The job as this run's hints name it (its spending flags, --skip-refused, --adopt, --resend), but for its id. */
  job: Omit<JobRef, 'id'>;
  /** Its `--ignore-job` flags: a hint carries those the job has not recorded (givenFlags). */
  ignore?: readonly string[];
}

const elsewhereOf = (
  env: Runtime['env'],
  options: ResumeOptions,
  job: Omit<JobRef, 'id'> = hintFlags(options),
): Elsewhere => ({
  cacheDir: cacheDirectory(env),
  window: options.reuseWindow,
  noReuse: options.reuse === false,
  forget: options.forgetGoneJournal === true,
  job,
  ...(options.ignoreJob && { ignore: options.ignoreJob }),
});

/**
 * The file an unfinished job was last run from, gone, that a run was let past: by a window reaching back to the job's
 * start (`window`, as its hints write it), or by `--forget-gone-journal` (`forgetting`; `record` then records this file
 * as the job's place, called once the run goes on past the money guard). While the job is unfinished and not
 * forgotten, the gone file stays its place: every run of it is held to the same rule.
 */
interface GonePlace {
  path: string;
  /** The job's start (ms), which the lookup of a run let past by a window reaches back to (types.ts goneFrom). */
  from: number;
  /** The window this run looks with (given, else the job's own): a hint's window is never narrower. */
  least: number | undefined;
  forgetting: boolean;
  record?: () => void;
  /** Removed as the job ended there (store/job-places.ts `removed`), how, and the job's service: never put back. */
  removed?: { as: RemovedAs; service: string };
  /** Not gone: this very journal, put back from an earlier copy (`pastRestored`). */
  restored?: true;
}

/**
 * The other file this user last ran job `id` from, when there is one (docs/behaviour.md#jobs): a copy run under
 * another state directory (a read-only state directory's refusal advises `cp -a DIR NEW && TASKCTL_STATE_DIR=NEW
 * taskctl resume ID`), whose original is then resumed once it can be written, or from a shell without the variable.
 * No lock of this run's meets that one's, so it is looked at here: a live run holding it (a journal moved to another
 * directory while its run holds it, too) is exit 2 naming that run; what it knows better is appended here (adoptOther),
 * so this run never pays again for what that one created; gone (and not this very file under an earlier name), what
 * it created is not known here: an unfinished job is exit 2, nothing sent, unless this run looks for each chunk's task
 * on the service since the job started (a `--reuse-window` reaching back to its start) or was told to forget it
 * (`--forget-gone-journal`). Then this file is recorded as the job's last place, but while a gone one is not forgotten
 * (see GonePlace). A cache directory that cannot be written records nothing: the job itself is unharmed.
 */
function lastPlaceOf(
  file: JournalFile,
  fold: JobFold,
  id: string,
  place: JobPlace,
  nowMs: number,
  where: Elsewhere,
): Pick<Opened, 'took' | 'gone' | 'restored'> {
  const path = realPath(place.path);
  const identity = fileIdentity(path);
  let took: Took | undefined;
  let gone: GonePlace | undefined;
  let restored: Restored | undefined;
  // Where the job was last run (store/job-places.ts `jobPlace`): the record of the cache directory the journal was made
  // under, when this run has another (a copy of the state directory run with another cache directory), is the job's
  // own, read first and written too, so the original and its copies each find where the others went on. A new job: no
  // place can know it yet. With no record, the file the journal was made as, when this is a copy of it (copiedFrom).
  const home = makerCache(fold.job?.origin, where.cacheDir);
  const last: (JobPlaceRecord & { copied?: true }) | undefined =
    (file.empty ? undefined : jobPlace(where.cacheDir, id, home)) ?? copiedFrom(fold, path, identity);
  // The file the journal was made as, when it is another one: a run holding it is exit 2 naming it, whatever place the
  // record names (the original let past a gone place by the lookup records none, and a copy with another cache
  // directory shares no ledger with it).
  const origin = fold.job?.origin?.path;
  if (origin !== undefined && realPath(origin) !== path) refuseHeld(id, origin);
  // Removed as the job ended there (pruned): what that run bought is not known here, whatever file is at that path now
  // (a backup put back is not that journal).
  if (last?.removed !== undefined) gone = gonePast(id, place, last.path, nowMs, where, { removed: last.removed });
  else if (last !== undefined && realPath(last.path) !== path) {
    refuseHeld(id, last.path);
    const moved = sameFile(identity, last);
    // Another file at that path now (another job's journal, a link) is not the one that run wrote: gone as well.
    const chunks = fileIdentity(last.path) === undefined ? undefined : adoptOther(file, fold, id, last.path);
    if (chunks !== undefined) {
      if (chunks > 0) took = { chunks, from: last.path };
    } else if (!moved) gone = gonePast(id, place, last.path, nowMs, where, { copied: last.copied === true });
  } else if (
    last?.size !== undefined &&
    last.reached !== undefined &&
    (file.size < last.size || fold.reached < last.reached)
  )
    // This very path, shorter than a run of this user last wrote it, or naming fewer chunks (a copy put back, then
    // grown by a run stopped before it named them all again): put back from an earlier copy (a backup, a cache
    // restored). What was written since is not here; pastRestored decides whether the ledger still knows it.
    restored = { size: file.size, was: last.size, reached: last.reached };
  if (identity === undefined) return { took, gone, restored };
  // The records as read, then as this run last wrote them: each append's record is not read back first.
  // Each record as this run last wrote it (read once at its first write): each append's record is not read back first.
  const known = new Map<string, JobPlaceRecord>();
  const record = (size = file.size, reached = fold.reached) => {
    const place = { path, ...identity, size, reached };
    for (const cacheDir of home === undefined ? [where.cacheDir] : [where.cacheDir, home]) {
      try {
        recordJobPlace(cacheDir, id, place, known.get(cacheDir));
        known.set(cacheDir, place);
      } catch {
        // A read-only or full cache directory: nothing recorded, as the ledger there records nothing then.
      }
    }
  };
  if (gone === undefined && restored === undefined) record();
  else if (gone?.forgetting === true) gone.record = record;
  // How far the journal gets, after each record this run appends: a copy put back later is found shorter. Not while
  // the job's place is a gone file, nor, for a journal put back, until it names every chunk the lost part did.
  if (gone === undefined) {
    let reached = fold.reached;
    file.onAppend = (size, records) => {
      for (const record of records) reached = Math.max(reached, chunkNamed(record));
      if (reached >= (restored?.reached ?? 0)) record(size, reached);
    };
  }
  return { took, gone, restored };
}

/** Exit 2 naming the run that holds the journal at `journal` (its lock beside it), if one does: job `id` is in use. */
function refuseHeld(id: string, journal: string): void {
  const holder = lockHolder(`${journal}.lock`);
  if (holder === undefined) return;
  throw new UsageError(
    `job ${id} is in use by another taskctl (${holderWords(holder)}) through its journal ${journal}; nothing was sent`,
    heldLockHint(holder, `${journal}.lock`, 'Wait for that run to end, then resume the job'),
  );
}

/**
 * The file a journal was made as (its job record's `origin`), when the journal is a copy of it: at another path, with
 * another identity (a journal moved whole keeps its device, inode and birth). Asked only when no cache directory has a
 * record of the job: a copy of a state directory run with another cache directory (another machine's, or another
 * XDG_CACHE_HOME), whose original may have gone on since. Undefined for a journal of an earlier version (no origin).
 */
function copiedFrom(
  fold: JobFold,
  path: string,
  identity: FileIdentity | undefined,
): (JobPlaceRecord & { copied: true }) | undefined {
  const origin = fold.job?.origin;
  if (origin === undefined || realPath(origin.path) === path) return undefined;
  if (sameFile(identity, origin)) return undefined;
  return { ...origin, copied: true };
}

/** The journal at `place` opened (openJournal), and one put back from an earlier copy judged (pastRestored). */
async function openChecked(
  ctx: Pick<Runtime, 'clock'>,
  place: JobPlace,
  where: Elsewhere,
  existing = false,
): Promise<Opened> {
  const opened = openJournal(place, ctx.clock.now(), where, existing);
  try {
    await pastRestored(ctx, opened, place, where);
  } catch (error) {
    opened.file.close();
    throw error;
  }
  return opened;
}

/**
 * A journal put back from an earlier copy (`restored`): the chunks its lost part named may have tasks it does not
 * know. Each such chunk the ledger still holds settled with a task is taken from there when it comes to be sent
 * (send.ts `settledEarlier`); a chunk in doubt here is settled by the scan. When the ledger does not account for every
 * chunk up to the one the lost part reached, the run goes on only as one past a gone journal does (gonePast: a lookup
 * reaching back to the job's start), else nothing is sent: exit 9 (docs/behaviour.md#jobs).
 */
async function pastRestored(
  ctx: Pick<Runtime, 'clock'>,
  opened: Opened,
  place: JobPlace,
  where: Elsewhere,
): Promise<void> {
  const { restored } = opened;
  if (restored === undefined) return;
  const state = opened.fold.end();
  if (state === undefined || state.done) return;
  const { CreateLedger } = await import('../../store/ledger.js');
  const now = ctx.clock.now();
  const settled = new Set<number>();
  try {
    for (const entry of new CreateLedger(where.cacheDir, () => now).read())
      if (entry.job?.journal === opened.id && entry.state === 'created' && entry.taskId !== undefined)
        settled.add(entry.job.chunk);
  } catch {
    // No ledger to read: nothing it accounts for.
  }
  let known = true;
  for (let chunk = 1; chunk <= Math.min(restored.reached, state.job.chunks) && known; chunk++) {
    const here = state.chunks.get(chunk);
    known = here?.task !== undefined || here?.send !== undefined || here?.refused !== undefined || settled.has(chunk);
  }
  const judge = () => gonePast(opened.id, place, realPath(place.path), now, where, { restored });
  if (!known) {
    opened.gone = judge();
    return;
  }
  // The ledger names a task for each: taken when its turn comes (send.ts `settledEarlier`). A run given a window that
  // reaches back to the job's start, or told to forget, goes on as one past a gone journal (the look on the service
  // for what the ledger does not name). Else one the ledger no longer names when its turn comes (an entry expired
  // meanwhile, a task the service no longer shows as claimed) stops the run with the refusal's way on, never sent.
  let hint = "Continue with a look for each chunk's task on the service first: --reuse-window back to the job's start.";
  try {
    opened.gone = judge();
    if (opened.gone !== undefined) return;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    if (error.hint !== undefined) hint = error.hint;
  }
  opened.restoredUpTo = { chunk: Math.min(restored.reached, state.job.chunks), hint };
}

/** What a gone journal's exit 2 adds to the job's age in the window it prints. */
const GONE_WINDOW_SPARE_MINUTES = 10;
/** How often a run waiting for another run of the same work (its job's lock held) looks at that lock again. */
const HELD_JOB_POLL_MS = 250;

/**
 * Job `id` was last run from `gone`, which is no more. A finished job has nothing left to pay for: undefined (its place
 * is this file from now on). Else the run goes on only with a window reaching back to the job's start, or told to
 * forget that file; otherwise exit 2, and the way on that cannot pay twice: a resume that looks for each chunk's task
 * on the service since the job started (a task of the same items is reused, not bought).
 */
function gonePast(
  id: string,
  place: JobPlace,
  gone: string,
  nowMs: number,
  where: Elsewhere,
  why: { removed?: JobPlaceRecord['removed']; restored?: Restored; copied?: boolean } = {},
): GonePlace | undefined {
  const { removed, restored } = why;
  const state = readState(place.path);
  if (state?.done === true) return undefined;
  const started = Date.parse(state?.job.created_at ?? '');
  const age = Number.isFinite(started) ? Math.max(0, nowMs - started) : 24 * 3_600_000;
  const own = state?.job.reuse_window;
  const window = goneWindow(age, own);
  const from = nowMs - age;
  // The lookup this run makes: the window given, else the job's own (a retry's 1h, a create's --reuse-window).
  const looks = where.noReuse ? undefined : (where.window ?? own);
  const ended = {
    ...(removed !== undefined && { removed: { as: removed.as, service: state?.job.service ?? '' } }),
    ...(restored !== undefined && { restored: true as const }),
  };
  if (where.forget) return { path: gone, from, least: looks, forgetting: true, ...ended };
  if (looks !== undefined && looks >= age) return { path: gone, from, least: looks, forgetting: false, ...ended };
  // The --ignore-job flags the job has not recorded, before its --adopt and --resend.
  const ignoring = givenFlags(where.ignore ?? [], state, undefined);
  const job = { ...where.job, id: place.name, unrecorded: () => ignoring + (where.job.unrecorded?.() ?? '') };
  // A journal removed as its job ended there cannot be put back: a copy of it is not what it became.
  const what =
    restored !== undefined
      ? `job ${id}: its journal ${gone} is shorter than when this machine last wrote to it (${formatCount(restored.size)} bytes now, ${formatCount(restored.was)} then): it was put back from an earlier copy, and what was created since is not known here`
      : why.copied === true
        ? `job ${id}: its journal is a copy of ${gone}, which is not here, and this cache directory has no record of where the job went on: what was created since the copy is not known here`
        : removed === undefined
          ? `job ${id} was last run from ${gone}, which is gone: what that run created is not known here`
          : `job ${id} ${endedFrom(removed.as, gone)}, which was removed since as ${removed.as} (taskctl jobs --prune or the job-retention): the tasks that run created are not known here`;
  const back =
    restored !== undefined
      ? 'Put the later journal back, if you have it, and run this again; or'
      : why.copied === true
        ? 'Resume the job where that journal is (it knows what was created since); or'
        : removed === undefined
          ? 'Put that journal back and run this again; or'
          : `${capitalised(tasksOnService(removed.as))}:`;
  // A journal put back: the tasks made since may be on the service for chunks it says were never sent (exit 9).
  const Refusal = restored === undefined ? UsageError : CreateUnknownError;
  // No window reaches back to its start (a year at most): the ways on are that journal put back, or forgotten.
  if (window === undefined)
    throw new Refusal(
      `${what}; nothing was sent (it started ${isoSeconds(from)}, more than a year ago: no --reuse-window reaches back that far)`,
      removed === undefined
        ? `Put that journal back and run this again; or, if it is lost for good, go on without it, buying again whatever its run created of the chunks left: ${resumeCommand(job, ' --forget-gone-journal')}`
        : `To go on without it, buying again whatever its run created of the chunks left: ${resumeCommand(job, ' --forget-gone-journal')}`,
    );
  const short =
    where.window === undefined
      ? ''
      : ` (--reuse-window ${formatDuration(where.window)} does not reach back to the job's start)`;
  throw new Refusal(
    `${what}; nothing was sent${short}`,
    `${back} continue with a look for each chunk's task on the service first (one of the same items made since the job started is taken, not bought again): ${resumeCommand(job, ` --reuse-window ${window}`)}`,
  );
}

/**
 * The window a hint names for a job `age` ms old, last run from a gone file: back to its start with ten minutes to
 * spare (the command printed still reaches back to it when run a while later), never narrower than the job's own,
 * and never longer than a duration can be (a year: a longer one is refused, exit 2), the spare cut short near it.
 * Undefined for a job older than that: no window reaches back to its start.
 */
function goneWindow(age: number, own: number | undefined): string | undefined {
  const minutes = Math.max(Math.ceil(age / 60_000) + GONE_WINDOW_SPARE_MINUTES, Math.ceil((own ?? 0) / 60_000));
  if (minutes <= 120) return `${minutes}m`;
  const longest = LONGEST_DURATION_MS / 3_600_000;
  if (Math.ceil(minutes / 60) <= longest) return `${Math.ceil(minutes / 60)}h`;
  return age <= LONGEST_DURATION_MS ? `${longest}h` : undefined;
}

/** A fold of the journal at `path`, which reads it again for the rare chunk that needs it (JobFold `again`). */
function foldOf(path: string): JobFold {
  return new JobFold(path, { again: (onRecord) => readJournalRecords(path, onRecord) });
}

/**
 * Appends to `file` the outcome of every chunk the other file of job `id` knows better (a task, or a later send, and
 * another job's cover of it: a hand-over's `covered_by`, so this file knows which of its chunks that job covers, or
 * that it took the job over whole); what it appends goes to `fold` too. Both files are read again a record at a time (a
 * copy is rare; its state is what is held). Returns how many chunks it gave a task; undefined when the other file is
 * no journal of job `id` (another job's, put in its place, or a file that is no journal, such as a link or a FIFO,
 * which is never read through).
 */
function adoptOther(file: JournalFile, fold: JobFold, id: string, otherPath: string): number | undefined {
  if (file.empty) return 0;
  const mine = readState(file.path);
  let done: unknown;
  const otherFold = foldOf(otherPath);
  // The latest word on each chunk of the other file, when it is another job's cover (hand-over.ts).
  const covers = new Map<number, CoverWord>();
  let found: boolean;
  try {
    found = readJournalRecords(otherPath, (record) => {
      if (done === undefined && (record as { type?: unknown } | null)?.type === 'done') done = record;
      const chunk = (record as { chunk?: unknown } | null)?.chunk;
      if (typeof chunk === 'number') {
        const cover = coverWord(record);
        if (cover === undefined) covers.delete(chunk);
        else covers.set(chunk, cover);
      }
      otherFold.add(record);
    });
  } catch (error) {
    // Refused as no regular file (a link, a FIFO, a directory), or too large to be one of ours.
    if (error instanceof CliError) return undefined;
    throw error;
  }
  if (!found || jobIdOf(otherFold.first) !== id) return undefined;
  if (!mine) return 0;
  const other = otherFold.end();
  if (!other) return 0;
  let tasks = 0;
  const put = (record: object) => {
    file.append(record);
    fold.add(record);
  };
  for (const [chunk, theirs] of other.chunks) {
    const ours = mine.chunks.get(chunk);
    if (ours?.task) continue;
    const cover = covers.get(chunk);
    if (theirs.task) {
      const { id: task, cost, how, created_at } = theirs.task;
      const at = created_at !== undefined && { created_at };
      if (cover?.task === task && cover.by !== undefined)
        put({ type: 'reconciled', chunk, task, cost, by: cover.by, covered_by: cover.covered_by, ...at });
      else put({ type: 'created', chunk, task, cost, how, ...at });
      tasks++;
      continue;
    }
    if (theirs.send && (ours?.send === undefined || ours.send.sent_at < theirs.send.sent_at)) put(theirs.send);
    if (theirs.coveredBy !== undefined && ours?.coveredBy === undefined && cover?.reason !== undefined)
      put({ type: 'unknown', chunk, candidates: [], reason: cover.reason, covered_by: theirs.coveredBy });
  }
  if (other.done && !mine.done && typeof done === 'object' && done !== null) put(done);
  return tasks;
}

/** A record that gave a chunk another job's cover (`covered_by`): with its task (`reconciled`) or still without one. */
interface CoverWord {
  covered_by: Cover;
  /** `reconciled`: the task and how it was settled. */
  task?: number;
  by?: 'scan' | 'answer' | 'user';
  /** `unknown`: its words. */
  reason?: string;
}

/** `record`'s cover, when it is an `unknown` or `reconciled` record with a well-formed `covered_by`. */
function coverWord(record: unknown): CoverWord | undefined {
  const r = record as { type?: unknown; covered_by?: unknown; task?: unknown; by?: unknown; reason?: unknown } | null;
  const cover = r?.covered_by as { job?: unknown; chunk?: unknown; whole?: unknown } | null | undefined;
  if (typeof cover !== 'object' || cover === null) return undefined;
  if (typeof cover.job !== 'string' || typeof cover.chunk !== 'number') return undefined;
  if (cover.whole !== undefined && typeof cover.whole !== 'boolean') return undefined;
  const covered_by: Cover = {
    job: cover.job,
    chunk: cover.chunk,
    ...(cover.whole !== undefined && { whole: cover.whole }),
  };
  if (r?.type === 'unknown' && typeof r.reason === 'string') return { covered_by, reason: r.reason };
  if (
    r?.type === 'reconciled' &&
    typeof r.task === 'number' &&
    (r.by === 'scan' || r.by === 'answer' || r.by === 'user')
  )
    return { covered_by, task: r.task, by: r.by };
  return undefined;
}

/** The state of the journal at `path`, read a record at a time (undefined when it holds none). */
function readState(path: string): JobState | undefined {
  const fold = foldOf(path);
  return readJournalRecords(path, (record) => fold.add(record)) ? fold.end() : undefined;
}

/**
 * A create that may send: starts the job, or continues it when the journal has one with the same input and options.
 * `underLock` runs first once the journal's locks are held (a retry writes its items beside it there: never before,
 * when another run holding the job could be writing that copy), with the records read.
 */
export async function runJournaledCreate(
  ctx: Submitter,
  place: JobPlace,
  service: string,
  args: string[],
  options: CreateJobOptions,
  underLock?: (state: JobState | undefined) => void,
): Promise<void> {
  const { file, id, fold, took, gone } = await openChecked(ctx, place, elsewhereOf(ctx.env, options));
  if (took) ctx.printer.info(tookWords(id, took));
  const path = place.path;
  /** The job's state as this run goes on (the journal's observer keeps it): what decides whether it is kept. */
  let started: JobState | undefined;
  try {
    let state = fold.end();
    underLock?.(state);
    if (state?.done) {
      throw new UsageError(
        `the job in ${place.name} is finished`,
        `Use a new journal path for a new job (\`taskctl resume ${id}\` prints its summary).`,
      );
    }
    // Nothing of a job without a send reached the service (refused at the confirmation, killed before its first
    // request), nor of one whose sends the service answered by making nothing (a key refused): it is started again
    // as given.
    if (state && (!state.sent || !holdsAnything(state))) {
      file.restart();
      state = undefined;
    }
    const api = await ctx.api();
    const wanted: JobOptions = {
      service,
      base_url: api.baseUrl,
      account: ctx.cache.account ?? '',
      chunk_size: options.chunkSize ?? ONE_CHUNK,
      format: options.format ?? null,
      column: options.column ?? null,
      validate: options.validate !== false,
      keep_duplicates: options.keepDuplicates === true,
      skip_invalid: options.skipInvalid === true,
    };
    const given = itemSources(ctx, args, options.file);
    const job = { file, id, name: place.name, gone };
    if (state) {
      await continueGiven(ctx, job, state, { wanted, given, options });
      return;
    }
    let stopped: StoppedJob | undefined;
    const { prepared: read, record } = await startJob(ctx, job, wanted, given, options, async (record, prepared) => {
      stopped = await stoppedJobToContinue(ctx, record, prepared, options);
      return stopped !== undefined;
    });
    try {
      // Taken, this run's own journal (its job never recorded) goes at once with its locks: killed while it continues
      // that job, it would be left as an unfinished start for the user to clean.
      const discard = () => file.close(() => discardUnsent(place, id, file));
      while (stopped !== undefined) {
        const taken = await continueStopped(ctx, stopped, record, read, options, discard);
        if (taken === true) return;
        // Another run took that job between the look and its locks: waited for as the look would have (same-work.ts).
        stopped = taken === 'held' ? await stoppedJobToContinue(ctx, record, read, options) : undefined;
        if (stopped === undefined) appendJobRecord(file, record, options); // no job could be taken after all: this one starts
      }
      started = rebuild([record], path);
      if (!started) throw new Error('unreachable: the job record was just written');
      await continueJob(ctx, job, started, read, { options, verb: verbOf(options), continued: false });
    } finally {
      read.dispose();
    }
    const { pruneExpired } = await import('../jobs.js');
    await pruneExpired(ctx, place.store);
  } catch (error) {
    throw interruptedBeforeSending(ctx, error, { id, ...hintFlags(options) }, file);
  } finally {
    file.close(() => discardUnsent(place, id, file, started));
  }
}

/**
 * The stopped job of this machine that this new job is the work of again (same-work.ts), when its reuse window reaches
 * back to that job's start (`create --reuse-window`, a `retry`): this run continues it. One a live run holds (its
 * `resume`, or the same command started at the same moment) is waited for first, until that run ends (Ctrl-C or SIGTERM
 * ends the wait): then it is continued, or, finished by that run meanwhile, its tasks are taken. Without a window (a
 * plain create, `retry --no-reuse`) the items are bought afresh, and a note names the stopped job, whose `resume` would
 * buy them again.
 */
async function stoppedJobToContinue(
  ctx: Pick<Submitter, 'env' | 'clock' | 'printer' | 'signal'>,
  record: Job,
  items: PreparedItems,
  options: CreateJobOptions,
): Promise<StoppedJob | undefined> {
  const store = jobStore(ctx.env);
  const window = options.reuseWindow;
  if (window === undefined) {
    const [newest] = stoppedSameWork(store, record, items).filter((found) => found.runner === undefined);
    if (newest !== undefined)
      ctx.printer.notice(
        `job ${newest.id}, started ${isoSeconds(newest.startedMs)} and stopped part-way, holds the same items in the same chunks: this run buys them afresh (\`taskctl resume ${newest.id}\` would buy its rest again; \`taskctl jobs\` lists it)`,
      );
    return undefined;
  }
  const since = ctx.clock.now() - window;
  const told = new Set<string>();
  let waited: StoppedJob | undefined;
  for (;;) {
    if (waited !== undefined && store.runner(waited.id, waited.path) === undefined) {
      // Its run ended: the job is taken as it is now, finished by that run included (its tasks are this run's).
      const state = readJobState(waited.path, waited.id);
      const { runner: _ended, ...job } = waited;
      if (state !== undefined && sameWork(store, state, record, items, true)) return job;
      waited = undefined; // not that work any more (a chunk refused, taken over whole): looked for again
    }
    if (waited === undefined) {
      const [newest] = stoppedSameWork(store, record, items, since);
      if (newest?.runner === undefined) return newest;
      waited = newest;
      if (!told.has(newest.id)) {
        told.add(newest.id);
        // Said even with -q, as every wait is: the run is not stuck.
        ctx.printer.notice(
          `job ${newest.id}, started ${isoSeconds(newest.startedMs)}, holds the same items in the same chunks, and another taskctl run (${holderWords(newest.runner)}) is running it: waiting for that run to end, to take that job instead of buying its items again`,
        );
      }
    }
    await ctx.clock.sleep(HELD_JOB_POLL_MS, ctx.signal);
  }
}

/**
 * Continues the stopped job as its `resume` would, with this run's items (the same, chunk by chunk: checked again under
 * its locks) and options; a job finished meanwhile (by a run that held it) has its tasks taken, as its `resume` prints
 * its summary. False when it cannot be taken (it changed): this run starts its own; `held` when a run took it between
 * the look and its locks (it is waited for again). `taken`: called once it is taken, before anything is sent.
 */
async function continueStopped(
  ctx: Submitter,
  stopped: StoppedJob,
  record: Job,
  items: PreparedItems,
  options: CreateJobOptions,
  taken: () => void,
): Promise<boolean | 'held'> {
  const store = jobStore(ctx.env);
  let opened: Opened;
  try {
    opened = openJournal(
      { path: stopped.path, name: stopped.id, store },
      ctx.clock.now(),
      elsewhereOf(ctx.env, options),
      true,
    );
  } catch {
    return store.runner(stopped.id, stopped.path) === undefined ? false : 'held';
  }
  const { file, id, fold } = opened;
  try {
    await pastRestored(ctx, opened, { path: stopped.path, name: stopped.id, store }, elsewhereOf(ctx.env, options));
    const { gone } = opened;
    const state = fold.end();
    if (state === undefined || id !== stopped.id || !sameWork(store, state, record, items, true)) return false;
    taken();
    // Said even with -q: the job line that follows names that job, not a new one.
    ctx.printer.notice(
      state.done
        ? `job ${id}, started ${isoSeconds(stopped.startedMs)}, was finished by the run waited for: the same items in the same chunks, so its tasks are this run's and nothing is bought again (taskctl wait --job ${id} waits for them)`
        : `continuing job ${id}, started ${isoSeconds(stopped.startedMs)} and stopped part-way: the same items in the same chunks (what it created is not bought again)`,
    );
    await continueJob(ctx, { file, id, name: id, gone }, state, items, {
      options: goneLookup(options, gone, opened.restoredUpTo),
      verb: verbOf(options),
      continued: true,
      takes: true,
    });
    return true;
  } catch (error) {
    throw interruptedBeforeSending(ctx, error, { id, ...hintFlags(options) }, file);
  } finally {
    file.close();
  }
}

/**
 * Ctrl-C (or SIGTERM) that no stage turned into words of its own: it came while the input, the price, the
 * confirmation or a chunk in doubt was read, so this run sent nothing. A job of which nothing was ever sent is
 * discarded, or started afresh by the same command: it is run again. Any other job is continued (docs/behaviour.md#jobs).
 */
function interruptedBeforeSending(
  ctx: Pick<Process, 'signal'>,
  error: unknown,
  job: JobRef,
  file: JournalFile,
): unknown {
  if (!ctx.signal.aborted || error instanceof CliError) return error;
  if (!file.holds('send')) return nothingSent(ctx, error);
  return new InterruptedError('interrupted before this run sent anything', `Continue it with: ${resumeCommand(job)}`);
}

/**
 * A job of the state directory of which nothing was sent (declined, refused by --max-cost, bad input), or whose sends
 * the service answered by making nothing (a key refused), is removed: nothing of it is on the service, and `resume`
 * must not offer to send what the user did not want sent.
 */
function discardUnsent(place: JobPlace, id: string, file: JournalFile, state?: JobState): void {
  const { store } = place;
  if (store?.journalPath(id) !== place.path) return;
  // One that reused a task (`created`, no send) is a job too: its hint names it, and a job it superseded points to it.
  // One whose sends the service answered by making nothing (a key refused) has nothing to resume: it goes too.
  if (file.holds('created') || (file.holds('send') && (state === undefined || holdsAnything(state)))) return;
  try {
    store.remove({ id, path: place.path, own: true });
  } catch {
    // Left as a job that sent nothing.
  }
}

/** An open job: its journal, its id, and its name as the user gave it (the id for a journal in the state directory). */
interface OpenJob {
  file: JournalFile;
  id: string;
  name: string;
  /** The file it was last run from, gone, that this run was let past (lastPlaceOf). */
  gone?: GonePlace | undefined;
}

/** The same create run again: the same options and the same bytes (read again and compared), then continued. */
async function continueGiven(
  ctx: Submitter,
  job: OpenJob,
  state: JobState,
  given: { wanted: JobOptions; given: ItemSource[]; options: CreateJobOptions },
): Promise<void> {
  const { wanted, options } = given;
  const mismatch = (what: readonly string[]) => otherJob(job, what, false);
  // The service and key first, as for `resume`: another key may be the job's account once proved
  // (docs/behaviour.md#a-rotated-api-key).
  await requireJobAccount(ctx, await ctx.api(), state, jobLabel(job), `resume ${shellWord(job.id)}`);
  const { account: _account, base_url: _baseUrl, ...compared } = wanted;
  const differs = (Object.keys(compared) as Array<keyof typeof compared>).filter(
    (key) => compared[key] !== state.job[key],
  );
  if (differs.length > 0) throw mismatch(differs.map(describeOption));
  const read = await readWithDigests(ctx, state.job.service, given.given, options, { asRecorded: true });
  try {
    const changed = compareInputs(state.job.inputs, given.given, read.digests);
    if (changed.length > 0) throw mismatch(changed);
    checkItems(state.job, read.prepared, mismatch);
    await continueJob(ctx, job, state, read.prepared, { options, verb: verbOf(options), continued: true });
  } finally {
    read.prepared.dispose();
  }
}

/**
 * A new job: stdin, arguments and every `-f` input that is not a regular file (a pipe such as `<(cmd)`, a FIFO, a
 * device; told by fstat when it is opened) are copied beside the journal as they stream, so a resume can read them
 * back (docs/behaviour.md#resume). A copy is closed on every path: a read that fails part-way leaves no descriptor of
 * it behind.
 */
async function startJob(
  ctx: Reader & Pick<Runtime, 'clock' | 'env'>,
  job: OpenJob,
  wanted: JobOptions,
  given: readonly ItemSource[],
  options: CreateJobOptions,
  hold?: (record: Job, prepared: PreparedItems) => Promise<boolean>,
): Promise<{ prepared: PreparedItems; record: Job; held: boolean }> {
  const { path } = job.file;
  const copies = new Map<number, InputCopy>();
  try {
    const sources = given.map((source, index): ItemSource => {
      if (source.kind === 'stdin') copies.set(index, new InputCopy(`${path}.input`));
      if (source.kind === 'args') return writeArgsCopy(`${path}.args`, source.values);
      return source;
    });
    // Streams are numbered in the order opened: FILE.input-1, FILE.input-2, … (store/job-files.ts finds them so).
    let streams = 0;
    const onOpen = (index: number, regular: boolean) => {
      if (!regular) copies.set(index, new InputCopy(streamCopyPath(path, ++streams)));
    };
    const read = await readWithDigests(ctx, wanted.service, sources, options, { copies, onOpen });
    try {
      for (const copy of copies.values()) copy.finish();
      const inputs = sources.map((source, index): JobInput => {
        const digest = read.digests[index] ?? { size: 0, sha256: '' };
        const copy = copies.get(index);
        if (source.kind === 'stdin' && copy) {
          return { kind: 'stdin', path: copy.path, format: options.format ?? 'lines', ...digest };
        }
        if (source.kind !== 'file') throw new Error('unreachable: sources are files or stdin here');
        const format = source.format ?? options.format ?? formatFromPath(source.path);
        if (copy) return { kind: 'stream', path: copy.path, from: resolve(source.path), format, ...digest };
        const kind = source.arguments ? 'args' : 'file';
        return { kind, path: resolve(source.path), format, ...digest };
      });
      const record = recordJob(ctx, job, { wanted, inputs, prepared: read.prepared, options });
      // Another job's work again (same-work.ts): nothing of this one is recorded, and it is discarded as unsent.
      const held = (await hold?.(record, read.prepared)) === true;
      if (!held) appendJobRecord(job.file, record, options);
      return { prepared: read.prepared, record, held };
    } catch (error) {
      read.prepared.dispose();
      throw error;
    }
  } finally {
    for (const copy of copies.values()) copy.close();
  }
}

/**
 * Appends the job record, the first write of a new job's journal. It is written once the input is read (stdin is gone
 * then), so a full disk here cannot go on without a journal as one met at the lock does: exit 14, saying that nothing
 * was sent and to run the same command again once there is room (docs/behaviour.md#jobs).
 */
function appendJobRecord(file: JournalFile, record: Job, options: CreateJobOptions): void {
  try {
    file.append(record);
  } catch (error) {
    if (!(error instanceof JournalWriteError)) throw error;
    throw new JournalWriteError(
      `${error.message}; nothing was sent`,
      `Nothing of this ${verbOf(options).toLowerCase()} reached the service: free space in ${dirname(file.path)} (or pass --journal FILE on another disk), then run the same command again.`,
    );
  }
}

/** The job record (appended, fsynced, before any chunk is priced or sent). */
function recordJob(
  ctx: Pick<Runtime, 'clock' | 'env'>,
  { id, file }: OpenJob,
  job: { wanted: JobOptions; inputs: JobInput[]; prepared: PreparedItems; options: CreateJobOptions },
): Job {
  const { wanted, prepared, options } = job;
  const chunks = Math.ceil(prepared.count / wanted.chunk_size);
  const most = maxJobChunks();
  // A journal that could outgrow what is read back would leave a job that cannot be resumed (docs/behaviour.md#records).
  if (chunks > most) {
    throw new UsageError(
      `${formatCount(chunks)} chunks are more than the ${formatCount(most)} a job can journal; nothing was sent`,
      `Pass --chunk-size ${formatCount(Math.ceil(prepared.count / most))} or more, or split the input into several jobs.`,
    );
  }
  const path = realPath(file.path);
  const identity = fileIdentity(path);
  const record: Job = {
    type: 'job',
    version: 1,
    id,
    created_at: new Date(ctx.clock.now()).toISOString(),
    ...wanted,
    inputs: job.inputs,
    items: prepared.count,
    items_sha256: prepared.digest,
    chunks,
    ...(options.retryOf && { retry_of: options.retryOf }),
    ...(options.reuseWindow !== undefined && {
      reuse_window: options.reuseWindow,
      ...(options.notReusable !== undefined && { not_reusable: [...options.notReusable] }),
    }),
    ...(identity !== undefined && { origin: { path, ...identity, cache: resolve(cacheDirectory(ctx.env)) } }),
  };
  return record;
}

/** `taskctl resume ID|FILE`: continues the job from the journal's inputs, checked against their recorded size and digest. */
export async function runResume(
  ctx: Submitter,
  given: string | undefined,
  options: ResumeOptions,
  followed: ReadonlySet<string> = new Set(),
): Promise<void> {
  const settling = [
    ...(options.adopt ?? []).map((adopt) => `--adopt ${adopt}`),
    ...(options.resend ?? []).map((resend) => `--resend ${resend}`),
  ];
  const arg = given ?? (await onlyInterrupted(ctx, settling));
  if (arg === undefined) return;
  const by = await resumeOne(ctx, arg, options);
  if (by === undefined) return;
  // Taken over whole by a re-run of the same items (hand-over.ts): its chunks are that job's; continuing it is
  // continuing this one, and nothing is sent twice.
  if (followed.has(by.job)) throw new UsageError(`job ${arg} was taken over by job ${by.job}, which it took over`);
  // The takeover stands on this job's own journal (the chunk's task is recorded here), so its taker's journal may be
  // gone: pruned once finished, or the taker of a `--journal FILE` job, which is never pruned (jobs.ts pruneJobs).
  const store = jobStore(ctx.env);
  // Run under another state directory sharing this cache directory (JobStore.find): continued from its journal there.
  const taker = store.locate(by.job) === undefined ? store.find(by.job) : by.job;
  if (taker === undefined)
    throw new UsageError(
      `job ${by.from} was taken over by job ${by.job} (the same items, the same chunks), which is not in this state directory (pruned once finished, or run under another TASKCTL_STATE_DIR): nothing was sent`,
      `Its tasks are that job's: run \`taskctl resume ${by.job}\` where it is kept, or see them with \`taskctl list\`.`,
    );
  ctx.printer.info(
    `job ${by.from} was taken over by job ${by.job} (the same items, the same chunks): its chunks are that job's; continuing job ${by.job}`,
  );
  await runResume(ctx, taker, options, new Set([...followed, by.from]));
}

/** One resume; the job that took this one over whole, when it was (its own resume is the way on). */
async function resumeOne(
  ctx: Submitter,
  arg: string,
  options: ResumeOptions,
): Promise<{ from: string; job: string } | undefined> {
  const path = resolve(journalOf(ctx.env, arg));
  const store = jobStore(ctx.env);
  let place: JobPlace = { path, name: arg, store };
  try {
    store.prepare();
  } catch {
    place = { ...place, store: undefined }; // locked beside the journal instead
  }
  // Its hints name this very resume: its spending flags, and --adopt and --resend (its exit 2 for a gone journal too).
  const thisResume: Omit<JobRef, 'id'> = {
    refused: options.skipRefused === true,
    ...hintFlags(options),
    unrecorded: () =>
      [
        ...(options.adopt ?? []).map((a) => ` --adopt ${a}`),
        ...(options.resend ?? []).map((c) => ` --resend ${c}`),
      ].join(''),
  };
  let opened: Opened;
  try {
    // A resume never makes a journal.
    opened = await openChecked(ctx, place, elsewhereOf(ctx.env, options, thisResume), true);
  } catch (error) {
    throw error instanceof JobUnwritableError ? goOnElsewhere(error, store, path, thisResume) : error;
  }
  const { file } = opened;
  if (opened.took) ctx.printer.info(tookWords(opened.id, opened.took));
  // Until the run names the job itself (`hints`), every flag given is carried (--ignore-job until the job records it).
  let folded: JobState | undefined;
  let unrecorded = () => givenFlags(options.ignoreJob ?? [], folded, opened.gone) + (thisResume.unrecorded?.() ?? '');
  try {
    const state = (folded = opened.fold.end());
    if (!state)
      // The job record goes to disk before any chunk is sent: a create killed before it sent nothing.
      throw new UsageError(
        `${arg} holds no job (a create stopped before recording one sent nothing)`,
        'Nothing of it was sent: run the create again.',
      );
    // A takeover by a run that stopped before sending is void: this job goes on by itself.
    const over = standingTakeover(store, state);
    if (over !== undefined) return { from: opened.id, job: over };
    const job = { ...opened, name: arg };
    const mismatch = (what: readonly string[]) => otherJob(job, what, true);
    const api = await ctx.api();
    // Another service or key: no input of the job to put back; the hint names the profile that holds its account.
    await requireJobAccount(ctx, api, state, jobLabel(job), `resume ${shellWord(arg)}`);
    const run = {
      options: goneLookup(reuseOf(state.job, options), opened.gone, opened.restoredUpTo),
      verb: 'Resume',
      continued: true,
      hints: (self: JobRef) => (unrecorded = self.unrecorded ?? unrecorded),
    };
    // A finished job's inputs are not read again: its summary (and --wait) need only the journal.
    if (state.done) {
      await continueJob(ctx, job, state, { count: state.job.items, chunks: () => [] }, run);
      return;
    }
    checkSizes(state.job, job, mismatch);
    const read = await readWithDigests(ctx, state.job.service, jobSources(state.job), readOptionsOf(state.job), {
      asRecorded: true,
    });
    try {
      const changed = state.job.inputs
        .filter((input, i) => read.digests[i]?.sha256 !== input.sha256)
        .map((input) => `the content of ${input.path}`);
      if (changed.length > 0) throw mismatch(changed);
      checkItems(state.job, read.prepared, mismatch);
      await continueJob(ctx, job, state, read.prepared, run);
    } finally {
      read.prepared.dispose();
    }
  } catch (error) {
    // A run past refused chunks keeps its --skip-refused in the hint (a no-op on a job without them).
    const self = {
      id: opened.id,
      refused: options.skipRefused === true,
      ...hintFlags(options),
      unrecorded,
      ...(opened.gone?.forgetting === false && { gone: goneRef(ctx, opened.gone) }),
    };
    throw interruptedBeforeSending(ctx, error, self, file);
  } finally {
    file.close();
  }
}

/**
 * What the hints of a run let past a gone journal by a window carry: its path, and the window reaching back to the
 * job's start when the hint is printed (never narrower than this run's), without which a resume is refused (exit 2).
 */
function goneRef(ctx: Pick<Runtime, 'clock'>, gone: GonePlace): NonNullable<JobRef['gone']> {
  return {
    path: gone.path,
    window: () => goneWindow(Math.max(0, ctx.clock.now() - gone.from), gone.least),
    ...(gone.removed && { removed: { ...gone.removed, since: isoSeconds(gone.from) } }),
  };
}

const capitalised = (words: string) => `${words.charAt(0).toUpperCase()}${words.slice(1)}`;

/** A run let past a gone journal by a window: its lookup reaches back to the job's start (types.ts goneFrom). */
function goneLookup<T extends SubmitOptions>(
  options: T,
  gone: GonePlace | undefined,
  restoredUpTo?: SubmitOptions['restoredUpTo'],
): T {
  const looked =
    gone?.forgetting === false && options.reuseWindow !== undefined ? { ...options, goneFrom: gone.from } : options;
  return restoredUpTo === undefined ? looked : { ...looked, restoredUpTo };
}

/**
 * The lookup a resume makes before each chunk it sends: the job's own `--reuse-window` (and the tasks it never reuses),
 * as its first run made it, so a chunk whose items have a task is not paid again; `--reuse-window` replaces the
 * window (a shorter one the list covers, after a walk stopped by its page bound), `--no-reuse` drops the lookup.
 */
function reuseOf(job: Job, options: ResumeOptions): ResumeOptions {
  if (options.reuse === false && options.reuseWindow !== undefined)
    throw new UsageError('--no-reuse and --reuse-window contradict each other', 'Pass one of them.');
  if (options.reuse === false) return { ...options, reuseWindow: undefined };
  const reuseWindow = options.reuseWindow ?? job.reuse_window;
  if (reuseWindow === undefined) return options;
  return {
    ...options,
    reuseWindow,
    jobWindow: true,
    ...(job.not_reusable && { notReusable: new Set(job.not_reusable) }),
  };
}

/**
 * A started job whose journal or lock cannot be written here: where it can go on, with exactly-once kept. No permission:
 * as a user who can write there (its owner may be running it: a copy elsewhere would not meet that run's locks). A
 * read-only file system: no run can write the journal or the locks there, so nothing runs the job there meanwhile; it
 * goes on from a copy that can be written, and from then on only there (the read-only place cannot record what the
 * copy sends: continued from both, each would send what the other does not know of). The state directory read-only:
 * a writable copy of all of it, which keeps the job's id, its lock and its journal in one place. Else (a --journal FILE
 * on a read-only file system): a copy of the journal, locked by the job's id in this state directory, which then
 * names the copy as the job's journal.
 */
function goOnElsewhere(
  error: JobUnwritableError,
  store: JobStore,
  journal: string,
  resume: Omit<JobRef, 'id'>,
): UsageError {
  const { where } = error;
  const stateDir = store.dir;
  const inState = (path: string) => path.startsWith(`${stateDir}${sep}`);
  if (where.code !== 'EROFS') {
    const dir = inState(where.path) ? stateDir : dirname(where.path);
    return new UsageError(
      error.message,
      `Resume it as a user who can write ${dir} (another run of the job would not meet this one's lock elsewhere).`,
    );
  }
  if (inState(where.path)) {
    // By its id when this state directory knows the job (a copy of a journal it holds would be a second place).
    const id = basename(where.path)
      .replace(/\.lock$/, '')
      .replace(/\.jsonl$/, '');
    const job = store.locate(id) === undefined ? journal : id;
    return new UsageError(
      `${error.message} (the state directory ${stateDir} is read-only)`,
      `Continue it from a writable copy of the state directory, and use only that one for this job from now on: cp -a ${shellWord(stateDir)} NEW && TASKCTL_STATE_DIR=NEW ${resumeCommand({ ...resume, id: job })}`,
    );
  }
  return new UsageError(
    error.message,
    `Continue it from a copy in a directory you can write, and only from there from now on (a copy is the same job): cp ${shellWord(journal)} DIR/ && ${resumeCommand({ ...resume, id: `DIR/${basename(journal)}` })}`,
  );
}

/**
 * `resume` without an argument: the one interrupted job of the current profile and base URL; none is said (exit 0),
 * several are listed (exit 2). `settling`: its `--adopt`/`--resend` flags, which name chunks of a job: with none to
 * resume they are exit 2, never dropped.
 */
async function onlyInterrupted(
  ctx: Pick<Output, 'printer'> & Pick<Process, 'signal'> & Runtime & Store,
  settling: readonly string[],
): Promise<string | undefined> {
  const { otherKeyNote, readJobs, splitJobs } = await import('../jobs.js');
  const split = await splitJobs(ctx, readJobs(jobStore(ctx.env), cacheDirectory(ctx.env)), false);
  // A job stopped at a refused chunk is one too: its resume says how to go past the chunk.
  const resumable = (job: { state: string }) => job.state === 'interrupted' || job.state === 'refused';
  const jobs = split.current.filter((job) => resumable(job) || job.state === 'unreadable');
  const [only] = jobs;
  // Stopped while it looked (reading the journals can take a while): the signal's exit code, never "none" or a list
  // as if it had concluded. One job found goes on to the check of its own, which names it. The journals are read
  // without a pause, so a signal that came meanwhile is heard once the event loop turns.
  await new Promise((resolve) => setImmediate(resolve));
  if (ctx.signal.aborted && (jobs.length !== 1 || only === undefined || !resumable(only)))
    throw interruptedBeforeSend(
      'no job was resumed',
      '`taskctl jobs` lists the interrupted jobs; `taskctl resume` continues the only one.',
    );
  if (only === undefined && settling.length > 0) {
    const flags = settling.join(' ');
    throw new UsageError(
      `${flags} ${settling.length === 1 ? 'needs' : 'need'} a job: there is no interrupted job to resume`,
      `Name the job ${settling.length === 1 ? 'it is' : 'they are'} for: taskctl resume ID ${flags} (\`taskctl jobs\` lists them).`,
    );
  }
  if (only === undefined) {
    ctx.printer.info('no interrupted job to resume (`taskctl jobs` lists them)');
    // Never hidden without a word: after a key change those are the user's to continue.
    const others = split.otherKey.filter(resumable).length;
    if (others > 0) ctx.printer.info(otherKeyNote(others, 'interrupted job'));
    return undefined;
  }
  if (jobs.length === 1 && resumable(only)) return only.id;
  // A job whose journal cannot be read may be interrupted: never "no job", never another one guessed in its place.
  const unreadable = jobs.filter((job) => job.state === 'unreadable');
  const listed = jobs
    .slice(0, 10)
    .map((job) =>
      job.state === 'unreadable'
        ? `${job.id} (its journal ${job.journal} cannot be read)`
        : `${job.id} (${job.service}, ${job.chunks_created} of ${counted(job.chunks, 'chunk')}, started ${job.started})`,
    );
  const interrupted = jobs.length - unreadable.length;
  const what =
    unreadable.length === 0
      ? counted(jobs.length, 'interrupted job')
      : `${counted(jobs.length, 'job')} that may be interrupted (${interrupted} interrupted)`;
  throw new UsageError(
    `${what}: ${listed.join('; ')}${jobs.length > 10 ? '; …' : ''}`,
    'Name the one to continue: taskctl resume ID (`taskctl jobs` lists them, and says why a journal cannot be read).',
  );
}

function checkSizes(job: Job, open: OpenJob, mismatch: (what: readonly string[]) => UsageError): void {
  for (const input of job.inputs) {
    let size: number;
    try {
      size = inputSize(input.path);
    } catch (error) {
      throw unreadableInput(open, input, error);
    }
    if (size !== input.size) {
      throw mismatch([
        `${input.path} (${formatCount(size)} bytes now, ${formatCount(input.size)} when the job started)`,
      ]);
    }
  }
}

/**
 * An input of the job that cannot be read now, named as what it is (the user's file, or the copy of stdin or of the
 * arguments kept beside the journal) with the way back: the same bytes at the same path.
 */
function unreadableInput(open: OpenJob, input: JobInput, error: unknown): UsageError {
  const copied = { stdin: 'stdin', args: 'the arguments', stream: input.from ?? 'its input' };
  const what = input.kind === 'file' ? 'its input' : `its copy of ${copied[input.kind]}`;
  const tasks = `its tasks so far: taskctl show --job ${open.id}`;
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return new UsageError(
      `job ${open.id} cannot be continued: ${what} ${input.path} is missing; nothing was sent`,
      input.kind === 'file'
        ? `Put the file back at ${input.path} as it was when the job started (the same bytes), or link it there from where the job's items are now, then resume it; ${tasks}`
        : `Put it back at that path (it was written beside the journal when the job started), then resume it; ${tasks}`,
    );
  }
  return new UsageError(
    `job ${open.id} cannot be continued: cannot read ${what} ${input.path} (${systemErrorWords(error)}); nothing was sent`,
    `Make ${input.path} readable as it was when the job started, then resume it; ${tasks}`,
  );
}

function jobSources(job: Job): ItemSource[] {
  return job.inputs.map((input): ItemSource => ({
    kind: 'file',
    path: input.path,
    format: input.format,
    ...(input.kind === 'args' && { arguments: true }),
  }));
}

function readOptionsOf(job: Job): ReadOptions {
  return {
    ...(job.format !== null && { format: job.format }),
    ...(job.column !== null && { column: job.column }),
    validate: job.validate,
    keepDuplicates: job.keep_duplicates,
    skipInvalid: job.skip_invalid,
  };
}

/**
 * The job through the pipeline, with the journal as its observer. Before any request: the chunks in doubt are
 * checked against their send records and --adopt/--resend against the job, and the first line says where it stands.
 */
async function continueJob(
  ctx: Submitter,
  open: OpenJob,
  state: JobState,
  items: ItemList,
  run: {
    options: ResumeOptions;
    verb: string;
    continued: boolean;
    /** A create or retry that took this job (same-work.ts): its tasks so far are printed as this run's. */
    takes?: boolean;
    /** Told the job as this run's later hints name it, once it is known (a refusal the caller words names it so). */
    hints?: (self: JobRef) => void;
  },
): Promise<void> {
  const { job } = state;
  const { file, id } = open;
  const journal = new JobJournal(file, state, id, (await postTimeoutMs(ctx)) + LANDING_MARGIN_MS, ctx.env);
  const doubt = state.done
    ? new Map<number, string[]>()
    : chunksInDoubt(journal, items, (what) => otherJob(open, what, run.verb === 'Resume'));
  const flags = hintFlags(run.options);
  const ignore = run.options.ignoreJob ?? [];
  const { gone } = open;
  // The job as the refusals before anything is sent name it: nothing recorded yet, so every flag given is carried.
  const early: Omit<JobRef, 'id' | 'refused'> = {
    ...flags,
    unrecorded: () => givenFlags(ignore, state, gone),
    ...(gone?.forgetting === false && { gone: goneRef(ctx, gone) }),
  };
  const user = parseUserSettlement(journal, run.options, early);
  const skip = skipRefused(ctx, journal, { id, user, early }, run.options.skipRefused === true);
  if (gone?.forgetting === true) {
    ctx.printer.warn(
      gone.restored === true
        ? `job ${id}: its journal was put back from an earlier copy: what was created since is forgotten (--forget-gone-journal), and its chunks without a task here are sent again`
        : `job ${id} was last run from ${gone.path}, which is gone: what that run created is forgotten (--forget-gone-journal), and its chunks without a task here are sent again`,
    );
    journal.whenGoingOn(' --forget-gone-journal', gone.record ?? (() => undefined));
  }
  // The `--ignore-job` flags this run needs: until the walk of the job's takers has said, every one given; then only
  // those naming a job it would otherwise wait for (a flag it did not need would be carried by every later hint).
  let needed: readonly string[] = ignore;
  // What settling the chunks in doubt names the job with: the flags this run carries but the user's --adopt/--resend,
  // of which its verdicts say which a command carries (an --adopt instead of a --resend that found a task).
  const carried = () => givenFlags(needed, state, undefined) + journal.unrecorded();
  // The job as every other hint of this run names it: a run told how to spend (-y, --max-cost) prints a resume told so
  // too, and one told to pass a job over (--ignore-job) or to forget a gone journal too, until the job records it
  // (once the run goes on past the money guard: job-journal.ts `ignore`, `whenGoingOn`); the user's --adopt/--resend
  // until the journal takes each (--max-cost and the confirmation refuse before any is; a Ctrl-C may come while one is
  // read).
  const self: JobRef = {
    id,
    refused: skip.size > 0,
    ...flags,
    unrecorded: () => carried() + unsettledFlags(journal, user),
    ...(gone?.forgetting === false && { gone: goneRef(ctx, gone) }),
  };
  run.hints?.(self);
  const covering = state.done
    ? ignoredStranger(ctx, state, self, ignore, new Set())
    : fromCoveringJobs(ctx, journal, items, { user, skip, self, ignore });
  // Before the first line: it would say what is sent next right before a refusal to send anything.
  if ('error' in covering) throw covering.error;
  needed = ignore.filter((job) => covering.ignored.some((ignored) => ignored.job === job));
  // The first line names the job (not with -q: the first task created does then, alone).
  const named = run.continued && ctx.globals.quiet !== true;
  if (named) {
    const stands = (cover: Cover) => coverStands(jobStore(ctx.env), cover);
    ctx.printer.info(standing(journal, user, { name: id, skip, stands, taken: covering.taken }));
  }
  for (const { chunk, task, cover } of covering.taken) {
    journal.covered(chunk, task, cover);
    ctx.printer.info(`chunk ${chunk}: task ${task.id} of job ${cover.job} (its chunk ${cover.chunk}) covers its items`);
  }
  for (const { job: other, chunks, theirs } of covering.ignored) {
    journal.ignore(other);
    ctx.printer.warn(
      `job ${other}, which took over items of this job, has not finished: ${plainChunks(chunks)} ${chunks.length === 1 ? 'is' : 'are'} sent without waiting for it (--ignore-job); its ${plainChunks(theirs)} may hold the same items: \`${resumeCommand({ id: other })}\` would then pay for them again`,
    );
  }
  await runPipeline(
    ctx,
    {
      batches: [{ service: job.service, items }],
      done: journal.done,
      skip,
      adopted: new Set(user.adopt.map((adoption) => adoption.chunk)),
      observer: journal,
      job: { ...self, name: open.name },
      named,
      verb: run.verb,
      ...(run.takes === true && { takes: true }),
      settle: (api, send) =>
        settleInDoubt(ctx, api, send, {
          journal,
          items: doubt,
          user,
          name: id,
          flags,
          unrecorded: carried,
          ...(self.gone && { gone: self.gone }),
        }),
    },
    { ...run.options, ...(job.chunk_size !== ONE_CHUNK && { chunkSize: job.chunk_size }) },
  );
}

/**
 * The `--ignore-job` flags given that the job's journal has not recorded (yet), and `--forget-gone-journal` when it was
 * given and needed (`gone`), as a hint's command carries them.
 */
function givenFlags(ignore: readonly string[], state: JobState | undefined, gone: GonePlace | undefined): string {
  const ignoring = ignore
    .filter((job) => state?.ignored?.includes(job) !== true)
    .map((job) => ` --ignore-job ${shellWord(job)}`)
    .join('');
  return `${ignoring}${gone?.forgetting === true ? ' --forget-gone-journal' : ''}`;
}

/**
 * A job some of whose chunks other jobs took over (hand-over.ts): those jobs may have created its other items too (a
 * re-run of other items, or in other chunks, or taken over while another chunk of this job was in doubt). Each chunk
 * with no task yet whose items are a chunk of theirs with a task (the same items digest) is given that task, never
 * sent again. While one of them has not finished and may still create the items of a chunk left (`coveringTasks`),
 * nothing is sent (exit 9: settle that job first, or `--ignore-job` it, recorded here so that it stays decided, when it
 * is not running). Chunks in doubt handed over themselves, or settled by the user (--adopt, --resend), are settled as
 * before.
 */
function fromCoveringJobs(
  ctx: Pick<Submitter, 'env'>,
  journal: JobJournal,
  items: ItemList,
  {
    user,
    skip,
    self,
    ignore,
  }: { user: UserSettlement; skip: ReadonlySet<number>; self: JobRef; ignore: readonly string[] },
): { taken: Taken[]; ignored: Ignored[] } | { error: CliError } {
  const { state } = journal;
  if (state.takenOver === undefined) return ignoredStranger(ctx, state, self, ignore, new Set());
  const store = jobStore(ctx.env);
  const byUser = new Set([...user.adopt.map((a) => a.chunk), ...user.resend]);
  const open = (chunk: number) => {
    const known = state.chunks.get(chunk);
    if (journal.done.has(chunk) || skip.has(chunk) || byUser.has(chunk) || known?.refused !== undefined) return false;
    return known?.coveredBy === undefined || !coverStands(store, known.coveredBy);
  };
  const left = new Set<number>();
  for (let chunk = 1; chunk <= state.job.chunks; chunk++) if (open(chunk)) left.add(chunk);
  if (left.size === 0) return ignoredStranger(ctx, state, self, ignore, new Set());
  // The items of each chunk left, read once: what another job's chunk must hold to be its task, or to be waited for.
  const digests = new Map<string, number[]>();
  const counts = new Map<number, number[]>();
  const digestOf = new Map<number, string>();
  let chunk = 0;
  for (const list of items.chunks(state.job.chunk_size)) {
    if (!left.has(++chunk)) continue;
    const digest = itemsDigest(list);
    digestOf.set(chunk, digest);
    const same = digests.get(digest) ?? [];
    if (same.length === 0) digests.set(digest, same);
    same.push(chunk);
    const sized = counts.get(list.length) ?? [];
    if (sized.length === 0) counts.set(list.length, sized);
    sized.push(chunk);
  }
  const theirs = coveringTasks(store, state, { digests, counts }, new Set([...(state.ignored ?? []), ...ignore]));
  const stranger = ignoredStranger(ctx, state, self, ignore, theirs?.met ?? new Set());
  if ('error' in stranger || theirs === undefined) return stranger;
  if (theirs.unfinished !== undefined) {
    const { job, running, refused, chunks, theirs: own, sent } = theirs.unfinished;
    const may = sent
      ? `its request for its ${plainChunks(own)} may have created the items of this job's ${plainChunks(chunks)}; nothing was sent`
      : `its ${plainChunks(own)}, not created yet, may hold the items of this job's ${plainChunks(chunks)}; nothing was sent`;
    // A job of another state directory is named by its journal there: `resume ID` here would not find it.
    const settleFirst = `Settle that job first: ${resumeCommand({ ...spending(self), id: resumeName(store, job), refused })}; then: ${resumeCommand(self)}`;
    const error = new CreateUnknownError(
      `job ${job}, which took over items of this job, ${running ? 'is running' : 'has not finished'}: ${may}`,
      running
        ? `When it ends: ${resumeCommand(self)}`
        : sent
          ? // Its request may have made their task: only that job's resume can find it (--ignore-job would pay twice).
            settleFirst
          : `${settleFirst}. Or go on without waiting for it (those items are paid for twice if it creates them later): ${resumeCommand(self, ` --ignore-job ${shellWord(job)}`)}`,
    );
    return { error };
  }
  const taken: Taken[] = [];
  for (const [index, digest] of digestOf) {
    const found = theirs.tasks.get(digest);
    if (found !== undefined) taken.push({ chunk: index, ...found });
  }
  return { taken, ignored: theirs.ignored };
}

/**
 * `--ignore-job` naming a job that took no chunk of this one over (not among `met`, the jobs the walk of its takers
 * read; with nothing left to walk for, they are walked here): exit 2, whether or not anything is left to send.
 */
function ignoredStranger(
  ctx: Pick<Submitter, 'env'>,
  state: JobState,
  self: JobRef,
  ignore: readonly string[],
  met: ReadonlySet<string>,
): { taken: Taken[]; ignored: Ignored[] } | { error: CliError } {
  const none = { taken: [], ignored: [] };
  if (ignore.every((id) => met.has(id))) return none;
  const walked =
    met.size > 0 || state.takenOver === undefined
      ? met
      : (coveringTasks(jobStore(ctx.env), state, { digests: new Map(), counts: new Map() })?.met ?? met);
  const stranger = ignore.find((id) => !walked.has(id));
  if (stranger === undefined) return none;
  return {
    error: new UsageError(
      `--ignore-job ${stranger}: that job took no chunk of job ${self.id} over`,
      'Name a job an exit 9 of this job named as not finished.',
    ),
  };
}

/** `chunk 2`, `chunks 2, 3`; past ten, the first ten and how many in all. */
function plainChunks(chunks: readonly number[]): string {
  const more = chunks.length > 10 ? `, … (${formatCount(chunks.length)} in all)` : '';
  return `${chunks.length === 1 ? 'chunk' : 'chunks'} ${chunks.slice(0, 10).join(', ')}${more}`;
}

/** A job that took a chunk of this one over, not waited for (`--ignore-job`): this job's chunks, and its own. */
interface Ignored {
  job: string;
  chunks: number[];
  theirs: number[];
}

/** A chunk of this job given the task of a chunk of the same items of a job that took another chunk of it over. */
interface Taken {
  chunk: number;
  task: { id: number; cost: number };
  cover: Cover;
}

/**
 * The chunks whose items the service refused (docs/behaviour.md#a-refused-chunk): never sent again; without
 * `--skip-refused` a job that has one is exit 3 before anything is sent, naming them and the way past them.
 */
function skipRefused(
  ctx: Pick<Submitter, 'printer'>,
  journal: JobJournal,
  { id, user, early }: { id: string; user: UserSettlement; early: Omit<JobRef, 'id' | 'refused'> },
  skip: boolean,
): ReadonlySet<number> {
  const refused = journal.refused();
  if (refused.length === 0) return new Set();
  const { job } = journal.state;
  const named = refused
    .slice(0, 3)
    .map(({ chunk, reason }) => {
      const first = (chunk - 1) * job.chunk_size + 1;
      const last = first + chunkItems(job, chunk) - 1;
      return `chunk ${chunk} (${first === last ? `item ${first}` : `items ${first}–${last}`}): ${reason}`;
    })
    .join('; ');
  const more = refused.length > 3 ? `; and ${refused.length - 3} more` : '';
  const what = `the service refused ${counted(refused.length, 'chunk')} of job ${id}: ${named}${more}`;
  // A job finished past them (an earlier --skip-refused) says so at every resume: its summary has a gap.
  if (skip || journal.state.done) {
    ctx.printer.warn(`${what}; left without a task`);
    return new Set(refused.map(({ chunk }) => chunk));
  }
  throw new InputError(
    `${what}\nsending the same items again is refused the same way, so they are not sent again`,
    refusedAdvice(
      refused.map(({ reason }) => reason),
      resumeCommand({ ...early, id, refused: true }, settleFlags(user)),
    ),
  );
}

/** The run's own --adopt/--resend, kept in the exit-3 hint: the command it names settles them too. */
function settleFlags(user: UserSettlement): string {
  return [
    ...user.adopt.map(({ chunk, id }) => ` --adopt ${chunk}=${id}`),
    ...user.resend.map((c) => ` --resend ${c}`),
  ].join('');
}

/**
 * The flags of the user's settlements the journal does not hold yet: once it takes one (or the balance refuses the run,
 * `journal.unrecorded()` then carrying it), a command given it again would be refused.
 */
function unsettledFlags(journal: JobJournal, user: UserSettlement): string {
  return settleFlags({
    adopt: user.adopt.filter(({ chunk, id }) => journal.state.chunks.get(chunk)?.task?.id !== id),
    resend: user.resend.filter((chunk) => !journal.resentByUser(chunk)),
  });
}

/** The items of each chunk in doubt, read now; a chunk whose items are not those it was sent with is exit 2. */
function chunksInDoubt(
  journal: JobJournal,
  items: ItemList,
  mismatch: (what: readonly string[]) => UsageError,
): Map<number, string[]> {
  const wanted = new Set(journal.inDoubt());
  const found = new Map<number, string[]>();
  if (wanted.size === 0) return found;
  let chunk = 0;
  for (const list of items.chunks(journal.state.job.chunk_size)) {
    chunk++;
    if (!wanted.has(chunk)) continue;
    const sha256 = journal.state.chunks.get(chunk)?.send?.sha256; // '' for a send a damaged line may have held
    if (sha256 !== '' && sha256 !== chunkDigest(list)) throw mismatch([`the items of chunk ${chunk}`]);
    found.set(chunk, list);
    if (found.size === wanted.size) break;
  }
  return found;
}

/** `job j-mi3k2x1a7f3q: 40 of 100 chunks done, 1 in doubt (chunk 41); next: check the task list for chunk 41, then send 59 chunks`. */
function standing(
  journal: JobJournal,
  user: UserSettlement,
  {
    name,
    skip,
    stands,
    taken,
  }: { name: string; skip: ReadonlySet<number>; stands: (cover: Cover) => boolean; taken: readonly Taken[] },
): string {
  const { job, done } = journal.state;
  const total = job.chunks;
  const doubt = journal.inDoubt();
  // A chunk whose task the service no longer has is not done, and not sent again either: said apart.
  const lost = journal.lostChunks();
  const head =
    `job ${name}: ${formatCount(journal.done.size - lost.length)} of ${counted(total, 'chunk')} done` +
    (lost.length > 0
      ? `, ${formatCount(lost.length)} lost (${lost.length === 1 ? 'chunk' : 'chunks'} ${chunkList(lost)})`
      : '');
  if (done) return `${head}, finished`;
  // A chunk given --resend is checked too: sent again only if the list shows no task of it not named before.
  const byUser = new Set(user.adopt.map((a) => a.chunk));
  // Handed to another job (hand-over.ts): its task is read there, unless --resend says otherwise or the cover is void.
  const coverOf = (chunk: number) => {
    const cover = user.resend.includes(chunk) ? undefined : journal.state.chunks.get(chunk)?.coveredBy;
    return cover !== undefined && stands(cover) ? cover : undefined;
  };
  const covered = doubt.filter((chunk) => !byUser.has(chunk) && coverOf(chunk) !== undefined);
  const scanned = doubt.filter(
    (chunk) => !byUser.has(chunk) && coverOf(chunk) === undefined && !taken.some((t) => t.chunk === chunk),
  );
  const resent =
    user.resend.length > 0 ? ` (--resend ${user.resend.join(', ')}: sent again if no new task is there)` : '';
  // Chunks given a task of a job that took another chunk over (`fromCoveringJobs`), or by the user (--adopt, but for a
  // chunk already done, whose task it replaces): not sent either.
  const adopted = [...byUser].filter((chunk) => !journal.done.has(chunk));
  const away = new Set([...skip, ...taken.map((t) => t.chunk), ...adopted]);
  const left = total - journal.done.size - away.size;
  const takers = [...new Set(taken.map((t) => t.cover.job))].map((job) => {
    const chunks = taken.filter((t) => t.cover.job === job).map((t) => t.chunk);
    return `take chunk ${chunks.join(', ')}'s ${chunks.length === 1 ? 'task' : 'tasks'} from job ${job}, which holds the same items`;
  });
  const steps = [
    ...(byUser.size > 0 ? [`settle chunk ${[...byUser].join(', ')} as given`] : []),
    ...covered.map((chunk) => `take chunk ${chunk}'s task from job ${coverOf(chunk)?.job ?? ''}, which took it over`),
    ...(scanned.length > 0 ? [`check the task list for chunk ${scanned.join(', ')}${resent}`] : []),
    ...takers,
    `send ${counted(left, 'chunk')} at most (${counted(remainingItems(journal, away), 'item')})`,
  ];
  const inDoubt = doubt.length === 0 ? 'none in doubt' : `${doubt.length} in doubt (chunk ${doubt.join(', ')})`;
  return `${head}, ${inDoubt}; next: ${steps.join(', then ')}`;
}

function remainingItems(journal: JobJournal, skip: ReadonlySet<number>): number {
  const { job } = journal.state;
  let items = 0;
  for (let chunk = 1; chunk <= job.chunks; chunk++)
    if (!journal.done.has(chunk) && !skip.has(chunk)) items += chunkItems(job, chunk);
  return items;
}

interface ReadTaps {
  copies?: Map<number, InputCopy>;
  onOpen?: ((source: number, regular: boolean) => void) | undefined;
  asRecorded?: boolean;
}

/**
 * Reads the items of `sources`, with a digest of each source's bytes; `asRecorded`, a recorded job's inputs read again
 * (items/prepare.ts).
 */
async function readWithDigests(
  ctx: Reader,
  service: string,
  sources: ItemSource[],
  options: ReadOptions,
  { copies = new Map<number, InputCopy>(), onOpen, asRecorded = false }: ReadTaps = {},
): Promise<{ prepared: PreparedItems; digests: Array<{ size: number; sha256: string }> }> {
  const hashes: Hash[] = sources.map(() => createHash('sha256'));
  const sizes = sources.map(() => 0);
  const prepared = await prepareItems(ctx, service, [], options, {
    sources,
    onBytes: (index, bytes) => {
      hashes[index]?.update(bytes);
      sizes[index] = (sizes[index] ?? 0) + bytes.length;
      copies.get(index)?.write(bytes);
    },
    onOpen,
    asRecorded,
  });
  return { prepared, digests: hashes.map((hash, index) => ({ size: sizes[index] ?? 0, sha256: hash.digest('hex') })) };
}

/** Arguments are journaled as a copy (one JSON string a line, store/journal-file.ts), read back as NDJSON. */
function writeArgsCopy(path: string, values: readonly string[]): ItemSource {
  checkArguments(values);
  writeArgumentsCopy(path, values);
  return { kind: 'file', path, format: 'ndjson', arguments: true };
}

function compareInputs(
  recorded: readonly JobInput[],
  given: readonly ItemSource[],
  digests: ReadonlyArray<{ size: number; sha256: string }>,
): string[] {
  const kinds = given.map((source) => source.kind);
  // A stream was a `-f` input: given again, it is a file source, known by its bytes (its path, /dev/fd/63, says nothing).
  const kindOf = (input: JobInput | undefined) => (input?.kind === 'stream' ? 'file' : input?.kind);
  if (kinds.length !== recorded.length || kinds.some((kind, i) => kind !== kindOf(recorded[i]))) {
    return [`the inputs (${kinds.join(', ')}; the job read ${recorded.map((input) => input.kind).join(', ')})`];
  }
  const changed: string[] = [];
  given.forEach((source, i) => {
    const input = recorded[i];
    if (!input) return;
    if (source.kind === 'file' && input.kind === 'file' && resolve(source.path) !== input.path)
      changed.push(`input ${i + 1} (${source.path}; the job read ${input.path})`);
    // Arguments were journaled as a copy; their bytes differ from the copy's, so the items' digest decides for them.
    else if (source.kind !== 'args' && digests[i]?.sha256 !== input.sha256) {
      changed.push(`the content of ${source.kind === 'stdin' ? 'stdin' : source.path}`);
    }
  });
  return changed;
}

function checkItems(job: Job, prepared: PreparedItems, mismatch: (what: readonly string[]) => UsageError): void {
  if (prepared.count !== job.items || prepared.digest !== job.items_sha256) {
    throw mismatch([`the items (${formatCount(prepared.count)} now, ${formatCount(job.items)} when the job started)`]);
  }
}

/**
 * The job does not match what was given. For a create: give the same input and options, or `taskctl resume ID`. For
 * a resume, never the command just run: the inputs must be put back as they were (the job's tasks so far are shown
 * by `show --job`).
 */
/** The job in messages: its id, and the name it was given when that is another (a journal's path). */
function jobLabel(job: OpenJob): string {
  return `${job.id}${job.name === job.id ? '' : ` (${job.name})`}`;
}

function otherJob(job: OpenJob, what: readonly string[], resuming: boolean): UsageError {
  const differs = `${what.join('; ')} differ${what.length === 1 ? 's' : ''}`;
  if (resuming) {
    return new UsageError(
      `job ${jobLabel(job)} cannot be continued as it is now: ${differs}`,
      `Put the job's inputs back as they were when it started, then resume it; its tasks so far: taskctl show --job ${job.id}`,
    );
  }
  return new UsageError(
    `the journal ${job.name} belongs to another job (${job.id}): ${differs}`,
    `Give the same input and options to continue it (or run \`taskctl resume ${job.id}\`), or use a new journal path.`,
  );
}

function describeOption(key: string): string {
  const names: Record<string, string> = {
    service: 'the service',
    chunk_size: '--chunk-size',
    format: '--format',
    column: '--column',
    validate: '--no-validate',
    keep_duplicates: '--keep-duplicates',
    skip_invalid: '--skip-invalid',
  };
  return names[key] ?? key;
}
