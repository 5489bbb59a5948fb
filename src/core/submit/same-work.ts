/**
 * A new job that is a stopped job's work again (docs/behaviour.md#the-ledger): the same service, account, base URL,
 * items (their digest) and chunking as a job of this machine that stopped part-way (interrupted, no run holding it),
 * and its chunks sent so far hold the same items in the same order as this run's. A re-run whose reuse window reaches
 * back to that job's start (`create --reuse-window`, a `retry`) continues that job instead of starting another: its
 * journaled tasks are this run's (that job paid for them, whatever their status), its chunk in doubt is settled as its
 * `resume` would, and only the rest is sent. Two jobs of the same work, each resumed, would buy the items twice.
 * A job of the same work that a live run holds (its `resume`, or its first run, started at the same moment) is waited
 * for, then taken (continued, or its tasks taken once that run finished it): waiting only for that run's request out
 * at the instant would let both runs buy every other chunk.
 */
import type { JobStore } from '../../store/job-files.js';
import { glanceJournal } from '../../store/journal-file.js';
import type { LockOwner } from '../../store/lock-file.js';
import type { ItemList } from '../items/chunks.js';
import { readJobState, sameChunking, standingTakeover } from './hand-over.js';
import { chunkDigest } from './job-journal.js';
import { isDoneRecord, type Job, type JobState } from './journal-records.js';

/** A stopped job of the same work: its id, journal, and when it started (its job record). */
export interface StoppedJob {
  id: string;
  path: string;
  startedMs: number;
  /** The live run holding it now (its lock held), if any: it is waited for, never continued beside it. */
  runner?: LockOwner;
}

/**
 * `state`'s job is the work of `job` with `items` again: stopped (not finished, not taken over whole, no chunk refused),
 * the same chunking, and every chunk it sent holds this run's chunk of the same number (its recorded digest).
 * `finished`: a finished job counts too (one a run this run waited for, or that took it first, finished meanwhile).
 */
export function sameWork(store: JobStore, state: JobState, job: Job, items: ItemList, finished = false): boolean {
  if ((state.done && !finished) || !sameChunking(state.job, job) || standingTakeover(store, state) !== undefined)
    return false;
  const sent = new Map<number, string>();
  for (const [chunk, known] of state.chunks) {
    if (known.refused !== undefined) return false;
    if (known.task === undefined && known.send === undefined) continue;
    // A task without the send it came from (a damaged line): its items are not known here.
    if (known.send === undefined || known.send.sha256 === '') return false;
    sent.set(chunk, known.send.sha256);
  }
  if (sent.size === 0) return true;
  let chunk = 0;
  let checked = 0;
  for (const list of items.chunks(job.chunk_size)) {
    const digest = sent.get(++chunk);
    if (digest === undefined) continue;
    if (digest !== chunkDigest(list)) return false;
    if (++checked === sent.size) break;
  }
  return checked === sent.size;
}

/**
 * The stopped jobs of this machine that are `job`'s work again (`sameWork`), newest first, each with the live run
 * holding it, if any (`runner`); `sinceMs`: only those started at or after it.
 */
export function stoppedSameWork(store: JobStore, job: Job, items: ItemList, sinceMs = -Infinity): StoppedJob[] {
  const found: StoppedJob[] = [];
  for (const stored of store.places()) {
    if (stored.id === job.id || !mayBeStoppedWork(stored.path, job, sinceMs)) continue;
    const state = readJobState(stored.path, stored.id);
    if (state === undefined) continue;
    const startedMs = Date.parse(state.job.created_at);
    if (!(startedMs >= sinceMs)) continue;
    // The work first: only a job this run could continue has its lock read (an odd file at another job's lock, a
    // FIFO, is that job's trouble, not this create's).
    if (!sameWork(store, state, job, items)) continue;
    const runner = store.runner(stored.id, stored.path);
    found.push({ id: stored.id, path: stored.path, startedMs, ...(runner !== undefined && { runner }) });
  }
  return found.sort((a, b) => b.startedMs - a.startedMs || (a.id < b.id ? 1 : -1));
}

/**
 * Whether the journal at `path` may hold a stopped job of `job`'s work started at or after `sinceMs`, from a glance at
 * its ends (store/journal-file.ts `glanceJournal`): false when its job record is of other work or started earlier, or
 * its last line is a `done`. Every create looks through all the journals of its state directory, which keeps weeks of
 * jobs (docs/behaviour.md#the-ledger), so those are never read through; a journal the glance cannot tell about is.
 */
function mayBeStoppedWork(path: string, job: Job, sinceMs: number): boolean {
  let ends;
  try {
    ends = glanceJournal(path);
  } catch {
    return true; // read through, which refuses it as it did (an odd file, one past the size limit)
  }
  if (ends === undefined) return false; // gone since the directory was listed
  // The work's fields as written (a record they do not match as written is another work's, or no job record at all,
  // which reading through refuses as well): compared before any schema is checked, the costly part of a look.
  const first = ends.first as Job | null | undefined;
  if (
    typeof first === 'object' &&
    first !== null &&
    !(sameChunking(first, job) && Date.parse(first.created_at) >= sinceMs)
  )
    return false;
  return !isDoneRecord(ends.last);
}
