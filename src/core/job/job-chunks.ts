/**
 * A job's chunks as its journal tells them (items, task, the send), and the one check that a task read is a chunk's
 * own: used by the `--job` commands on every task and by the proof that a new API key is the job's account
 * (job-account.ts).
 */
import type { Task } from '../../api/schemas.js';
import type { TaskFacts } from '../reconcile.js';
import { MalformedResponseError } from '../../errors.js';
import { chunkItems, type JobState, type SendRecord } from '../submit/journal-records.js';
import { resumeCommand, waiting } from '../submit/resume-command.js';
import { itemsDigest } from '../items/multiset.js';
import { listedTargets, sameCreation } from '../../lib/task-state.js';
import { parseTimestampWithResolution } from '../../lib/timestamp.js';
import { DATE_CLOCK_SPREAD_MS } from '../server-time.js';
import { counted } from '../../output/plural.js';

/**
 * How far the server's clock may be behind the client's when a chunk's task is judged by its `created_at` and the send
 * record does not say what the run knew of the server's clock (journals of earlier versions).
 */
const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;
/**
 * With the server's clock known at the send (from its Date headers): how far ahead that Date clock may read of the one
 * stamping tasks, which also covers a stepping clock and a whole-second timestamp.
 */
const KNOWN_OFFSET_MARGIN_MS = DATE_CLOCK_SPREAD_MS;

/** One chunk of the job: its number (from 1), how many items it holds, and its task once created. */
export interface JobChunk {
  chunk: number;
  items: number;
  task?: number;
  /** Its items as a multiset (core/items/multiset.ts), when its send record has one (journals since it was added). */
  digest?: string;
  /**
   * When its request left and, of the tasks that existed before it (its send record), its own task if it was one (the
   * task a `--job` command reads for it is that one: `getTask` answers the id asked or fails); not for a task reused.
   * `offset`:
   * server minus client clock, at least, as known then; `answered`: the task is the one the POST's own answer named;
   * `judged`: the run took it itself (that answer, or one it recovered: its scan, its ledger), by what it saw of the
   * service then, not by a user's `--adopt`.
   */
  sent?: { at: number; before: readonly number[]; offset?: number; answered: boolean; judged: boolean };
  /** The service refused its items (its words): it has no task and never will (docs/behaviour.md#a-refused-chunk). */
  refused?: string;
  /**
   * Its task's `created_at` as the journal recorded it (journals since it is kept): a task read under its id with
   * another is another task, the service having given the id out again (its ids started again from 1).
   */
  created_at?: string;
  /**
   * Recorded lost (a `lost` record, journal-records.ts): its id names another task now. The `--job` commands leave it
   * out (docs/behaviour.md#the-jobs-own-claims); only `resume` reads its id again.
   */
  lost?: true;
}

/** A chunk that has its task. */
export type CreatedChunk = JobChunk & { task: number };

/** Every chunk of the job, in order, with or without a task. */
export function jobChunks(state: JobState): JobChunk[] {
  return Array.from({ length: state.job.chunks }, (_, i): JobChunk => jobChunk(state, i + 1));
}

/** Chunk `chunk` of the job (from 1), as `jobChunks` tells it. */
export function jobChunk(state: JobState, chunk: number): JobChunk {
  const { job } = state;
  const known = state.chunks.get(chunk);
  const task = known?.task?.id;
  const send = known?.send;
  const digest = send?.items_digest;
  const fresh = send !== undefined && known?.task?.how !== 'reused';
  const created = known?.task?.created_at;
  return {
    chunk,
    items: chunkItems(job, chunk),
    ...(task !== undefined && { task }),
    ...(digest !== undefined && { digest }),
    ...(fresh && {
      sent: sentOf(send, task, {
        answered: known?.task?.answered === true,
        judged: known?.task?.answered === true || known?.task?.how === 'recovered',
      }),
    }),
    ...(known?.refused !== undefined && { refused: known.refused }),
    ...(created !== undefined && { created_at: created }),
    ...(known?.lost === true && task !== undefined && { lost: true as const }),
  };
}

function sentOf(
  send: SendRecord,
  task: number | undefined,
  { answered, judged }: { answered: boolean; judged: boolean },
): NonNullable<JobChunk['sent']> {
  const offset = send.server_offset;
  // Only what the check asks of the list (up to 100 ids a chunk: most of a large job's memory, held for the whole read).
  const before = task !== undefined && send.before.includes(task) ? [task] : NONE;
  return { at: send.sent_at, before, answered, judged, ...(offset !== undefined && { offset }) };
}

const NONE: readonly number[] = [];

/**
 * A task read for `chunk`: it must be the job's service and hold the chunk's items, else exit 8 naming the chunk. A task
 * of the right size that existed before the chunk was sent (its send record: the snapshot, the time) is another
 * task. The items themselves are compared (as a multiset, against the send record's digest) when the task was read
 * with all of them listed and the journal has the digest; otherwise the service, the count and the send are what is
 * known.
 */
export function checkChunkTask(
  job: {
    file: string;
    service: string;
    refused?: readonly unknown[];
    /** The job's chunks without a task yet (its resume sends or settles them before its --wait reads any). */
    unfinished?: readonly number[];
  },
  chunk: CreatedChunk,
  task: Task,
): void {
  const problem = chunkTaskProblem(job, chunk, task);
  if (problem === undefined) return;
  // A read command only reads (docs/behaviour.md#the-jobs-own-claims): `resume` records the chunk lost.
  if (problem.reissued)
    throw new MalformedResponseError(
      `chunk ${chunk.chunk} of ${job.file} does not match task ${task.id}: ${problem.wrong}`,
      recordLostHint(job, chunk),
    );
  // Not a passing outage (a wait would poll it again): the journal names a task that is not its chunk's. Of the job's
  // service, it is another task of that service (adopted by hand, a journal edited): the chunk's own is to be given.
  throw new MalformedResponseError(
    `chunk ${chunk.chunk} of ${job.file} does not match task ${task.id}: ${problem.wrong}`,
    task.service === job.service
      ? `Task ${task.id} is not this chunk's (${problem.why}). Find the chunk's own task (another than ${task.id}), then give it: ${resumeCommand({ id: job.file, refused: (job.refused?.length ?? 0) > 0 }, ` --adopt ${chunk.chunk}=ID`)}`
      : 'The server does not answer with the task the journal recorded; is this the service the job ran on?',
  );
}

/**
 * The checks a follow of a job's tasks makes (`wait --job`, `watch --job`): `verify`, each task read against the chunks
 * naming its id (`checkChunkTask`; two chunks may name one id, the service having given it out again), and `missing`,
 * a chunk's task the service says does not exist (`goneChunkTask`: exit 8 naming the resume that records it lost).
 */
export function chunkTaskChecks(job: Parameters<typeof checkChunkTask>[0] & { created: readonly CreatedChunk[] }): {
  verify: (task: Task) => true;
  missing: (id: number) => void;
} {
  const chunks = new Map<number, CreatedChunk[]>();
  for (const chunk of job.created) chunks.set(chunk.task, [...(chunks.get(chunk.task) ?? []), chunk]);
  return {
    verify: (task) => {
      for (const chunk of chunks.get(task.id) ?? []) checkChunkTask(job, chunk, task);
      return true;
    },
    missing: (id) => {
      const [chunk] = chunks.get(id) ?? [];
      if (chunk !== undefined) throw goneChunkTask(job, chunk);
    },
  };
}

/**
 * Chunk `chunk`'s task is not on the service at all (a read of its id: not found): the service's ids started again and
 * never reached it, or it was removed. Lost as a chunk whose id names another task is (`lostProof`): exit 8 naming the
 * resume that records it, never the not-found error's `taskctl list` (a job's id was the service's once).
 */
export function goneChunkTask(job: ChunkJob, chunk: CreatedChunk): MalformedResponseError {
  return new MalformedResponseError(
    `chunk ${chunk.chunk} of ${job.file}: its task ${chunk.task} is not on the service any more (task ${chunk.task} was not found)`,
    recordLostHint(job, chunk),
  );
}

/** The job as the checks of its chunks' tasks name it. */
interface ChunkJob {
  file: string;
  refused?: readonly unknown[];
  /** The job's chunks without a task yet (its resume sends or settles them before its --wait reads any). */
  unfinished?: readonly number[];
}

/** How a chunk found lost by a read command gets recorded: its job's `resume --wait` (the read commands only read). */
function recordLostHint(job: ChunkJob, chunk: CreatedChunk): string {
  // An unfinished job's resume sends its chunks left before its --wait reads the others: the hint says so.
  const left = job.unfinished?.length ?? 0;
  const how =
    left === 0
      ? ''
      : ` its resume records it, after it sends the ${counted(left, 'chunk')} not sent yet (or settles those in doubt; at their price, once confirmed):`;
  return `The service's task ids seem to have started again (the service the job ran on, restarted without its state?): chunk ${chunk.chunk}'s task is not under id ${chunk.task} any more. Nothing was sent. To record it in the job (so that \`taskctl jobs\` counts it lost):${how} ${resumeCommand(waiting({ id: job.file, refused: (job.refused?.length ?? 0) > 0 }))}`;
}

/** What makes `task` another than the chunk's (`wrong`, and `why` in a hint's words), or undefined when none is seen. */
export function chunkTaskProblem(
  job: { service: string },
  chunk: CreatedChunk,
  task: TaskFacts,
): { wrong: string; why: string; reissued?: true } | undefined {
  const wrong: string[] = [];
  // Items are compared only when the task lists every one of them: a server that leaves some out proves nothing.
  const listed = listedTargets(task);
  /** Why a task of the job's service is not the chunk's, in the hint's words. */
  let why = 'it holds a different number of items';
  if (task.service !== job.service) wrong.push(`it is a ${task.service} task, not ${job.service}`);
  if (task.total_items !== chunk.items) wrong.push(`it has ${counted(task.total_items, 'item')}, not ${chunk.items}`);
  else if (chunk.sent !== undefined && olderThanSend(chunk.sent, task, takenAsRecorded(chunk, task))) {
    wrong.push(`it existed before the chunk was sent`);
    why = 'it was created before the chunk was sent';
  } else if (chunk.created_at !== undefined && !sameCreation(chunk.created_at, task.created_at)) {
    // A task that could be the chunk's but for its creation time, which the journal kept: the service gave the id to
    // another task (its ids started again from 1), and the chunk's own is not under it any more. Only a task of the
    // job's service proves it (`lostProof`): one of another service may be a wrong adopt, and keeps that line.
    const created = `it was created ${task.created_at}, and the chunk's task ${task.id} was created ${chunk.created_at}`;
    if (wrong.length > 0) wrong.push(created);
    else
      return {
        wrong: `${created}: the service gave its id to another task`,
        why: 'the service gave its id to another task',
        reissued: true,
      };
  } else if (chunk.digest !== undefined && listed !== undefined) {
    if (itemsDigest(listed) !== chunk.digest) {
      wrong.push(`its items are not the ones the chunk sent`);
      why = 'it holds other items';
    }
  }
  return wrong.length === 0 ? undefined : { wrong: wrong.join('; '), why };
}

/**
 * The one rule of a *lost* chunk (docs/behaviour.md#the-jobs-own-claims), for `resume`'s records and the `--job`
 * commands' words alike: `task`, under the chunk's id now, is of the job's service and the chunk's size, made after its
 * send, and was created at another time than the journal kept (task-state.ts `sameCreation`: on proof only). A task of
 * another size or service, or a chunk whose creation time was not kept, proves nothing.
 */
export function lostProof(job: { service: string }, chunk: CreatedChunk, task: TaskFacts): boolean {
  return chunkTaskProblem(job, chunk, task)?.reissued === true;
}

/**
 * The task the run itself took for the chunk (its POST's answer, or its scan: JobChunk `judged`), under the creation
 * time it recorded then: judged when taken, by more than the time (the listing before the POST may have shown it new
 * while its stamp read minutes before a `Date` written by a clock ahead: docs/behaviour.md#the-window), so its time is
 * not held against it again. A task adopted by hand, or one given its id since, is judged by its time.
 */
function takenAsRecorded(chunk: JobChunk, task: TaskFacts): boolean {
  const recorded = chunk.created_at;
  if (chunk.sent?.judged !== true || recorded === undefined) return false;
  // On proof of the same creation: the same instant, however written (not sameCreation's benefit of the doubt).
  const at = (text: string) => parseTimestampWithResolution(text)?.ms;
  return recorded === task.created_at || (at(recorded) !== undefined && at(recorded) === at(task.created_at));
}

/**
 * A task that cannot have come from a request sent at `sent.at`: one the snapshot before it saw, or one created
 * earlier than the send on the server's clock (docs/commands.md#jobs-show---job-wait---job-retry---job---error). The server's clock is the
 * one the send record kept (its offset, less a margin); a send record without it (an older journal) judges by the
 * client's clock less CLOCK_SKEW_ALLOWANCE_MS, and then never the task its POST's own answer named (a server further
 * behind would make it look older). `judgedThen` (`takenAsRecorded`): judged by the snapshot alone.
 * Costs no request.
 */
function olderThanSend(sent: NonNullable<JobChunk['sent']>, task: TaskFacts, judgedThen: boolean): boolean {
  if (sent.before.includes(task.id)) return true;
  if (judgedThen) return false;
  if (sent.offset === undefined && sent.answered) return false;
  const created = parseTimestampWithResolution(task.created_at);
  const earliest =
    sent.offset === undefined ? sent.at - CLOCK_SKEW_ALLOWANCE_MS : sent.at + sent.offset - KNOWN_OFFSET_MARGIN_MS;
  return created !== undefined && created.ms < earliest;
}
