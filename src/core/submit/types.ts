/** The shapes the submission pipeline passes between its steps (pipeline.ts runs them in order). */
import type { Task } from '../../api/schemas.js';
import { spending, waitingFlags, type JobRef } from './resume-command.js';
import type { ItemList } from '../items/index.js';
import type { WaitOptions } from '../follow/wait-loop.js';
import type { ApiClient } from '../../api/client.js';
import type { NormalisedItems } from '../items/index.js';
import type { ReuseIndex, Snapshot } from '../reconcile.js';
import type { ServerClock } from '../server-time.js';
import type { LocalCreates } from './local-runs.js';
import type { How } from './journal-records.js';
import type { OwnClaim } from './own-claims.js';
import type { Output, Process, Prompts, Runtime, Service, Store } from '../capabilities.js';

/**
 * What the pipeline's entry uses of a run: it prints, asks, is interrupted, reads the clock, keeps the ledger in the
 * cache directory and talks to the service, so all six capabilities, named here rather than taken as the whole run.
 */
export type Submitter = Output & Prompts & Process & Runtime & Store & Service;

/** One service's items to send (a create has one; a retry has one per service): in memory, or streamed. */
export interface Batch {
  service: string;
  items: readonly string[] | ItemList;
}

/** One task's worth of items. */
export interface Chunk {
  service: string;
  items: string[];
}

/** The options the shared pipeline reads (create's and retry's common flags). */
export interface SubmitOptions extends Partial<WaitOptions> {
  dryRun?: boolean;
  /** Refuse (exit 6, nothing sent) when the estimate is above this many coins. */
  maxCost?: number;
  yes?: boolean;
  /** Split into tasks of at most this many items, created in order. */
  chunkSize?: number;
  /** Reuse a task created within this many ms with the same service and items, instead of paying again. */
  reuseWindow?: number | undefined;
  /** Tasks --reuse-window never reuses: a retry's own sources (reusing one would retry nothing). */
  notReusable?: ReadonlySet<number>;
  /** The `--reuse-window` is the job's own, kept by its resume: only `--no-reuse` drops the lookup (no flag keeps it). */
  jobWindow?: boolean;
  /**
   * The job's start (ms) when this run was let past the gone file it was last run from (journaled-run.ts gonePast):
   * its lookup reaches back to it whatever the window and the time of each chunk's lookup, and takes any task of the
   * chunk's items made since, however it ended (the gone run paid for it).
   */
  goneFrom?: number;
  /**
   * A journal put back from an earlier copy, let past because this machine's ledger named a task for each chunk its
   * lost part reached (journaled-run.ts `pastRestored`): chunks up to `chunk` that the journal does not know are taken
   * from the ledger (send.ts `settledEarlier`), never sent. One the ledger no longer names when its turn comes stops
   * the run, exit 9, with `hint` (the look on the service a refused journal put back gets).
   */
  restoredUpTo?: { chunk: number; hint: string };
  /** Continue like `taskctl wait` on the new task(s). */
  wait?: boolean;
}

export interface PricedBatch {
  service: string;
  list: ItemList;
  /** Items still to send (the list less the chunks an earlier run of the job created). */
  count: number;
  /** Items per task. */
  size: number;
  /** Tasks it makes (chunks still to send). */
  tasks: number;
  price: number;
  estimate: number;
}

/** How a chunk got its task: the journal's `how` (journal-records.ts). */
export type { How };

/** `items`: how many items this task was sent with (the chunk's size). */
export interface Outcome {
  task: Task;
  how: How;
  items: number;
  /**
   * A reused task that covers stopped jobs' chunks in doubt: what gives it to them (local-runs.ts `covered`), run when
   * this run records the task (`ChunkObserver.created`).
   */
  covers?: () => void;
  /** The stopped jobs' chunks that task covers, handed to this chunk (local-runs.ts `handed`): its record names them. */
  handed?: ReadonlyArray<{ job: string; chunk: number }>;
  /**
   * The task an earlier run of the job created, known from the ledger though the journal does not say so (send.ts
   * `settledEarlier`): this run paid nothing for it, so its items and coins are not this run's.
   */
  earlier?: true;
}

/** A chunk with its task, from an earlier run of a journaled job: only what the journal keeps of the task. */
export interface DoneChunk {
  task: { id: number; cost: number };
  how: How;
  items: number;
  /** What the journal recorded of its task, which tells it from a task given its id again (own-claims.ts). */
  claim?: OwnClaim;
}

/** One task's worth of items, numbered across the whole submission (from 1); `first` is its first item's offset. */
export interface PlannedChunk extends Chunk {
  index: number;
  first: number;
}

/** The instant a create request is written to the socket (after every wait before it). */
export interface Dispatch {
  attempt: number;
  sentAtMs: number;
  /** What existed before it (the snapshot or the --reuse-window lookup). */
  before: Snapshot;
  /** Server minus client clock, at least (from Date headers so far), when known: a journal's send keeps it. */
  serverOffsetLow?: number | undefined;
  /** The stopped jobs' chunks handed to this chunk (local-runs.ts `handed`): a journal's send names them. */
  handed?: ReadonlyArray<{ job: string; chunk: number }>;
}

export interface Totals {
  tasks: number;
  items: number;
  cost: number;
}

/** A job's totals over its chunks that have a task (the `done` record). */
export function jobTotals(chunks: ReadonlyArray<Pick<DoneChunk, 'task' | 'items'>>): Totals {
  return {
    tasks: chunks.length,
    items: chunks.reduce((sum, chunk) => sum + chunk.items, 0),
    cost: chunks.reduce((sum, chunk) => sum + chunk.task.cost, 0),
  };
}

/**
 * What the pipeline tells about each chunk, synchronously, at the instant it happens (a journal writes and fsyncs
 * its record inside each call): about to send, its task known, its outcome unknown (exit 9), nothing created (a
 * refusal, a request that never left, proven by a scan), and the end of the submission.
 */
export interface ChunkObserver {
  sending: (chunk: PlannedChunk, dispatch: Dispatch) => void;
  /** `covers`: what gives the task to stopped jobs' chunks it covers, run when the task is recorded (`Outcome`). */
  /** `handed`: the stopped jobs' chunks that task covers (`Outcome`), named by its record. */
  created: (
    chunk: PlannedChunk,
    task: Task,
    how: How,
    covers?: () => void,
    handed?: ReadonlyArray<{ job: string; chunk: number }>,
  ) => void;
  unknown: (chunk: PlannedChunk, ids: readonly number[], why: string) => void;
  /** `refused`: the service refused the chunk's items (a 4xx naming them): sending them again is refused again. */
  notCreated: (chunk: PlannedChunk, why: string, refused?: boolean) => void;
  finished: (totals: Totals) => void;
  /**
   * The chunks' sending ended, each with a task or stopped; `refused`: by the money guard before the run's first POST
   * (the balance), which leaves a job as it was (job-journal.ts `ended`).
   */
  ended: (refused: boolean) => void;
  /**
   * Whether the job has anything on record (journal-records.ts `holdsAnything`): a request that left (this run's or an
   * earlier run's) and was not answered by making nothing, or a task it reused (once recorded: `ended`). Only then is
   * it kept (journaled-run.ts `discardUnsent`), named and resumable.
   */
  anyRecorded: () => boolean;
  /**
   * The task of an earlier run's chunk is no longer on the service: `seen`, the task its id names now, was created at
   * another time (own-claims.ts `staleCreation`). A job records it (journal-records.ts `lost`).
   */
  lost?: (chunk: number, seen: { id: number; created_at: string }) => void;
  /**
   * The task of a chunk recorded lost is under its id again, as recorded (own-claims.ts `holds`): a job records it
   * (journal-records.ts `found`), and the chunk counts as created again.
   */
  found?: (chunk: number, task: number) => void;
  /** Several chunks found lost at once: recorded in one write (`lost` for each, else). */
  lostAll?: (found: ReadonlyArray<{ chunk: number; seen: { id: number; created_at?: string } }>) => void;
  /** The chunks of `done` whose task the service no longer has, as known so far, in order: counted apart. */
  lostChunks?: () => number[];
  /** Whether the user sent the chunk again by `resume --resend` (journal-records.ts ChunkState `resentByUser`). */
  resentByUser?: (chunk: number) => boolean;
}

/** A task of a job of the same work a create or retry took: its chunk's number and item count (what its read weighs). */
export interface TakenTask {
  chunk: number;
  id: number;
  items: number;
}

/** What the creates of one run share: the server's clock as learnt so far, the local ledger. */
export interface SendState {
  serverClock: ServerClock;
  local: LocalCreates;
  /** The run's one `--reuse-window` walk, shared by its chunks (reconcile.ts `ReuseIndex`). */
  reuse?: ReuseIndex;
  /** How long a create's request may still land after it was sent: its deadline (`--request-timeout`) and a margin. */
  landsWithinMs: number;
  /**
   * Tasks this run settled chunks in doubt with (recovered by a scan, adopted or covered), each with its chunk: printed
   * as created, in chunk order among the tasks a takeover prints.
   */
  settled?: Array<{ chunk: number; task: Task }>;
  /**
   * A create or retry that took another job of the same work (`PipelineInput.takes`): that job's tasks so far, in chunk
   * order, printed first as a reused task is, each as it is read (`-q`: their ids, read no further; taken-tasks.ts).
   */
  taken?: readonly TakenTask[];
  /** The money guard before a POST (confirm.ts `balanceGuard`): started beside the snapshot, awaited before sending. */
  guard?: () => Promise<void>;
  /** At a terminal, the table of the tasks created: drawn after the summary line (as --wait's is), states refreshed. */
  table?: () => Promise<void>;
}

export interface PipelineInput {
  /** The items by service; chunks are numbered from 1 across them, in order. */
  batches: readonly Batch[];
  /** Chunks that already have their task (an earlier run of the job): never sent again. */
  done?: ReadonlyMap<number, DoneChunk>;
  /** Chunks whose items the service refused, left without a task (`resume --skip-refused`): neither sent nor priced. */
  skip?: ReadonlySet<number>;
  /**
   * Chunks in doubt the user gives their task (`resume --adopt`): settled before anything is sent, or the run stops
   * there (settle.ts `adoptByUser`), so never sent by it and not priced.
   */
  adopted?: ReadonlySet<number>;
  observer?: ChunkObserver;
  /**
   * A job (docs/behaviour.md#jobs): `id` names it in every hint (`taskctl resume ID`) and marks each chunk's ledger
   * entry (resume takes them over); `name`, the journal as the user gave it (the id when in the state directory).
   */
  job?: JobRef & { name: string };
  /** The job's id is on stderr already (a resume's first line): the first task created does not name it again. */
  named?: boolean;
  /** The prompt's first word: `Create`, `Retry`, `Resume`. */
  verb: string;
  /**
   * A create or retry that took another job of the same work (same-work.ts): the tasks that job holds its items with
   * are this run's, so they go to stdout as its own (`create -q | taskctl wait -` waits for every one of them).
   */
  takes?: boolean;
  /** What validation changed (create only): reported by --dry-run. */
  normalised?: NormalisedItems | undefined;
  /**
   * After the money guard, before any chunk is sent: `resume` settles the chunks an earlier run left in doubt
   * (reporting through the same observer, adding to `done`).
   */
  settle?: (api: ApiClient, state: SendState) => Promise<void>;
}

/**
 * The flags of a run that its job's hints carry: how it spends (`--yes`, `--max-cost N`) and whether it waits, with the
 * flags that decide the wait's exit code (`waitingFlags`), so a hint followed as printed confirms and ends as the run
 * would have (docs/behaviour.md#jobs).
 */
export function hintFlags(
  options: Pick<SubmitOptions, 'yes' | 'maxCost' | 'wait' | 'allowItemFailures' | 'until' | 'any'>,
): Pick<JobRef, 'yes' | 'maxCost' | 'wait'> {
  return { ...spending(options), ...(options.wait === true && { wait: waitingFlags(options) }) };
}
