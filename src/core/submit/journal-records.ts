/**
 * The records of a job's journal (JSON lines, store/journal-file.ts) and the job's state rebuilt from any prefix of them:
 *   job        the service, options, inputs by absolute path, size and digest, the cleaned items' digest
 *   send       chunk N's request is leaving (after every wait before it): its item range and digest, when, and the
 *              tasks that existed before; a chunk with no send has nothing to settle
 *   created    chunk N is task T (answered, recovered, or reused)
 *   unknown    the request's outcome could not be settled (exit 9): the job stops at chunk N; with `covered_by`,
 *              another job's re-run of the same items took them over once this request could no longer land (its
 *              chunk's task is this chunk's: settle.ts follows it)
 *   reconciled a chunk in flight settled: task T adopted, or null (nothing was created: it is sent again); with
 *              `refused`, the service refused the chunk's items (a 4xx naming them): sent again never, skipped by
 *              `resume --skip-refused`
 *   done       every chunk has its task
 *   ignore     `resume --ignore-job`: another job that took a chunk over and has not finished is not waited for, though
 *              it may still create items of this job's chunks left (hand-over.ts `coveringTasks`)
 *   lost       chunk N's task T is no longer on the service: its id names another task now (created at `created_at`),
 *              the service's ids having started again; the chunk keeps T (never sent again) and is counted as lost,
 *              never as created. In a finished journal it is followed by the `done` record again (its last line)
 *   found      chunk N's task T is under its id again, as recorded (the service got its tasks back): the `lost` before
 *              it no longer holds. Followed by the `done` again in a finished journal, as `lost` is
 * The format is described in docs/behaviour.md; journals written by earlier versions read the same.
 */
import * as z from '../../lib/zod.js';
import { UsageError } from '../../errors.js';

/** How a chunk got its task: answered to its POST, recovered by the exactly-once rules, or an existing task reused. */
export type How = 'created' | 'recovered' | 'reused';

const FORMATS = ['lines', 'json', 'ndjson', 'csv'] as const;
const chunkNo = z.number().int().positive();

const InputSchema = z.object({
  /** `stream`: a `-f` input that was not a regular file (a pipe, a FIFO, a device), read once and copied. */
  kind: z.enum(['file', 'stdin', 'args', 'stream']),
  /** Absolute path read at resume: the file itself, or the copy beside the journal (stdin, arguments, a stream). */
  path: z.string(),
  /** A stream's path as given (`/dev/fd/63`), for messages: its bytes are read from `path`, the copy. */
  from: z.string().optional(),
  format: z.enum(FORMATS),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
});
export type JobInput = z.infer<typeof InputSchema>;

const JobSchema = z.object({
  type: z.literal('job'),
  version: z.literal(1),
  /** The job's id (core/job/registry.ts); journals of earlier versions have none and get one derived when read. */
  id: z.string().optional(),
  created_at: z.string(),
  service: z.string(),
  base_url: z.string(),
  account: z.string(),
  chunk_size: z.number().int().positive(),
  format: z.enum(FORMATS).nullable(),
  column: z.string().nullable(),
  validate: z.boolean(),
  keep_duplicates: z.boolean(),
  skip_invalid: z.boolean(),
  inputs: z.array(InputSchema),
  items: z.number().int().nonnegative(),
  items_sha256: z.string(),
  chunks: z.number().int().nonnegative(),
  /**
   * `--reuse-window` (ms; a retry's 1h by default): `resume` looks for a task of each chunk's items within it before
   * sending, as the job's first run did. Journals of earlier versions have none (their resume does not look).
   */
  reuse_window: z.number().int().positive().optional(),
  /** The tasks that window never reuses (a retry's own sources), with `reuse_window`. */
  not_reusable: z.array(z.number()).optional(),
  /**
   * Where the journal was made: its real path, device, inode and birth (store/job-places.ts `FileIdentity`), and the
   * cache directory of the run that made it (its absolute path), whose record of the job's place every run of the job
   * reads and writes, from whatever copy and with whatever cache directory of its own. A journal found at another path
   * with another identity, which no such record places, is a copy (journaled-run.ts `lastPlaceOf`). Journals of
   * earlier versions have none.
   */
  origin: z
    .object({
      path: z.string(),
      dev: z.string(),
      ino: z.string(),
      born: z.string().optional(),
      cache: z.string().optional(),
    })
    .optional(),
  /** A retry: the job retried (`--job`: its journal's absolute path) or the tasks (`retry <id...>`), and --error. */
  retry_of: z
    .object({ journal: z.string().optional(), tasks: z.array(z.number()).optional(), error: z.array(z.string()) })
    .optional(),
});
export type Job = z.infer<typeof JobSchema>;

/**
 * A job's chunk that took another job's chunk in doubt over (the same items, sent once that request could not land).
 * `whole`: that job is this one's input in the same chunking (service, account, base URL, items digest, chunk size):
 * it creates or reuses every chunk of these items, so this job is superseded by it (never sends again).
 */
const CoverSchema = z.object({ job: z.string(), chunk: chunkNo, whole: z.boolean().optional() });
export type Cover = z.infer<typeof CoverSchema>;

/**
 * The chunks of other jobs in doubt handed to this job's chunk (hand-over.ts: their `covered_by` names it), on the
 * chunk's `send` or reused `created`: that job's `resume` may take this job's tasks (`coveringTasks`), so this journal
 * is kept while that job has not finished, whatever its state directory (jobs.ts `pruneJobs`). Older readers ignore it.
 */
const CoversSchema = z.array(z.object({ job: z.string(), chunk: chunkNo })).optional();

const SendSchema = z.object({
  type: z.literal('send'),
  chunk: chunkNo,
  first: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  sha256: z.string(),
  /** The chunk's items as a multiset (core/items/multiset.ts): checked against its task's items by the --job commands. */
  items_digest: z.string().optional(),
  sent_at: z.number(),
  /** Epoch ms after which the request can no longer land (its deadline): a chunk in flight is settled after it. */
  settle_after: z.number(),
  before: z.array(z.number()),
  before_complete: z.boolean(),
  /**
   * Server minus client clock in ms, at least, as the run knew it when sending (Date headers): how a --job command
   * judges a task's created_at against `sent_at` whatever the clocks say. Journals of earlier versions have none.
   */
  server_offset: z.number().optional(),
  /**
   * The listing before the send showed every task stamped after `shown_after` (server-clock ms; null: every task) that
   * existed when it ended (`shown_at`, local ms): a task of `before`'s kind stamped after it and not in `before` is new
   * since (reconcile.ts `newSinceListing`). Absent when the listing proves nothing of the kind, and in journals of
   * earlier versions.
   */
  shown_after: z.number().nullable().optional(),
  shown_at: z.number().optional(),
  /** The other jobs' chunks handed to this one before it was sent (`CoversSchema`). */
  covers: CoversSchema,
});
export type SendRecord = z.infer<typeof SendSchema>;

const RecordSchema = z.discriminatedUnion('type', [
  JobSchema,
  SendSchema,
  z.object({
    type: z.literal('created'),
    chunk: chunkNo,
    task: z.number(),
    cost: z.number(),
    how: z.string(),
    /** The task's `created_at` as the service gave it: tells it from a task given its id again. Older readers ignore it. */
    created_at: z.string().optional(),
    /** The other jobs' chunks handed to this one, whose reused task covers them (`CoversSchema`). */
    covers: CoversSchema,
  }),
  z.object({
    type: z.literal('unknown'),
    chunk: chunkNo,
    candidates: z.array(z.number()),
    reason: z.string(),
    /** Another job took the chunk's items over (its chunk's task covers them). Older readers ignore it. */
    covered_by: CoverSchema.optional(),
  }),
  z.object({
    type: z.literal('reconciled'),
    chunk: chunkNo,
    task: z.number().nullable(),
    cost: z.number(),
    /** scan: the exactly-once rules; answer: the server refused the request (or it never left); user. */
    by: z.enum(['scan', 'answer', 'user']),
    /** The service refused the chunk's items (its words): the same items are refused again. Older readers ignore it. */
    refused: z.string().optional(),
    /** The task is another job's chunk's, which took this chunk's items over (`unknown` above). */
    covered_by: CoverSchema.optional(),
    /** The task's `created_at`, as in `created`. Older readers ignore it. */
    created_at: z.string().optional(),
  }),
  z.object({
    type: z.literal('done'),
    tasks: z.number(),
    items: z.number(),
    cost: z.number(),
    /**
     * The chunks lost when it was written (`lost` below), when any: what a glance at the last line (`taskctl jobs`'s
     * state for TAB completion) knows of them. Older readers ignore it.
     */
    lost: z.number().int().positive().optional(),
    /**
     * Written with every `done` since `lost` above was counted: the count (or its absence, none) can be trusted. A
     * `done` without it may be older than the count, so a glance looks through the journal (jobs.ts `lostAtDone`).
     * Older readers ignore it.
     */
    lost_counted: z.literal(true).optional(),
  }),
  /** `resume --ignore-job JOB`: that job, which took a chunk over, is not waited for (older readers: a damaged line). */
  z.object({ type: z.literal('ignore'), job: z.string() }),
  /**
   * The chunk's task `task` is not under its id any more: the service shows another task there, made at `created_at`
   * (own-claims.ts `staleCreation`), or none (no `created_at`: the service said it has no such task). Older readers: a
   * damaged line (after `done`, which is then written again).
   */
  z.object({ type: z.literal('lost'), chunk: chunkNo, task: z.number(), created_at: z.string().optional() }),
  /**
   * The chunk's task `task`, recorded `lost`, is under its id again as the journal recorded it (the service has it back,
   * own-claims.ts `holds`): the chunk counts as created again. Older readers: a damaged line (as `lost`).
   */
  z.object({ type: z.literal('found'), chunk: chunkNo, task: z.number() }),
]);
type JournalRecord = z.infer<typeof RecordSchema>;

/** What the journal says about one chunk. */
interface ChunkState {
  /**
   * Its last send. Once the chunk has a task, its `before` holds no more than that task (or nothing: the task was not
   * among them), the one question asked of it then (core/job/job-chunks.ts); a chunk in doubt keeps the whole list,
   * which the scan that settles it reads (settle.ts).
   */
  send?: SendRecord;
  /** The task the send's `before` was cut for (see `send`): a later task of the chunk needs the whole list again. */
  cutFor?: number;
  /**
   * `answered`: named by its POST's own answer (a `created` record), not adopted, scanned or reused; `created_at`: the
   * task's, when the record kept it (journals since it was added).
   */
  task?: { id: number; cost: number; how: How; answered?: boolean; created_at?: string };
  /**
   * Its task is no longer on the service (a `lost` record for that very task): its id names another task now. The
   * chunk still has it (never sent again), but it is not counted as created (`taskctl jobs`, `resume`'s summary).
   */
  lost?: true;
  /**
   * Sent again by the user's word (`resume --resend`, a `reconciled` record by the user with no task): exit 9 offers it
   * once, so hints followed as printed pay for the chunk at most once more (settle.ts `unsureHint`).
   */
  resentByUser?: true;
  /** The candidates exit 9 has named for its send so far: the user has been told to look at them. */
  named?: number[];
  /** The service refused its items (its words): never sent again; `resume --skip-refused` leaves it without a task. */
  refused?: string;
  /**
   * In doubt, and taken over by another job's chunk (a re-run of the same items that waited for this chunk's request
   * to land): that chunk's task is this one's, and only that job sends them (settle.ts).
   */
  coveredBy?: Cover;
}

export interface JobState {
  job: Job;
  /**
   * The job that took this one over whole (a `covered_by` with `whole`: the same items in the same chunking): this
   * job's chunks are that job's to create, and its `resume` continues that job (docs/behaviour.md#the-ledger).
   */
  supersededBy?: string;
  /** The `covered_by` that took it over whole (its job and chunk): whether that takeover stands is `standingTakeover`. */
  supersededCover?: Cover;
  /**
   * Each other job that took one of its chunks over (its first `covered_by`, whole or not): that job may have created
   * this job's other items too (hand-over.ts `coveringTasks`).
   */
  takenOver?: Cover[];
  /**
   * The chunks of other jobs that were handed to chunks of this one (the `covers` of its records): each of those jobs'
   * `resume` may take this job's tasks, so it is kept while they have not finished (jobs.ts `pruneJobs`).
   */
  tookOver?: Array<{ job: string; chunk: number }>;
  /** The jobs of `takenOver` (or their successors) the user said not to wait for (`resume --ignore-job`). */
  ignored?: string[];
  chunks: Map<number, ChunkState>;
  done: boolean;
  /** The `done` record's totals (the last one read): written again after a `lost` record in a finished journal. */
  totals?: { tasks: number; items: number; cost: number };
  /** A send was ever recorded (or may have been, in a damaged line): something may have reached the service. */
  sent: boolean;
  /** Line numbers that could not be read as records (a damaged journal): what they said is not known. */
  damaged: number[];
}

const HOWS: ReadonlySet<string> = new Set<How>(['created', 'recovered', 'reused']);

/** A record's `created_at`, when it has one, as a chunk's task keeps it. */
const createdAt = (record: { created_at?: string | undefined }) =>
  record.created_at === undefined ? {} : { created_at: record.created_at };

/** `raw` as a job record (a journal's first), or undefined when it is none. */
export function jobRecord(raw: unknown): Job | undefined {
  const result = JobSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}

/** The job that took this one over whole, when `raw` (a journal's last line) says so (JobState `supersededBy`). */
export function supersededIn(raw: unknown): string | undefined {
  const record = RecordSchema.safeParse(raw).data;
  return record !== undefined && (record.type === 'unknown' || record.type === 'reconciled') && record.covered_by?.whole
    ? record.covered_by.job
    : undefined;
}

/** True when `raw` is a `done` record: the last line of a finished job's journal. */
export function isDoneRecord(raw: unknown): boolean {
  return RecordSchema.safeParse(raw).data?.type === 'done';
}

/**
 * How many chunks a `done` record (a finished journal's last line) says were lost when it was written: undefined when
 * it is no `done`, or one written before the count (no count and no `lost_counted`), which cannot tell none from unsaid.
 */
export function lostInDone(raw: unknown): number | undefined {
  const record = RecordSchema.safeParse(raw).data;
  if (record?.type !== 'done') return undefined;
  return record.lost ?? (record.lost_counted ? 0 : undefined);
}

/** True when `raw` is a `reconciled` record of items the service refused: where a job stopped on a refused chunk. */
export function isRefusedRecord(raw: unknown): boolean {
  const record = RecordSchema.safeParse(raw).data;
  return record?.type === 'reconciled' && record.refused !== undefined;
}

function lineOf(raw: unknown): number | undefined {
  const line = (raw as { line?: unknown } | null)?.line;
  return typeof raw === 'object' && typeof line === 'number' ? line : undefined;
}

/**
 * The job's state from the records read (undefined for an empty journal). Every readable record counts; a damaged
 * line may have been any record, so a chunk it could have been about (up to one chunk past the last one named per
 * damaged line, chunks being sent in order) and that has no task is in doubt, never "never sent": it gets a send
 * record that proves nothing (sent when the job started, nothing known of what existed before), and the scan settles it.
 */
export function rebuild(records: readonly unknown[], path: string): JobState | undefined {
  const fold = new JobFold(path, { again: (onRecord) => records.forEach((record) => onRecord(record)) });
  for (const record of records) fold.add(record);
  return fold.end();
}

/** Reads the journal's records through again, each handed to `onRecord` in order (the file, or records in memory). */
type ReadAgain = (onRecord: (record: unknown) => void) => void;

/**
 * The chunk a record names, 0 for none: how far a journal has got is the highest (JobFold `reached`, and the place a
 * run records after each append: journaled-run.ts).
 */
export function chunkNamed(record: object): number {
  const chunk = (record as { chunk?: unknown }).chunk;
  return typeof chunk === 'number' ? chunk : 0;
}

/**
 * `rebuild` a record at a time, as the journal is read (store/journal-file.ts `readJournalRecords`, `JournalFile.open`):
 * only the job's state is held, never the records themselves, and of each send's list of earlier tasks only what is
 * asked of it (ChunkState `send`), so reading a journal takes the memory of its chunks, not of its lines
 * (docs/performance.md#a-create-that-is-a-job).
 */
export class JobFold {
  private state: JobState | undefined;
  /** The first record as read, before any check (what the job's id is derived from: core/job/registry.ts). */
  first: unknown;
  private count = 0;
  private readonly damaged: number[] = [];
  /** The tasks the readable records name, in order: what a journal whose job record is lost still tells. */
  private readonly tasks: number[] = [];
  /** A second job record came after the first: the journal is refused at the end. */
  private twoJobs = false;
  /** A readable record was met: the first one is the job's, or the journal is no job's. */
  private seenGood = false;
  /** A damaged line held zero bytes (a crash where records were): the journal is damaged, never "not a journal". */
  private zeroed = false;
  /** The highest chunk a readable record after the first names (how far a damaged line may reach). */
  private named = 0;
  /** The highest chunk a readable record names (how far the journal had got: journaled-run.ts, a journal put back). */
  get reached(): number {
    return this.named;
  }
  /** The job record, once read (before `end` checks the rest). */
  get job(): Job | undefined {
    return this.state?.job;
  }
  /** Chunks given another task after their send's list was cut: their lists are read again at the end (`again`). */
  private readonly relisted = new Set<number>();
  private readonly counts: boolean;
  private readonly again: ReadAgain | undefined;

  /**
   * `counts`: only what counts chunks is kept (`taskctl jobs`): the send records lose the task ids they saw before
   * them, which nothing that counts reads. `again`: how to read the records again, for the rare chunk given another
   * task after its send's list was cut (`resume --adopt` of a chunk whose task was not its own). `whole`: chunks whose
   * send keeps its whole list (that second read).
   */
  constructor(
    private readonly path: string,
    options: { counts: true } | { again: ReadAgain },
    private readonly whole: ReadonlySet<number> = new Set(),
  ) {
    this.counts = 'counts' in options;
    this.again = 'again' in options ? options.again : undefined;
  }

  add(raw: unknown): void {
    if (this.count++ === 0) this.first = raw;
    const result = RecordSchema.safeParse(raw);
    if (!result.success) {
      this.damaged.push(lineOf(raw) ?? this.count);
      this.zeroed ||= (raw as { zeroed?: unknown } | null)?.zeroed === true;
      return;
    }
    const record = result.data;
    if ((record.type === 'created' || record.type === 'reconciled') && record.task !== null)
      this.tasks.push(record.task);
    if (!this.seenGood) {
      this.seenGood = true;
      if (record.type === 'job') this.state = { job: record, chunks: new Map(), done: false, sent: false, damaged: [] };
      return;
    }
    this.named = Math.max(this.named, chunkNamed(record));
    if (this.state !== undefined) this.apply(this.state, record);
  }

  /**
   * Exit 2 when the records read so far are not a job's journal (it does not start with a job record), as `end` says
   * it: what opens a journal asks this before it records the file as a job (`jobs/ID.ref`).
   */
  refuseNotAJob(): void {
    if (this.count > 0 && (this.state === undefined || this.damaged.includes(1)))
      throw notAJob(this.path, this.tasks, this.damaged, this.zeroed);
  }

  /** Lines were read and none is a taskctl record: a file that is no journal at all (not a damaged one). */
  holdsNoRecord(): boolean {
    return this.count > 0 && !this.seenGood;
  }

  /** The state once every record is read (undefined for an empty journal); exit 2 for a journal with no job to go on. */
  end(): JobState | undefined {
    if (this.count === 0) return undefined;
    const { state, damaged } = this;
    if (state === undefined || damaged.includes(1)) throw notAJob(this.path, this.tasks, damaged, this.zeroed);
    if (this.twoJobs) throw new UsageError(`the journal ${this.path} holds two jobs`);
    state.damaged = damaged;
    if (this.relisted.size > 0 && this.again !== undefined) this.relist(state, this.again);
    if (damaged.length > 0) unproven(state, this.named);
    return state;
  }

  /** Each relisted chunk's send with its whole list, from a second read keeping those lists (nothing else is kept). */
  private relist(state: JobState, again: ReadAgain): void {
    const fold = new JobFold(this.path, { again }, this.relisted);
    again((record) => fold.add(record));
    for (const chunk of this.relisted) {
      const known = state.chunks.get(chunk);
      const whole = fold.state?.chunks.get(chunk)?.send;
      if (known?.send === undefined || whole === undefined) continue;
      known.send = whole;
      delete known.cutFor;
    }
  }

  /**
   * The chunk's send keeps of its list only whether the chunk's task is in it (`[task]` or `[]`), once both are known.
   * A task other than the one it was cut for needs the whole list: that chunk is relisted.
   */
  private cut(chunkNo: number, chunk: ChunkState): void {
    const { send, task } = chunk;
    if (send === undefined || task === undefined || this.counts || this.whole.has(chunkNo)) return;
    if (chunk.cutFor === task.id) return;
    if (chunk.cutFor !== undefined) {
      this.relisted.add(chunkNo);
      return;
    }
    chunk.send = { ...send, before: send.before.includes(task.id) ? [task.id] : [] };
    chunk.cutFor = task.id;
  }

  private apply(state: JobState, record: JournalRecord): void {
    if (record.type === 'job') {
      this.twoJobs = true;
      return;
    }
    if (record.type === 'done') {
      state.done = true;
      state.totals = { tasks: record.tasks, items: record.items, cost: record.cost };
      return;
    }
    if (record.type === 'lost' || record.type === 'found') {
      // Only about the task it names: a chunk given another task since (`resume --adopt`) has that one.
      const known = state.chunks.get(record.chunk);
      if (known?.task?.id !== record.task) return;
      if (record.type === 'lost') known.lost = true;
      else delete known.lost;
      return;
    }
    if (record.type === 'ignore') {
      if (!state.ignored?.includes(record.job)) (state.ignored ??= []).push(record.job);
      return;
    }
    if ((record.type === 'send' || record.type === 'created') && record.covers !== undefined)
      tookOver(state, record.covers);
    const chunk = state.chunks.get(record.chunk) ?? {};
    state.chunks.set(record.chunk, chunk);
    // Sent again or given a task after a refusal (an older version, which ignores `refused`, continued the journal).
    if (record.type === 'send' || record.type === 'created' || (record.type === 'reconciled' && record.task !== null))
      delete chunk.refused;
    if (record.type !== 'unknown') delete chunk.coveredBy; // the latest word on the chunk stands
    if (record.type === 'send') {
      chunk.send = this.counts ? { ...record, before: [] } : record;
      delete chunk.cutFor;
      state.sent = true;
      this.cut(record.chunk, chunk);
    } else if (record.type === 'created') {
      const how = HOWS.has(record.how) ? (record.how as How) : 'created';
      chunk.task = { id: record.task, cost: record.cost, how, answered: how === 'created', ...createdAt(record) };
      delete chunk.lost;
      this.cut(record.chunk, chunk);
    } else if (record.type === 'reconciled' && record.task !== null) {
      const how = record.covered_by ? 'reused' : record.by === 'scan' ? 'recovered' : 'created';
      chunk.task = { id: record.task, cost: record.cost, how, ...createdAt(record) };
      delete chunk.lost;
      this.cut(record.chunk, chunk);
    } else if (record.type === 'reconciled') {
      // Nothing created: to be sent, unless the service refused its items.
      state.chunks.set(
        record.chunk,
        record.refused !== undefined ? { refused: record.refused } : record.by === 'user' ? { resentByUser: true } : {},
      );
    } else {
      chunk.named = [...(chunk.named ?? []), ...record.candidates]; // exit 9 told the user to look at these
      if (record.covered_by) chunk.coveredBy = record.covered_by;
      else delete chunk.coveredBy;
    }
    if ((record.type === 'unknown' || record.type === 'reconciled') && record.covered_by !== undefined) {
      const cover = record.covered_by;
      if (!state.takenOver?.some((known) => known.job === cover.job)) (state.takenOver ??= []).push(cover);
    }
    // Taken over whole: it stands whatever comes after (its resume sends nothing of its own again).
    if ((record.type === 'unknown' || record.type === 'reconciled') && record.covered_by?.whole === true) {
      state.supersededBy = record.covered_by.job;
      state.supersededCover = record.covered_by;
    }
  }
}

/** Adds `covers` (a record's other jobs' chunks handed to this job) to the state's `tookOver`, each once. */
export function tookOver(state: JobState, covers: ReadonlyArray<{ job: string; chunk: number }>): void {
  for (const { job, chunk } of covers) {
    const known = (state.tookOver ??= []);
    if (!known.some((cover) => cover.job === job && cover.chunk === chunk)) known.push({ job, chunk });
  }
}

/**
 * Chunks a damaged line may have sent (up to `named`, the last chunk a record names, plus one per damaged line), without
 * a task: each gets a send record that proves nothing.
 */
function unproven(state: JobState, named: number): void {
  const { job } = state;
  state.sent = true;
  const reach = Math.min(job.chunks, named + state.damaged.length);
  const sends = [...state.chunks.values()].flatMap((chunk) => (chunk.send ? [chunk.send] : []));
  const startedAt = Date.parse(job.created_at);
  const since = Number.isNaN(startedAt) ? 0 : startedAt;
  const until = sends.reduce((latest, send) => Math.max(latest, send.settle_after), since);
  for (let chunk = 1; chunk <= reach; chunk++) {
    const known = state.chunks.get(chunk) ?? {};
    if (known.task || known.send || known.refused !== undefined) continue;
    const count = chunkItems(job, chunk);
    if (count === 0) continue;
    const first = (chunk - 1) * job.chunk_size;
    state.chunks.set(chunk, {
      send: {
        ...{ type: 'send', chunk, first, count, sha256: '', sent_at: since, settle_after: until },
        ...{ before: [], before_complete: false },
      },
    });
  }
  // Its `done` may be intact while a chunk's outcome is lost: not finished until the scan settles it.
  if (state.done && [...state.chunks.values()].some((chunk) => !chunk.task && chunk.refused === undefined))
    state.done = false;
}

/**
 * Not a journal, or one whose job record is lost: plain words, and the tasks its records name. Zeroed lines (a crash's)
 * make it a damaged journal, never "not a journal": its run may have made tasks no readable record names.
 */
function notAJob(path: string, tasks: readonly number[], damaged: readonly number[], zeroed: boolean): UsageError {
  const unnamed =
    'Its run may have created tasks no record names: look for them with `taskctl list` before you create its items again.';
  if (tasks.length === 0 && zeroed) {
    return new UsageError(
      `the journal ${path} is damaged: zero bytes where its records were (a crash), so the job cannot be continued from it`,
      unnamed,
    );
  }
  if (tasks.length === 0) {
    return new UsageError(
      `${path} is not a taskctl journal (it does not start with a job record)`,
      'Pass the file given to `taskctl create --journal`.',
    );
  }
  return new UsageError(
    `the journal ${path} is damaged: ${damaged.includes(1) ? 'its job record (line 1) cannot be read' : 'it does not start with its job record'}, so the job cannot be continued from it; it names ${tasks.length === 1 ? 'task' : 'tasks'} ${tasks.join(' ')}`,
    `These tasks exist: taskctl show ${tasks.slice(0, 20).join(' ')}${tasks.length > 20 ? ' …' : ''}${zeroed ? `\n${unnamed}` : ''}`,
  );
}

/**
 * Whether the job may have anything on the service, or anything the user was told of: a chunk with a task, a request
 * that may have made one (a send not settled), items the service refused, a chunk the user settled, another job's chunk
 * handed to it or taking one of its own, a damaged line, an end. A send the service answered by making nothing (a key
 * refused: `reconciled` with no task) leaves nothing there: a job with no more than that is not kept, and its hint is
 * the same command again (docs/behaviour.md#jobs).
 */
export function holdsAnything(state: JobState): boolean {
  if (state.done || state.damaged.length > 0 || state.supersededBy !== undefined) return true;
  if ((state.takenOver?.length ?? 0) > 0 || (state.tookOver?.length ?? 0) > 0) return true;
  return [...state.chunks.values()].some(
    (chunk) =>
      chunk.task !== undefined ||
      chunk.send !== undefined ||
      chunk.refused !== undefined ||
      chunk.resentByUser === true ||
      chunk.coveredBy !== undefined,
  );
}

/** The chunks whose task the service no longer has (ChunkState `lost`), in order. */
export function lostChunks(state: Pick<JobState, 'chunks'>): number[] {
  return [...state.chunks.entries()]
    .flatMap(([chunk, known]) => (known.lost === true && known.task !== undefined ? [chunk] : []))
    .sort((a, b) => a - b);
}

/**
 * `the service no longer has the tasks of chunks 1, 2 and 3 of job J: …`: what `resume` and `taskctl jobs` say of a
 * job's lost chunks (journal-records.ts `lost`).
 */
export function lostWords(chunks: readonly number[], job?: string): string {
  const which = chunks.length === 1 ? `the task of chunk ${chunks[0]}` : `the tasks of chunks ${chunkList(chunks)}`;
  return `the service no longer has ${which}${job === undefined ? '' : ` of job ${job}`}: ${chunks.length === 1 ? 'its id names another task or none' : 'their ids name other tasks or none'} now (its task ids started again); ${chunks.length === 1 ? 'it is' : 'they are'} not counted as created, and not sent again`;
}

/** `1, 2 and 3`; past 10 chunks, the first 10 and how many more. */
export function chunkList(chunks: readonly number[]): string {
  const shown = chunks.slice(0, 10);
  const more = chunks.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  return shown.length === 1 ? String(shown[0]) : `${shown.slice(0, -1).join(', ')} and ${String(shown.at(-1))}`;
}

/** Items in chunk `chunk` (from 1) of the job. */
export function chunkItems(job: Job, chunk: number): number {
  return Math.max(0, Math.min(job.chunk_size, job.items - (chunk - 1) * job.chunk_size));
}
