/**
 * A journaled job (`create --journal FILE`) read back for `show --job`, `wait --job`, `retry --job` and `diff`: its
 * chunks in order with their tasks, checked against the current server and account as `resume` checks them, and the
 * tasks read one at a time, each checked against its chunk (service, item count).
 */
import { resolve } from 'node:path';
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Output, Runtime, Service, Store } from '../capabilities.js';
import { CliError, InterruptedError, MalformedResponseError, UsageError } from '../../errors.js';
import { readJournal } from '../../store/journal-file.js';
import { journalOf } from './registry.js';
import { jobAccountMismatch } from './job-account.js';
import { chunkItems, rebuild, type SendRecord } from '../submit/journal-records.js';
import { counted } from '../items/clean.js';
import { itemsDigest } from '../items/multiset.js';
import { listedTargets } from '../../lib/task-state.js';
import { parseTimestamp } from '../server-time.js';
import { answerBytes, readAhead, type ReadAheadLimits } from './read-ahead.js';

/**
 * How far the server's clock may be behind the client's when a chunk's task is judged by its `created_at` and the send
 * record does not say what the run knew of the server's clock (journals of earlier versions).
 */
const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60_000;
/** With the server's clock known at the send: what a stepping clock and a whole-second timestamp may still take back. */
const KNOWN_OFFSET_MARGIN_MS = 60_000;

/** One chunk of the job: its number (from 1), how many items it holds, and its task once created. */
interface JobChunk {
  chunk: number;
  items: number;
  task?: number;
  /** Its items as a multiset (core/items/multiset.ts), when its send record has one (journals since it was added). */
  digest?: string;
  /**
   * When its request left and the tasks that existed before it (its send record); not for a task reused. `offset`:
   * server minus client clock, at least, as known then; `answered`: the task is the one the POST's own answer named.
   */
  sent?: { at: number; before: ReadonlySet<number>; offset?: number; answered: boolean };
}

/** A chunk that has its task. */
export type CreatedChunk = JobChunk & { task: number };

export interface JournaledJob {
  /** The path as the user gave it (for messages and hints). */
  file: string;
  /** The absolute path. */
  path: string;
  service: string;
  chunkSize: number;
  /** Items of the whole job. */
  items: number;
  /** Every chunk, in order, with or without a task. */
  chunks: JobChunk[];
  /** The chunks that have a task, in order. */
  created: CreatedChunk[];
  /** Chunk numbers without a task yet (never sent, in flight, or in doubt). */
  unfinished: number[];
}

/**
 * Reads the job in `file`: exit 2 when there is no file or no job in it, or when it belongs to another server or
 * account than the current ones (as `resume` refuses it).
 */
export async function readJob(
  ctx: Pick<Output, 'printer'> & Pick<Service, 'api'> & Pick<Store, 'cache' | 'config'> & Pick<Runtime, 'env'>,
  file: string,
): Promise<JournaledJob> {
  const path = resolve(journalOf(ctx.env, file));
  const records = readJournal(path);
  if (records === undefined) {
    throw new UsageError(`no journal at ${file}`, 'Pass the file given to `taskctl create --journal`.');
  }
  const state = rebuild(records, path);
  if (!state) throw new UsageError(`${file} holds no job (a create stopped before recording one sent nothing)`);
  const { job } = state;
  if (state.damaged.length > 0) ctx.printer.warn(damageNote(file, state.damaged));
  const api = await ctx.api();
  const other = await jobAccountMismatch(ctx, job, api.baseUrl);
  if (other) {
    throw new UsageError(
      `the journal ${file} belongs to another ${other.otherService ? 'service' : 'account'}: ${other.what} differs`,
      other.hint,
    );
  }
  const chunks = Array.from({ length: job.chunks }, (_, i): JobChunk => {
    const chunk = i + 1;
    const known = state.chunks.get(chunk);
    const task = known?.task?.id;
    const send = known?.send;
    const digest = send?.items_digest;
    const fresh = send !== undefined && known?.task?.how !== 'reused';
    return {
      chunk,
      items: chunkItems(job, chunk),
      ...(task !== undefined && { task }),
      ...(digest !== undefined && { digest }),
      ...(fresh && { sent: sentOf(send, known?.task?.answered === true) }),
    };
  });
  return {
    file,
    path,
    service: job.service,
    chunkSize: job.chunk_size,
    items: job.items,
    chunks,
    created: chunks.filter((chunk): chunk is CreatedChunk => chunk.task !== undefined),
    unfinished: chunks.filter((chunk) => chunk.task === undefined).map((chunk) => chunk.chunk),
  };
}

function sentOf(send: SendRecord, answered: boolean): NonNullable<JobChunk['sent']> {
  const offset = send.server_offset;
  return { at: send.sent_at, before: new Set(send.before), answered, ...(offset !== undefined && { offset }) };
}

/** A damaged journal is read from every record that can be read; the rest is said, not guessed. */
function damageNote(file: string, lines: readonly number[]): string {
  const list = lines.length > 5 ? `${lines.slice(0, 5).join(', ')}, …` : lines.join(', ');
  return `the journal ${file} is damaged: ${lines.length === 1 ? 'line' : 'lines'} ${list} cannot be read; the job is read from its other records (a chunk they leave without a task is settled by \`taskctl resume ${file}\`)`;
}

/** The unfinished chunks, named for a message: `chunks 4, 5 and 9 have no task`. */
function unfinishedText(job: JournaledJob): string {
  const list = job.unfinished.length > 5 ? `${job.unfinished.slice(0, 5).join(', ')}, …` : job.unfinished.join(', ');
  return `${counted(job.unfinished.length, 'chunk')} of ${job.chunks.length} (${list}) ${job.unfinished.length === 1 ? 'has' : 'have'} no task yet`;
}

/** `wait --job` and `retry --job` need every task: an unfinished job is exit 2, pointing to `resume --wait`. */
export function requireComplete(job: JournaledJob, command: string): void {
  if (job.unfinished.length === 0) return;
  throw new UsageError(
    `the job in ${job.file} is incomplete: ${unfinishedText(job)}; ${command} needs every task`,
    `Finish it first: taskctl resume ${job.file} --wait`,
  );
}

/** `show --job` (and `diff`) use the tasks the job has, and say that it is incomplete. */
export function warnIfIncomplete(ctx: Pick<Output, 'printer'>, job: JournaledJob): void {
  if (job.unfinished.length === 0) return;
  ctx.printer.warn(
    `the job in ${job.file} is incomplete: ${unfinishedText(job)}; using its ${counted(job.created.length, 'task')} (finish it: taskctl resume ${job.file})`,
  );
}

/**
 * A task read for `chunk`: it must be the job's service and hold the chunk's items, else exit 8 naming the chunk. A task
 * of the right size that existed before the chunk was sent (its send record: the snapshot, the time) is another
 * task. The items themselves are compared (as a multiset, against the send record's digest) when the task was read
 * with all of them listed and the journal has the digest; otherwise the service, the count and the send are what is
 * known.
 */
export function checkChunkTask(job: Pick<JournaledJob, 'file' | 'service'>, chunk: CreatedChunk, task: Task): void {
  const wrong: string[] = [];
  // Items are compared only when the task lists every one of them: a server that leaves some out proves nothing.
  const listed = listedTargets(task);
  /** Why a task of the job's service is not the chunk's, in the hint's words. */
  let why = 'it holds a different number of items';
  if (task.service !== job.service) wrong.push(`it is a ${task.service} task, not ${job.service}`);
  if (task.total_items !== chunk.items) wrong.push(`it has ${counted(task.total_items, 'item')}, not ${chunk.items}`);
  else if (chunk.sent !== undefined && olderThanSend(chunk.sent, task)) {
    wrong.push(`it existed before the chunk was sent`);
    why = 'it was created before the chunk was sent';
  } else if (chunk.digest !== undefined && listed !== undefined) {
    if (itemsDigest(listed) !== chunk.digest) {
      wrong.push(`its items are not the ones the chunk sent`);
      why = 'it holds other items';
    }
  }
  if (wrong.length === 0) return;
  // Not a passing outage (a wait would poll it again): the journal names a task that is not its chunk's. Of the job's
  // service, it is another task of that service (adopted by hand, a journal edited): the chunk's own is to be given.
  throw new MalformedResponseError(
    `chunk ${chunk.chunk} of ${job.file} does not match task ${task.id}: ${wrong.join('; ')}`,
    task.service === job.service
      ? `Task ${task.id} is not this chunk's (${why}). Find the chunk's own task (another than ${task.id}), then give it: taskctl resume ${job.file} --adopt ${chunk.chunk}=ID`
      : 'The server does not answer with the task the journal recorded; is this the service the job ran on?',
  );
}

/**
 * A task that cannot have come from a request sent at `sent.at`: one the snapshot before it saw, or one created
 * earlier than the send on the server's clock (docs/commands.md#jobs-show---job-wait---job-retry---job---error). The server's clock is the
 * one the send record kept (its offset, less a margin); a send record without it (an older journal) judges by the
 * client's clock less CLOCK_SKEW_ALLOWANCE_MS, and then never the task its POST's own answer named (a server further
 * behind would make it look older). Costs no request.
 */
function olderThanSend(sent: NonNullable<JobChunk['sent']>, task: Task): boolean {
  if (sent.before.has(task.id)) return true;
  if (sent.offset === undefined && sent.answered) return false;
  const created = parseTimestamp(task.created_at);
  const earliest =
    sent.offset === undefined ? sent.at - CLOCK_SKEW_ALLOWANCE_MS : sent.at + sent.offset - KNOWN_OFFSET_MARGIN_MS;
  return created !== undefined && created.ms < earliest;
}

/**
 * The job's tasks in chunk order, each read once through the one client (its limiter paces the reads) and checked
 * against its chunk when its turn comes. One at a time unless `ahead` allows more (read-ahead.ts: a few tasks at once,
 * within a byte budget, handed on in order). A read that fails (gone, 5xx after trying again) keeps its exit code and names
 * the task and its chunk, after every task before it.
 */
export async function* jobTasks(
  api: ApiClient,
  job: JournaledJob,
  ahead: ReadAheadLimits = { tasks: 1, bytes: 0 },
): AsyncGenerator<{ chunk: CreatedChunk; task: Task }> {
  const read = async (chunk: CreatedChunk): Promise<Task> => {
    try {
      return await api.getTask(chunk.task);
    } catch (error) {
      if (!(error instanceof CliError) || error instanceof InterruptedError) throw error;
      throw new CliError(
        `task ${chunk.task} (chunk ${chunk.chunk} of ${job.file}): ${error.message}`,
        error.exitCode,
        error.hint,
      );
    }
  };
  const sizes = { items: (chunk: CreatedChunk) => chunk.items, bytes: answerBytes };
  // A stated budget with a request left for one more read beyond those under way (none stated: the limiter invents none).
  const budgetAllows = (reading: number) => {
    const budget = api.rateLimiter.snapshot();
    return budget === undefined || budget.remaining > reading;
  };
  for await (const { unit: chunk, answer: task } of readAhead(job.created, read, sizes, ahead, budgetAllows)) {
    checkChunkTask(job, chunk, task);
    yield { chunk, task };
  }
}
