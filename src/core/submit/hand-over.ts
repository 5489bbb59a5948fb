/**
 * A chunk in doubt handed from a stopped job to the re-run that pays for its items (docs/behaviour.md#the-ledger).
 *
 * A re-run of the same items (`retry`, `create --reuse-window`) that finds in the ledger a stopped job's request for them
 * waits until that request can make no task any more (or comes later than that), then walks the task list back to that
 * request's send: a task the request made is reused whatever its status (send.ts), else the re-run creates their task.
 * That job's journal still holds its chunk in doubt, and its own `resume` would not know the re-run's task (another
 * run's claim, stamped after its request could land): it would send the items again. So, before its walk and its POST,
 * the re-run writes into that job's journal, under its locks, that the chunk is its own chunk's now (`unknown` with
 * `covered_by`); once it has the task, that the chunk is this task (`reconciled` with `covered_by`). From the first
 * record on, the stopped job's `resume` follows the re-run's journal (settle.ts), adopting its chunk's task, or saying
 * to settle that job first, and never sends the items itself; the second spares it that read. A re-run that stopped
 * before sending leaves a void cover (`coverStands`): its walk may not have reached the stopped job's own task, so that
 * job settles the chunk itself. One the balance refused before its first POST keeps no job (or its own as it was): the
 * task it reused is not recorded, nor given to the stopped job (the second record, held with it: job-journal.ts), and
 * its first record is taken back (`handBack`), so that journal is as it was.
 *
 * What this does not make safe: the stopped request may have made a task already, and the re-run's walk is then the
 * only look for it (the stopped job's resume no longer scans for it). A task that walk does not take (not listed yet,
 * its items not listed in full, its time read on clocks further apart than the walk allows) is paid for and no job's;
 * a walk cut short by its page bound stops the re-run instead. A re-run that is no job, or cannot write that journal,
 * hands nothing: it only names the job, whose resume then settles the chunk by its own scan.
 *
 * A re-run of the same items in the same chunks takes the job over whole (`whole`: superseded) only when the chunk is
 * the job's one chunk in doubt. A re-run that took chunks over otherwise (other items, other chunks, another chunk in
 * doubt) may have created the job's other items too: its `resume` takes those chunks' tasks from it by their items
 * (`coveringTasks`), after that job has finished. So the re-run's own journal names each chunk handed to it (`covers` on
 * the record of its chunk: local-runs.ts `handed`), and its prune keeps it while that job has not finished, whatever
 * the state directory of either (core/jobs.ts `pruneJobs`).
 *
 * Its locks decide who goes first: a `resume` of the stopped job running now holds them, and the re-run waits for it
 * (it settles the chunk itself); a re-run holding them makes that `resume` exit 2 for the instant it writes.
 */
import type { Env } from '../../lib/env.js';
import type { LedgerJob } from '../../store/ledger.js';
import { glanceJournal, JournalFile, readJournalRecords } from '../../store/journal-file.js';
import { jobIdOf, jobStore } from '../job/registry.js';
import type { JobStore } from '../../store/job-files.js';
import { chunkItems, jobRecord, JobFold, type Cover, type Job, type JobState } from './journal-records.js';

/**
 * Job `id` as a hint printed in this state directory names it for `taskctl resume`: its id while this state directory
 * knows it (`locate`), else its journal where `find` reaches it, under another state directory sharing the cache
 * directory (`resume ID` resolves only this state directory's jobs; `resume FILE` runs that journal, locked beside
 * itself, from here). So the hint, run where it was printed, runs.
 */
export function resumeName(store: JobStore, id: string): string {
  return store.locate(id) === undefined ? (store.find(id) ?? id) : id;
}

/**
 * `handed`: the chunk is the re-run's now; `whole`: so is the whole job (the re-run is that job again: it is superseded);
 * `held`: a live run holds that job (wait for it); `void`: nothing to hand.
 */
export type HandOver = 'handed' | 'whole' | 'held' | 'void';

/**
 * Job `id`'s journal opened under its locks and folded, for `act` to append to. `held` when a live run holds it;
 * undefined when it cannot be opened or read (gone, damaged, not writable): nothing is written then.
 */
function underLocks<T>(env: Env, id: string, act: (file: JournalFile, state: JobState) => T): T | 'held' | undefined {
  const store = jobStore(env);
  // The stopped job may be of another state directory sharing this cache directory, and so the ledger (JobStore.find):
  // its journal, locked beside itself, is the one handed over, wherever it is.
  const path = store.find(id);
  if (path === undefined) return undefined;
  const fold = new JobFold(path, { counts: true });
  let file: JournalFile;
  try {
    file = JournalFile.open(
      path,
      () => store.lockPath(id),
      true,
      (record) => fold.add(record),
    );
  } catch {
    return store.runner(id, path) === undefined ? undefined : 'held';
  }
  try {
    const state = fold.end();
    return state === undefined || jobIdOf(fold.first) !== id ? undefined : act(file, state);
  } catch {
    return undefined; // a journal that cannot be read as a job, or appended to: nothing handed
  } finally {
    file.close();
  }
}

/** Where a hand-over's record went in the stopped job's journal: its bytes `from` to `to` (`handBack`). */
export interface HandedRecord {
  from: number;
  to: number;
}

/**
 * Chunk `from.chunk` of job `from.journal`, still in doubt, becomes chunk `to` of the re-run's job. `wrote`: told where
 * the record went, when this call wrote it.
 */
export function handOver(env: Env, from: LedgerJob, to: Cover, wrote?: (record: HandedRecord) => void): HandOver {
  const result = underLocks(env, from.journal, (file, state): HandOver => {
    const chunk = state.chunks.get(from.chunk);
    if (state.done || !chunk?.send || chunk.task || chunk.refused !== undefined) return 'void';
    if (chunk.coveredBy?.job === to.job && chunk.coveredBy.chunk === to.chunk)
      return chunk.coveredBy.whole === true ? 'whole' : 'handed';
    // Whole only when this chunk is the job's one chunk in doubt: another one's request may have made a task that the
    // re-run's walk for that chunk would not reach, and a superseded job never checks its chunks itself again.
    const whole =
      to.chunk === from.chunk && !otherInDoubt(state, from.chunk) && sameChunking(state.job, coveringJob(env, to.job));
    const start = file.size;
    file.append({
      type: 'unknown',
      chunk: from.chunk,
      candidates: [],
      reason: `its items were taken over by job ${to.job} (its chunk ${to.chunk}) once this request could no longer land${whole ? '; that job is this one again (the same items, the same chunks): it creates them all' : ''}`,
      covered_by: whole ? { ...to, whole } : to,
    });
    wrote?.({ from: start, to: file.size });
    return whole ? 'whole' : 'handed';
  });
  return result ?? 'void';
}

/**
 * The re-run that was handed chunk `from.chunk` is refused by the balance before its first POST and keeps no job: the
 * hand-over's record (`handed`) is taken back, so that job's journal is byte for byte as it was. Only while it is still
 * the journal's last record (nothing written after it: a `resume` of that job that went on since keeps it, a void
 * cover, `coverStands`); a journal held by a live run, or that cannot be written, keeps it the same way.
 */
export function handBack(env: Env, from: LedgerJob, to: Cover, handed: HandedRecord): void {
  underLocks(env, from.journal, (file, state) => {
    const chunk = state.chunks.get(from.chunk);
    if (chunk?.task || chunk?.coveredBy?.job !== to.job || chunk.coveredBy.chunk !== to.chunk) return;
    if (file.size === handed.to) file.cutBack(handed.from, 1);
  });
}

/** The re-run has its task: the handed chunk is that task (skipped when a run holds that job: it reads ours). */
export function coverDone(env: Env, from: LedgerJob, to: Cover, task: { id: number; cost: number }): void {
  underLocks(env, from.journal, (file, state) => {
    const chunk = state.chunks.get(from.chunk);
    if (chunk?.task || chunk?.coveredBy?.job !== to.job || chunk.coveredBy.chunk !== to.chunk) return;
    // The cover as recorded (with `whole` when this job was taken over whole: the last line keeps saying so).
    const cover = chunk.coveredBy;
    file.append({
      type: 'reconciled',
      chunk: from.chunk,
      task: task.id,
      cost: task.cost,
      by: 'scan',
      covered_by: cover,
    });
  });
}

/** Another chunk than `chunk` was sent and has no outcome (or a damaged line may have sent one). */
function otherInDoubt(state: JobState, chunk: number): boolean {
  for (const [index, known] of state.chunks)
    if (index !== chunk && known.send !== undefined && known.task === undefined && known.refused === undefined)
      return true;
  return false;
}

/** The job record of job `id` (its journal's first line), or undefined when it cannot be read. */
function coveringJob(env: Env, id: string): Job | undefined {
  const path = jobStore(env).find(id);
  if (path === undefined) return undefined;
  try {
    const first = glanceJournal(path)?.first;
    return jobIdOf(first) === id ? jobRecord(first) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The covering job is this one again: the same service, account, base URL, items (their digest) and chunk size, so
 * its chunk N is this job's chunk N, and it creates (or reuses) every one of them: this job is superseded by it.
 */
export function sameChunking(stopped: Job, covering: Job | undefined): boolean {
  return (
    covering?.service === stopped.service &&
    covering.account === stopped.account &&
    covering.base_url === stopped.base_url &&
    covering.items_sha256 === stopped.items_sha256 &&
    covering.items === stopped.items &&
    covering.chunk_size === stopped.chunk_size &&
    covering.chunks === stopped.chunks
  );
}

/**
 * A job stopped where the service refused a chunk's items: its resume goes on only with `--skip-refused` (the hints
 * that name it carry the flag, or they would end in that refusal again).
 */
function stoppedOnRefused(state: JobState): boolean {
  return (
    !state.done && [...state.chunks.values()].some((chunk) => chunk.refused !== undefined && chunk.task === undefined)
  );
}

/**
 * The state of job `id`'s journal at `path`, read a record at a time without its locks (another job's, only looked
 * at); undefined when it cannot be read as that job.
 */
export function readJobState(path: string, id: string): JobState | undefined {
  try {
    const fold = new JobFold(path, { counts: true });
    const state = readJournalRecords(path, (record) => fold.add(record)) ? fold.end() : undefined;
    return jobIdOf(fold.first) === id ? state : undefined;
  } catch {
    return undefined;
  }
}

/** What the job that took a chunk over knows of its own chunk now (undefined: its journal is gone or unreadable). */
export function coveringChunk(
  store: JobStore,
  cover: Cover,
): { task?: { id: number }; sent: boolean; refused: boolean; jobRefused: boolean; path: string } | undefined {
  // A job of another state directory that took it over is read where it ran (JobStore.find).
  const path = store.find(cover.job);
  if (path === undefined) return undefined;
  try {
    const state = readJobState(path, cover.job);
    if (state === undefined) return undefined;
    const chunk = state.chunks.get(cover.chunk);
    return {
      ...(chunk?.task && { task: { id: chunk.task.id } }),
      sent: chunk?.send !== undefined,
      refused: chunk?.refused !== undefined || (state.done && chunk?.task === undefined),
      jobRefused: stoppedOnRefused(state),
      path,
    };
  } catch {
    return undefined;
  }
}

/**
 * A covering job's chunk that stands: it has a task or a send (its walk back to the stopped run's send came first, so a
 * task that request made would have been reused), or its run is alive. One that stopped before sending (Ctrl-C in its
 * walk, an outage, a refused key; its journal perhaps removed) is void: the stopped job settles the chunk itself, by its
 * own scan back to its own send, and goes on by itself.
 */
export function coverStands(store: JobStore, cover: Cover): boolean {
  const theirs = coveringChunk(store, cover);
  if (theirs === undefined || theirs.refused) return false;
  return theirs.task !== undefined || theirs.sent || store.runner(cover.job, theirs.path) !== undefined;
}

/**
 * The job that took `state`'s job over whole, while that takeover stands (`coverStands`). One that gave the chunk its
 * task (the `reconciled` record) had sent it: it stands whatever became of that job's journal since (pruned once
 * finished, removed by hand), so a superseded job is never re-armed to buy the items again.
 */
export function standingTakeover(store: JobStore, state: JobState): string | undefined {
  const cover = state.supersededCover;
  if (cover === undefined || state.done) return undefined;
  if (state.chunks.get(cover.chunk)?.task?.how === 'reused') return cover.job;
  return coverStands(store, cover) ? cover.job : undefined;
}

/** The chunks of a job left to create, by their items: each one's items digest, and each one's number of items. */
export interface ChunksLeft {
  digests: ReadonlyMap<string, readonly number[]>;
  counts: ReadonlyMap<number, readonly number[]>;
}

/** What the jobs that took chunks of a job over created of its other chunks (`coveringTasks`). */
export interface CoveringTasks {
  /** By the items digest of their chunks with a task: what this job's chunk of the same items takes. */
  tasks: Map<string, { task: { id: number; cost: number }; cover: Cover }>;
  /**
   * One that has not finished (stopped, or running) whose chunks with no task may hold the items of chunks of this job
   * left (`chunks`: this job's; `theirs`: its own): it goes first, unless ignored (and not running).
   */
  unfinished?: { job: string; running: boolean; refused: boolean; chunks: number[]; theirs: number[]; sent: boolean };
  /** The unfinished ones passed over as the user said (`resume --ignore-job`), with the same chunks. */
  ignored: Array<{ job: string; chunks: number[]; theirs: number[]; sent: boolean }>;
  /** Every job the walk read (the ones `--ignore-job` may name). */
  met: Set<string>;
}

/**
 * The tasks of the jobs that took chunks of `state`'s job over (their covers standing), by their chunks' items
 * (`items_digest`): a re-run of other items, or in other chunks, creates what it holds of this job's items too, so this
 * job's `resume` takes a chunk of the same items from it rather than paying for them again. `unfinished`: one of them
 * has not finished (stopped, or running) and a chunk of it with no task (not refused) may still be given the items of
 * a chunk of this job `left`: one in doubt whose send's items digest is that chunk's, or one never sent (its items are
 * not in its journal) of as many items; it goes first, unless `ignored` names it, it is not running and it sent none
 * of them (a request in doubt may have made their task: passed over, they would be paid for twice). One that can
 * create none of them is not waited for: its tasks so far are taken. Undefined when none stands; a journal gone or
 * unreadable is passed over.
 */
export function coveringTasks(
  store: JobStore,
  state: JobState,
  left: ChunksLeft,
  ignored: ReadonlySet<string> = new Set(),
): CoveringTasks | undefined {
  const result: CoveringTasks = { tasks: new Map(), ignored: [], met: new Set() };
  const jobs = (state.takenOver ?? []).filter((cover) => coverStands(store, cover)).map((cover) => cover.job);
  // Never this job itself (a chain of takeovers that comes back to it): it is the one being resumed.
  const seen = new Set<string>([jobIdOf(state.job) ?? '']);
  // The array's iterator reads its length at each step: a job pushed below is read in turn.
  for (const job of jobs) {
    if (seen.has(job)) continue;
    seen.add(job);
    const path = store.find(job);
    if (path === undefined) continue;
    const theirs = readJobState(path, job);
    if (theirs === undefined) continue;
    result.met.add(job);
    // Itself taken over whole (superseded): the job that took it over creates its items, and is the one to finish.
    const over = standingTakeover(store, theirs);
    if (over !== undefined) {
      jobs.push(over);
      continue;
    }
    const running = store.runner(job, path) !== undefined;
    if (!theirs.done || running) {
      const held = heldOf(theirs, left);
      if (held.chunks.length > 0) {
        // Never passed over while a request of its own for them may have made a task: that would pay for them twice.
        if (running || held.sent || !ignored.has(job))
          return { ...result, unfinished: { job, running, refused: stoppedOnRefused(theirs), ...held } };
        result.ignored.push({ job, ...held });
      }
    }
    for (const [chunk, known] of theirs.chunks) {
      const digest = known.send?.items_digest;
      if (known.task === undefined || digest === undefined || result.tasks.has(digest)) continue;
      result.tasks.set(digest, { task: { id: known.task.id, cost: known.task.cost }, cover: { job, chunk } });
    }
  }
  return result.met.size > 0 ? result : undefined;
}

/**
 * The chunks of `left` that a chunk of `theirs` with no task (not refused) may still be given: in doubt, by its send's
 * items digest; never sent (or sent by a damaged line, no digest), by its number of items alone.
 */
function heldOf(theirs: JobState, left: ChunksLeft): { chunks: number[]; theirs: number[]; sent: boolean } {
  const chunks = new Set<number>();
  const own: number[] = [];
  let sent = false;
  // Each list of this job's chunks added once: many chunks of theirs of one size name the same list.
  const added = new Set<readonly number[]>();
  for (let chunk = 1; chunk <= theirs.job.chunks; chunk++) {
    const known = theirs.chunks.get(chunk);
    if (known?.task !== undefined || known?.refused !== undefined) continue;
    const digest = known?.send?.items_digest;
    const mine = digest === undefined ? left.counts.get(chunkItems(theirs.job, chunk)) : left.digests.get(digest);
    if (mine === undefined || mine.length === 0) continue;
    own.push(chunk);
    if (known?.send !== undefined) sent = true;
    if (added.has(mine)) continue;
    added.add(mine);
    for (const index of mine) chunks.add(index);
  }
  return { chunks: [...chunks].sort((a, b) => a - b), theirs: own, sent };
}
