/**
 * A journaled job (`create --journal FILE`) read back for `show --job`, `wait --job`, `retry --job` and `diff`: its
 * chunks in order with their tasks, checked against the current server and account as `resume` checks them, and the
 * tasks read one at a time, each checked against its chunk (service, item count).
 */
import { resolve } from 'node:path';
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import { CliError, ExitCode, InputError, InterruptedError, NotFoundError, UsageError } from '../../errors.js';
import { noJournal, readJournalRecords } from '../../store/journal-file.js';
import { holderWords } from '../../store/lock-file.js';
import { jobIdOf, jobStore, journalOf } from './registry.js';
import { requireJobAccount } from './job-account.js';
import { chunkList, JobFold } from '../submit/journal-records.js';
import { checkChunkTask, goneChunkTask, jobChunks, type CreatedChunk, type JobChunk } from './job-chunks.js';
import { answerBytes, rateBudgetAllows, readAhead, type ReadAheadLimits } from './read-ahead.js';
import { standingTakeover } from '../submit/hand-over.js';
import { cacheDirectory } from '../../store/cache-dir.js';
import { jobPlace, makerCache, type RemovedAs } from '../../store/job-places.js';
import { endedFrom, tasksOnService, tasksSinceCommand } from './removed-place.js';
import { resumeCommand, waiting, type JobRef } from '../submit/resume-command.js';
import { counted } from '../../output/plural.js';

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
  /** The chunks that have a task, in order, but those recorded lost. */
  created: CreatedChunk[];
  /** The chunks recorded lost (their ids name other tasks now): left out of `created`, never read. */
  lost: CreatedChunk[];
  /** Chunk numbers without a task yet (never sent, in flight, or in doubt). */
  unfinished: number[];
  /** The live run holding the job's lock (a create or resume still sending it), in words: `process N on this machine`. */
  runner?: string;
  /** Chunks whose items the service refused: without a task for good, not unfinished. */
  refused: JobChunk[];
  /** The job that took this one over whole (a re-run of the same items in the same chunks): its tasks are these items'. */
  supersededBy?: string;
  /**
   * Unfinished here, the file this user last ran it from removed as the job ended there (store/job-places.ts
   * `removed`): its resume here is refused (exit 2), so no hint names it; its tasks are on the service since `since`
   * (the job's start, ISO).
   */
  endedElsewhere?: { path: string; as: RemovedAs; since: string };
}

/**
 * Reads the job in `file`: exit 2 when there is no file or no job in it, or when it belongs to another service (base
 * URL) or account than the current ones (as `resume` refuses it).
 */
export async function readJob(
  ctx: Pick<Output, 'printer'> &
    Pick<Service, 'api'> &
    Pick<Store, 'cache' | 'config'> &
    Pick<Runtime, 'env' | 'clock'>,
  file: string,
): Promise<JournaledJob> {
  const path = resolve(journalOf(ctx.env, file));
  // A record at a time: the job's state is held, never the journal's lines (docs/performance.md#large-jobs).
  const fold = new JobFold(path, { again: (onRecord) => readJournalRecords(path, onRecord) });
  if (!readJournalRecords(path, (record) => fold.add(record))) {
    throw noJournal(file);
  }
  const state = fold.end();
  if (!state) throw new UsageError(`${file} holds no job (a create stopped before recording one sent nothing)`);
  const { job } = state;
  if (state.damaged.length > 0) ctx.printer.warn(damageNote(file, state.damaged, state.done));
  const api = await ctx.api();
  await requireJobAccount(ctx, api, state, file);
  const chunks = jobChunks(state);
  const holder = state.done ? undefined : jobStore(ctx.env).runner(jobIdOf(job) ?? '', path);
  const over = standingTakeover(jobStore(ctx.env), state);
  const cacheDir = cacheDirectory(ctx.env);
  const place =
    state.done || holder ? undefined : jobPlace(cacheDir, jobIdOf(job) ?? '', makerCache(state.job.origin, cacheDir));
  const withTask = chunks.filter((chunk): chunk is CreatedChunk => chunk.task !== undefined);
  const read: JournaledJob = {
    file,
    path,
    service: job.service,
    chunkSize: job.chunk_size,
    items: job.items,
    chunks,
    created: withTask.filter((chunk) => chunk.lost !== true),
    lost: withTask.filter((chunk) => chunk.lost === true),
    unfinished: chunks
      .filter((chunk) => chunk.task === undefined && chunk.refused === undefined)
      .map((chunk) => chunk.chunk),
    refused: chunks.filter((chunk) => chunk.refused !== undefined),
    ...(holder && { runner: holderWords(holder) }),
    ...(over !== undefined && { supersededBy: over }),
    ...(place?.removed !== undefined && {
      endedElsewhere: { path: place.path, as: place.removed.as, since: job.created_at.replace(/\.\d+Z$/, 'Z') },
    }),
  };
  warnIfLost(ctx, read, jobIdOf(job) ?? file);
  return read;
}

/**
 * The chunks a `resume` recorded lost (their ids name other tasks now) are left out, once said: their items have no
 * result, and reading their ids would only find the other tasks again (docs/behaviour.md#the-jobs-own-claims).
 */
function warnIfLost(ctx: Pick<Output, 'printer'>, job: JournaledJob, name: string): void {
  if (job.lost.length === 0) return;
  const chunks = job.lost.map((chunk) => chunk.chunk);
  const which = chunks.length === 1 ? `chunk ${chunkList(chunks)} is` : `chunks ${chunkList(chunks)} are`;
  ctx.printer.warn(
    `job ${name}: ${which} recorded lost (the service gave ${chunks.length === 1 ? 'its id' : 'their ids'} to other tasks); using its other ${counted(job.created.length, 'task')}`,
  );
}

/**
 * A `--job` command that leaves chunks recorded lost out ends in exit 11 (the job's items are not all done, as its
 * `resume --wait` ends), unless it ends in another error. Called once the job is read, before any output: a reader of
 * stdout that goes away (`| head -1`) then ends the run with 11, not 0, and a wait's outcome of 0 stays 11.
 */
export function endShortIfLost(ctx: Pick<Process, 'endShort'>, job: JournaledJob): void {
  if (job.lost.length > 0) ctx.endShort(ExitCode.itemsFailed);
}

/** `the 3 items of the lost chunks 1, 2 and 3`: what `retry --job` does not send again. */
export function lostItemsWords(job: JournaledJob): string {
  const items = job.lost.reduce((sum, chunk) => sum + chunk.items, 0);
  const chunks = job.lost.map((chunk) => chunk.chunk);
  return `the ${counted(items, 'item')} of the lost ${chunks.length === 1 ? 'chunk' : 'chunks'} ${chunkList(chunks)}`;
}

/**
 * A damaged journal is read from every record that can be read; the rest is said, not guessed. A job `whole` (done,
 * every chunk's outcome recorded) has nothing left for a resume to settle: the note says so instead of naming it.
 */
function damageNote(file: string, lines: readonly number[], whole: boolean): string {
  const list = lines.length > 5 ? `${lines.slice(0, 5).join(', ')}, …` : lines.join(', ');
  const damaged = `the journal ${file} is damaged: ${lines.length === 1 ? 'line' : 'lines'} ${list} cannot be read`;
  if (whole) return `${damaged}; its other records account for every chunk`;
  return `${damaged}; the job is read from its other records (a chunk they leave without a task is settled by \`taskctl resume ${file}\`)`;
}

/** The unfinished chunks, named for a message: `3 chunks of 9 (4, 5, 9) have no task recorded yet` (one in doubt may have one on the service). */
function unfinishedText(job: JournaledJob): string {
  const list = job.unfinished.length > 5 ? `${job.unfinished.slice(0, 5).join(', ')}, …` : job.unfinished.join(', ');
  return `${counted(job.unfinished.length, 'chunk')} of ${job.chunks.length} (${list}) ${job.unfinished.length === 1 ? 'has' : 'have'} no task recorded yet`;
}

/**
 * `, and another taskctl (process N on this machine) is still creating it`: a job whose lock a live run holds is not
 * stopped, so `resume` (which that lock refuses) is not the way on; the end of that run is.
 */
function stillCreating(job: JournaledJob): string {
  return job.runner === undefined ? '' : `, and another taskctl (${job.runner}) is still creating it`;
}

/**
 * A job taken over whole by a re-run of the same items in the same chunks (hand-over.ts) has its items' tasks in that
 * job: every `--job` command (and `diff`) is exit 2 pointing to it, never half the job used with exit 0, nor
 * `resume`, which only continues that job. `again(id)`: the same command on that job.
 */
function requireNotSuperseded(job: JournaledJob, again: (id: string) => string): void {
  if (job.unfinished.length === 0 || job.supersededBy === undefined) return;
  throw new UsageError(
    `the job in ${job.file} is incomplete: ${unfinishedText(job)}; it was taken over by job ${job.supersededBy} (the same items, the same chunks), which has its items' tasks`,
    `Run it on that job: ${again(job.supersededBy)}`,
  );
}

/**
 * `wait --job` and `retry --job` need every task: an unfinished job is exit 2, pointing to `resume --wait` (with the
 * run's `flags`: a `retry --job`'s `--yes` and `--max-cost`, a `wait --job`'s exit-code flags, so the hint followed
 * confirms and ends as the run would have), or to the end of the run still creating it, or to the job that took it over.
 */
export function requireComplete(
  job: JournaledJob,
  command: string,
  flags: Pick<JobRef, 'yes' | 'maxCost' | 'wait'> = {},
): void {
  if (job.unfinished.length === 0) return;
  requireNotSuperseded(job, (id) => `taskctl ${command} ${id}`);
  const ended = job.endedElsewhere;
  if (ended !== undefined)
    throw new UsageError(
      `the job in ${job.file} is incomplete: ${unfinishedText(job)}; it ${endedFrom(ended.as, ended.path)}, which was removed since as ${ended.as}; ${command} needs every task`,
      `${capitalised(tasksOnService(ended.as))}: ${listedSince(job, ended)}`,
    );
  throw new UsageError(
    `the job in ${job.file} is incomplete: ${unfinishedText(job)}${stillCreating(job)}; ${command} needs every task`,
    job.runner === undefined
      ? `Finish it first: ${resumeCommand(waiting({ id: job.file, refused: job.refused.length > 0, ...flags }))}`
      : 'Wait for that run to end, then run this again.',
  );
}

/** The read that lists the tasks of a job that ended elsewhere, in a sentence. */
const listedSince = (job: JournaledJob, ended: NonNullable<JournaledJob['endedElsewhere']>) =>
  `\`${tasksSinceCommand(job.service, ended.since)}\` lists those made since it started`;

const capitalised = (words: string) => `${words.charAt(0).toUpperCase()}${words.slice(1)}`;

/**
 * A job every chunk of which the service refused has no task and never will: each `--job` command is exit 3 (the
 * service refused the items, nothing was created), never an exit 0 over no task at all that a CI step would read as
 * every item done (docs/behaviour.md#a-refused-chunk). A job with chunks still to send or recorded lost says so its own
 * way.
 */
export function requireTasks(job: JournaledJob): void {
  const [first] = job.refused;
  if (first === undefined || job.created.length > 0 || job.unfinished.length > 0 || job.lost.length > 0) return;
  const [which, whose] =
    job.refused.length === 1
      ? ['the only chunk', '']
      : [`all ${counted(job.refused.length, 'chunk')}`, `chunk ${first.chunk}: `];
  throw new InputError(
    `the service refused ${which} of the job in ${job.file} (${whose}${first.refused ?? ''}): the job has no task`,
    'Nothing of it was created or paid for: correct its items and create them again.',
  );
}

/**
 * The chunks the service refused have no task and never will: the `--job` commands use the others and say so
 * (docs/behaviour.md#a-refused-chunk).
 */
export function warnIfRefused(ctx: Pick<Output, 'printer'>, job: JournaledJob): void {
  const [first] = job.refused;
  if (first === undefined) return;
  const others = job.refused.length > 1 ? ` and ${counted(job.refused.length - 1, 'other chunk')}` : '';
  ctx.printer.warn(
    `the service refused chunk ${first.chunk}${others} of the job in ${job.file} (${first.refused ?? ''}): ${job.refused.length === 1 ? 'it has' : 'they have'} no task; using its ${counted(job.created.length, 'task')}`,
  );
}

/**
 * `show --job`, `watch --job` and `diff` use the tasks the job has, and say that it is incomplete; a job taken over
 * whole is exit 2, pointing to `again(id)`, the same command on the job that took it over.
 */
export function warnIfIncomplete(ctx: Pick<Output, 'printer'>, job: JournaledJob, again: (id: string) => string): void {
  warnIfRefused(ctx, job);
  if (job.unfinished.length === 0) return;
  requireNotSuperseded(job, again);
  const ended = job.endedElsewhere;
  // Ended elsewhere, its resume here is refused: where its tasks are, never a resume.
  const next =
    job.runner !== undefined
      ? 'run this again once that run has ended'
      : ended !== undefined
        ? `it ${endedFrom(ended.as, ended.path)}, which was removed since as ${ended.as}: ${tasksOnService(ended.as)}; ${listedSince(job, ended)}`
        : `finish it: ${resumeCommand({ id: job.file, refused: job.refused.length > 0 })}`;
  ctx.printer.warn(
    `the job in ${job.file} is incomplete: ${unfinishedText(job)}${stillCreating(job)}; using its ${counted(job.created.length, 'task')} (${next})`,
  );
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
      // The service's answer that it has no such task: the chunk's task is lost (job-chunks.ts goneChunkTask).
      if (error instanceof NotFoundError) throw goneChunkTask(job, chunk);
      throw new CliError(
        `task ${chunk.task} (chunk ${chunk.chunk} of ${job.file}): ${error.message}`,
        error.exitCode,
        error.hint,
      );
    }
  };
  const sizes = { items: (chunk: CreatedChunk) => chunk.items, bytes: answerBytes };
  for await (const { unit: chunk, answer: task } of readAhead(job.created, read, sizes, ahead, rateBudgetAllows(api))) {
    checkChunkTask(job, chunk, task);
    yield { chunk, task };
  }
}
