/**
 * Sends the chunks without a task in order, each through send.ts, printing each task as it is created and telling
 * the observer (a journal) at each step. Stdout is held (see output/stdout-guard.ts): when it fails (a closed pipe, a
 * full disk), the create in flight finishes, no further chunk is started, every task created is named on stderr, and
 * the exit code is 14.
 */
import { formatDuration } from '../../lib/duration.js';
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Output, Process, Prompts, Runtime, Service, Store } from '../capabilities.js';
import {
  AuthError,
  BalanceError,
  CliError,
  CreateUnknownError,
  ExitCode,
  InterruptedBeforeSendError,
  InterruptedError,
  JournalMovedError,
  RestoredChunkError,
  JournalWriteError,
  ReuseUnsearchedError,
  systemErrorWords,
} from '../../errors.js';
import { chunkCount } from '../items/chunks.js';
import { idsOnly } from '../quiet.js';
import { taskColumns } from '../../output/task-columns.js';
import { isoSeconds } from '../../output/times.js';
import type { OutputHold } from '../../output/stdout-guard.js';
import type { RowStream } from '../../output/printer.js';
import { ChunkProgress } from './chunk-progress.js';
import { withItemCounts } from '../follow/item-counts.js';
import { tasksOnService, tasksSinceCommand } from '../job/removed-place.js';
import { createOne, listHint, notLookedAt } from './send.js';
import { foundClaim, lostClaim, ownClaims } from './own-claims.js';
import { taskHolders, unsureHint } from './settle.js';
import { readTaken } from './taken-tasks.js';
import {
  jobTotals,
  type Dispatch,
  type DoneChunk,
  type Outcome,
  type PipelineInput,
  type PlannedChunk,
  type PricedBatch,
  type SendState,
  type SubmitOptions,
} from './types.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { journalFixed, refusedAdvice, refusedFix, resumeCommand, type JobRef } from './resume-command.js';

interface ChunkPlan {
  priced: readonly PricedBatch[];
  /** Chunks with a task before this run started sending. */
  done: ReadonlyMap<number, DoneChunk>;
  state: SendState;
  input: PipelineInput;
}

/** Exit codes of a create the server answered with a refusal (invalid, auth, not found, balance, rate limit, an
 * unknown code): it created nothing. */
const REFUSED: ReadonlySet<number> = new Set([
  ExitCode.input,
  ExitCode.auth,
  ExitCode.notFound,
  ExitCode.balance,
  ExitCode.rateLimited,
  ExitCode.refused,
]);

/** The chunks of every batch in order, read from the items as they are sent (a streamed input is never held whole). */
function* plannedChunks(batches: readonly PricedBatch[]): Generator<PlannedChunk> {
  let index = 0;
  for (const batch of batches) {
    let first = 0;
    for (const items of batch.list.chunks(batch.size)) {
      index++;
      yield { index, first, service: batch.service, items };
      first += items.length;
    }
  }
}

/** Sends what is left; returns this run's outcomes by chunk. */
export async function sendChunks(
  ctx: Output & Prompts & Process & Pick<Runtime, 'clock'> & Pick<Store, 'cache'> & Pick<Service, 'globals'>,
  api: ApiClient,
  plan: ChunkPlan,
  options: SubmitOptions,
): Promise<Map<number, Outcome>> {
  // Every chunk of the job, whether done before, settled now or still to send (counting `plan.done` beside the
  // priced chunks counted a chunk adopted by settling twice: "chunk 7 of 11" for a job of 10).
  const total = plan.priced.reduce((sum, batch) => sum + chunkCount(batch.list.count, batch.size), 0);
  const outcomes = new Map<number, Outcome>();
  const output = await TaskOutput.open(ctx, plan.priced.length === 1 && options.chunkSize === undefined, options);
  const progress = new ChunkProgress(ctx, total, reusedChunks(plan.done));
  try {
    await writeEarlier(ctx, api, plan.state, output);
  } catch (error) {
    progress.stop();
    await output.abort();
    output.release();
    throw error;
  }
  const tasks = () => plan.done.size + outcomes.size;
  const { job } = plan.input;
  let service = plan.priced[0]?.service ?? '';
  /** The chunk being sent, and when its request left while it may be on its way (for a run without a journal). */
  const flight: Flight = {};
  /** A job with a task of this run's on record is kept (journaled-run.ts), a reused one too: named at the first. */
  let named = plan.input.named === true;
  const name = () => {
    if (named || !job || outcomes.size === 0 || plan.input.observer?.anyRecorded() === false) return;
    named = true;
    progress.interject(() => ctx.printer.notice(`job ${job.id}: taskctl jobs`));
  };
  try {
    try {
      for (const chunk of plannedChunks(plan.priced)) {
        if (plan.done.has(chunk.index) || plan.input.skip?.has(chunk.index) === true) continue;
        service = chunk.service;
        flight.chunk = chunk;
        flight.sentAtMs = undefined;
        // The output is gone (known once the writes so far have settled): start nothing new (`flight` names the
        // chunk that was not sent).
        if (outcomes.size > 0 && (await output.lost())) break;
        const what = total === 1 ? 'the task' : `chunk ${chunk.index} of ${total}`;
        const sending = { plan, options, what, outcomes, flight };
        const outcome = await progress.sending(what, () => sendOne(ctx, api, chunk, sending));
        flight.chunk = undefined;
        outcomes.set(chunk.index, outcome);
        // On stdout before the journal's record: a journal that cannot be written never hides a task that exists.
        progress.interject(() => output.write(outcome.task));
        if (plan.input.observer)
          plan.input.observer.created(chunk, outcome.task, outcome.how, outcome.covers, outcome.handed);
        else outcome.covers?.();
        name();
        ctx.cache.rememberTasks([outcome.task]);
        // A chunk an earlier run created whose task the service no longer has is not counted as created.
        progress.sent(what, chunk.index, tasks(), outcome, plan.input.observer?.lostChunks?.());
      }
      // Every chunk has its task (or the output is gone): what the run reused is recorded now, if not yet.
      plan.input.observer?.ended(false);
      name();
    } catch (caught) {
      // A balance before this run's first POST is the money guard's refusal (a 402 comes after a send): the job is left
      // as it was, a task reused before it not recorded. A record that cannot be written then is the failure told.
      let error = caught;
      let finished = false;
      try {
        plan.input.observer?.ended(error instanceof BalanceError);
        // Nor does what it handed over of stopped jobs' chunks stand (a no-op once a POST of this run left).
        if (error instanceof BalanceError) plan.state.local.withdraw();
        finished = finishedAtRefusal(plan, flight, total, outcomes);
        name();
      } catch (writeError) {
        error = writeError;
      }
      progress.stop();
      await output.abort();
      // A job with nothing on record (refused by the balance guard, Ctrl-C before the first POST) is not kept and has
      // nothing to resume: the failure's own hint stands. A renamed journal holds its job whatever it recorded: its
      // resume by the new name (with this run's flags) is the way on.
      const stoppedJob =
        plan.input.observer?.anyRecorded() === false && !(error instanceof JournalMovedError) ? undefined : job;
      throw stopped(ctx, error, {
        service,
        tasks: tasks(),
        reused: reused(plan.done, outcomes),
        total,
        ids: ids(plan.done, outcomes),
        job: stoppedJob,
        journaled: job !== undefined,
        resumed: plan.input.verb === 'Resume' ? job : undefined,
        refused: stoppedJob === undefined ? undefined : refusedHint(plan, total, flight, stoppedJob.id, finished),
        // Exit 9 naming candidates: the way to settle it now (a bare resume would re-scan into the same exit 9).
        unsure:
          stoppedJob !== undefined &&
          flight.chunk !== undefined &&
          error instanceof CreateUnknownError &&
          error.candidates.length > 0
            ? unsureHint(
                stoppedJob,
                flight.chunk.index,
                error.candidates,
                taskHolders(plan.done),
                plan.input.observer?.resentByUser?.(flight.chunk.index) === true,
              )
            : undefined,
        unjournaled: job === undefined && total > 1 ? () => unjournaledHint(plan, total, flight, error) : undefined,
      });
    }
    progress.stop();
    await output.end();
    if (output.held) plan.state.table = () => output.draw(api, job?.id);
    const lost = await output.lost();
    if (lost) {
      const stopped = tasks() < total ? '; no further task was started' : '';
      throw new CliError(
        `cannot write the output (${systemErrorWords(lost)}): ${createdSoFar(tasks(), reused(plan.done, outcomes), total, ids(plan.done, outcomes))}${stopped}`,
        ExitCode.outputFailed,
        `The ids above may not have been printed. ${lostHint(job?.id, tasks() === total, () => continueHint(service, job, tasks(), unjournaledHint(plan, total, flight, undefined)))}`,
      );
    }
    return outcomes;
  } finally {
    output.release();
  }
}

/**
 * What this run has before sending, first on stdout, in chunk order: a chunk in doubt it settled has its task printed
 * as a create's (`resume -q | taskctl wait -` waits for it); a job of the same work taken (a create or retry) has its
 * tasks printed as a reused one is, each as it is read (taken-tasks.ts; `-q`: their ids, not read). A failed read (but
 * a task the service no longer has, left out) ends the run after the tasks before it.
 */
async function writeEarlier(
  ctx: Pick<Service, 'globals'>,
  api: ApiClient,
  state: SendState,
  output: TaskOutput,
): Promise<void> {
  const settled = [...(state.settled ?? [])].sort((a, b) => a.chunk - b.chunk);
  let next = 0;
  /** The settled chunks' tasks numbered below `chunk`, not yet written. */
  const settledBelow = (chunk: number) => {
    for (let entry = settled[next]; entry !== undefined && entry.chunk < chunk; entry = settled[++next])
      output.write(entry.task);
  };
  const taken = state.taken ?? [];
  if (idsOnly(ctx.globals))
    for (const { chunk, id } of taken) {
      settledBelow(chunk);
      output.write(id);
    }
  else
    for await (const { chunk, task } of readTaken(api, taken)) {
      settledBelow(chunk);
      output.write(task);
    }
  settledBelow(Number.POSITIVE_INFINITY);
}

/** One chunk's create, its dispatches and failures told to the observer as they happen. */
async function sendOne(
  ctx: Output & Prompts & Process & Pick<Runtime, 'clock'>,
  api: ApiClient,
  chunk: PlannedChunk,
  sending: {
    plan: ChunkPlan;
    options: SubmitOptions;
    what: string;
    outcomes: ReadonlyMap<number, Outcome>;
    flight: Flight;
  },
): Promise<Outcome> {
  const { plan, options, what, outcomes, flight } = sending;
  const { observer, job } = plan.input;
  // The job's other chunks' tasks, each claim with what was recorded of its task (own-claims.ts).
  const claimed = ownClaims(
    [
      ...[...plan.done.values()].map((done) => done.claim ?? { id: done.task.id }),
      ...[...outcomes.values()].map(({ task }) => ({
        id: task.id,
        created_at: task.created_at,
        read: { service: task.service, total_items: task.total_items },
      })),
    ],
    [],
    lostClaim(observer?.lost?.bind(observer)),
    foundClaim(observer?.found?.bind(observer)),
  );
  /** A request of this chunk left: a refusal is then the service's answer to its items. */
  const sent = { dispatched: false };
  const hooks = {
    ...(job !== undefined && { job: { journal: job.id, chunk: chunk.index } }),
    dispatched: (dispatch: Dispatch) => {
      observer?.sending(chunk, { ...dispatch, serverOffsetLow: api.serverClockBounds().low });
      flight.sentAtMs ??= dispatch.sentAtMs;
      sent.dispatched = true;
    },
    notProcessed: (why: string) => {
      observer?.notCreated(chunk, why);
      flight.sentAtMs = undefined;
    },
  };
  try {
    return await createOne(ctx, api, chunk, options, claimed, what, plan.state, hooks);
  } catch (error) {
    if (!observer) throw error;
    if (error instanceof CreateUnknownError) observer.unknown(chunk, error.candidates, error.message);
    // The request never left (Ctrl-C in the rate-limit wait), or the server refused it: nothing was created.
    else if (error instanceof InterruptedBeforeSendError) observer.notCreated(chunk, error.message);
    else if (error instanceof CliError && REFUSED.has(error.exitCode)) {
      // The service answered that these items are invalid (400, 413, 422): the same items are refused again.
      const refused = sent.dispatched && error.exitCode === ExitCode.input;
      observer.notCreated(chunk, error.message, refused);
      if (refused) {
        flight.refused = true;
        flight.refusedWhy = error.message;
      }
    }
    throw error;
  }
}

function ids(done: ReadonlyMap<number, DoneChunk>, outcomes: ReadonlyMap<number, Outcome>): number[] {
  return [...done.entries(), ...outcomes.entries()].sort(([a], [b]) => a - b).map(([, o]) => o.task.id);
}

/** The chunks an earlier run gave a task reused (another run's), not created by this job. */
function reusedChunks(done: ReadonlyMap<number, DoneChunk>): number[] {
  return [...done.entries()].flatMap(([chunk, outcome]) => (outcome.how === 'reused' ? [chunk] : []));
}

/** How many of the chunks done so far have a task reused (another run's), not created by this job. */
function reused(done: ReadonlyMap<number, DoneChunk>, outcomes: ReadonlyMap<number, Outcome>): number {
  return [...done.values(), ...outcomes.values()].filter((outcome) => outcome.how === 'reused').length;
}

/**
 * `created 2 and reused 1 of 4 tasks`: the tasks so far, those reused counted apart. `ranged`: consecutive ids as
 * ranges, a few at most (the job names the rest); else every id (stdout failed).
 */
function createdSoFar(
  tasks: number,
  reused: number,
  total: number,
  ids: readonly number[],
  ranged = false,
  when = '',
): string {
  const named = ranged ? idRanges(ids) : ids.join(' ');
  const created = tasks - reused;
  const counts =
    reused === 0
      ? `created ${created}`
      : created === 0
        ? `reused ${reused}`
        : `created ${created} and reused ${reused}`;
  return `${counts} of ${counted(total, 'task')}${when}` + (ids.length > 0 ? `: ${named}` : '');
}

/** `the job has 2 of 4 tasks (1 reused): 1–2`: a resume's tasks so far, its earlier runs' included, as ranges. */
function jobHasSoFar(tasks: number, reused: number, total: number, ids: readonly number[]): string {
  const reusedWords = reused > 0 ? ` (${formatCount(reused)} reused)` : '';
  return `the job has ${formatCount(tasks)} of ${counted(total, 'task')}${reusedWords}${ids.length > 0 ? `: ${idRanges(ids)}` : ''}`;
}

/** The one read of the latest states before a table at a terminal is drawn. */
const STATES_READ_MS = 2_000;

/** Ranges shown before the rest is only counted: a line, whatever the job's size. */
const SHOWN_RANGES = 4;

/** `101–136 140 142–150`: consecutive ids as a range; past a few ranges, how many more (the job's `show` names all). */
function idRanges(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const ranges: string[] = [];
  let shown = 0;
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === (sorted[end] ?? 0) + 1) end++;
    if (ranges.length === SHOWN_RANGES) return `${ranges.join(' ')} and ${formatCount(sorted.length - shown)} more`;
    ranges.push(end === start ? String(sorted[start]) : `${sorted[start]}–${sorted[end]}`);
    shown += end - start + 1;
    start = end + 1;
  }
  return ranges.join(' ');
}

/** The one next step of a job that stopped: it never sends a chunk that has a task again. */
function resumeHint(job: JobRef): string {
  return `Continue it with: ${resumeCommand(job)}`;
}

/** Without a journal (an unwritable state directory), re-running would send every item again: never advised. */
const NO_JOURNAL = 'This run kept no journal, so running the command again would send every item again';
const RESUMABLE = 'pass --journal FILE to make a create resumable';
const UNRESUMABLE = `${NO_JOURNAL}; create the rest with the items of no task above (${RESUMABLE}).`;

/** The chunk being sent; `sentAtMs` once its request has left and until the server says it did not process it. */
interface Flight {
  chunk?: PlannedChunk | undefined;
  sentAtMs?: number | undefined;
  /** The service refused the chunk's items (recorded in the job's journal as such). */
  refused?: boolean;
  /** The service's words for that refusal. */
  refusedWhy?: string;
}

/**
 * A job stopped because the service refused a chunk's items: `resume` would send the same items and meet the same
 * refusal, so the hint names the chunk by its items and the way past it (docs/behaviour.md#a-refused-chunk).
 */
function refusedHint(
  plan: Pick<ChunkPlan, 'priced'>,
  total: number,
  flight: Flight,
  job: string,
  finished: boolean,
): string | undefined {
  const chunk = flight.chunk;
  if (!chunk || flight.refused !== true) return undefined;
  let start = chunk.first;
  for (const batch of plan.priced) {
    if (batch.service === chunk.service) break;
    start += batch.list.count;
  }
  const range = rangeText(rangeOf(plan.priced, start, start + chunk.items.length), ': ');
  const reasons = [flight.refusedWhy ?? ''];
  const next = finished
    ? `${refusedFix(reasons)}; job ${job} is finished without them.`
    : refusedAdvice(reasons, `taskctl resume ${job} --skip-refused`);
  return `The service refused chunk ${chunk.index} of ${total} (${range}); sending the same items again is refused the same way.${numbering(plan.priced)}\n${next}`;
}

/**
 * The service refused the last chunk the job had left to send (each other has a task, or was refused before and
 * skipped): nothing is left to do, so the job is finished without it, as `resume --skip-refused` would finish it, never
 * left stopped on a resume that sends nothing (docs/behaviour.md#a-refused-chunk). False when that end cannot be
 * recorded (a full disk): the job stays stopped at the refusal, and its hint names that resume.
 */
function finishedAtRefusal(
  plan: Pick<ChunkPlan, 'done' | 'input'>,
  flight: Flight,
  total: number,
  outcomes: ReadonlyMap<number, Outcome>,
): boolean {
  const refused = flight.refused === true ? flight.chunk?.index : undefined;
  const { observer, skip } = plan.input;
  if (refused === undefined || observer === undefined) return false;
  for (let chunk = refused + 1; chunk <= total; chunk++)
    if (!plan.done.has(chunk) && skip?.has(chunk) !== true) return false;
  try {
    observer.finished(jobTotals([...plan.done.values(), ...outcomes.values()]));
    return true;
  } catch (error) {
    if (error instanceof JournalWriteError) return false;
    throw error;
  }
}

/** Items `from`–`to` of the submission (from 1), with the first and last of them as people find them in their input. */
interface ItemRange {
  from: number;
  to: number;
  first: string;
  last: string;
}

/** The item at `index` (from 0) of the whole submission, read from its batch's list (a spooled input: one chunk). */
function itemAt(priced: readonly PricedBatch[], index: number): string {
  let offset = index;
  for (const batch of priced) {
    if (offset >= batch.list.count) {
      offset -= batch.list.count;
      continue;
    }
    for (const items of batch.list.chunks(batch.size, Math.floor(offset / batch.size)))
      return items[offset % batch.size] ?? '';
  }
  return '';
}

function rangeOf(priced: readonly PricedBatch[], from: number, to: number): ItemRange {
  return { from: from + 1, to, first: itemAt(priced, from), last: itemAt(priced, to - 1) };
}

function rangeText({ from, to, first, last }: ItemRange, separator: string): string {
  return from === to ? `item ${from}${separator}${first}` : `items ${from}–${to}${separator}${first} to ${last}`;
}

/**
 * A run without a journal stopped at `flight.chunk`: the chunk whose request may have made a task, named by its items
 * with the list that shows whether it did (and until when one may still appear), apart from the items that have no
 * task (docs/behaviour.md#jobs). Following it never creates an item twice.
 */
function unjournaledHint(
  plan: Pick<ChunkPlan, 'priced' | 'state'>,
  total: number,
  flight: Flight,
  error: unknown,
): string | undefined {
  const chunk = flight.chunk;
  if (!chunk) return undefined;
  // Where the chunk starts in the whole submission (chunks of earlier batches before it).
  let start = chunk.first;
  for (const batch of plan.priced) {
    if (batch.service === chunk.service) break;
    start += batch.list.count;
  }
  const all = plan.priced.reduce((sum, batch) => sum + batch.list.count, 0);
  // Nothing was created by a request that never left, or that the server refused.
  const refused =
    error instanceof InterruptedBeforeSendError || (error instanceof CliError && REFUSED.has(error.exitCode));
  const sentAtMs = refused ? undefined : flight.sentAtMs;
  const end = sentAtMs === undefined ? start : start + chunk.items.length;
  const rest = end < all ? noTask(rangeOf(plan.priced, end, all)) : undefined;
  if (sentAtMs === undefined && chunk.index === 1) return undefined; // nothing sent: the failure's own hint stands
  const head = `${NO_JOURNAL}.${numbering(plan.priced)}`;
  if (sentAtMs === undefined)
    return rest === undefined ? undefined : `${head} ${capitalised(rest)}: create those (${RESUMABLE}).`;
  const since = isoSeconds(Math.floor(plan.state.serverClock.earliestServerTime(sentAtMs) / 1000) * 1000);
  const count = counted(chunk.items.length, 'item');
  const doubt =
    `The request for chunk ${chunk.index} of ${total} (${rangeText(rangeOf(plan.priced, start, end), ', ')}) may have ` +
    `made a task: look for one of ${count} not named above with \`taskctl list --service ${chunk.service} --since ${since}\`` +
    ` (if none is listed, look again after ${isoSeconds(sentAtMs + plan.state.landsWithinMs)}: its request may land until then) before creating those items again.`;
  return `${head} ${doubt}${rest === undefined ? '' : ` ${capitalised(rest)}: create those (${RESUMABLE}).`}`;
}

/**
 * What the item numbers of the hint count, when lines of the input are not among them (repeats removed, invalid items
 * skipped): the items as sent, not the input's lines, which would name other items. Empty when they are the input's
 * items in order.
 */
function numbering(priced: readonly PricedBatch[]): string {
  const repeats = priced.reduce((sum, batch) => sum + (batch.list.duplicates ?? 0), 0);
  const invalid = priced.reduce((sum, batch) => sum + (batch.list.invalidCount ?? 0), 0);
  const left = [
    ...(repeats > 0 ? [`the ${counted(repeats, 'repeated item')} removed`] : []),
    ...(invalid > 0 ? [`the ${counted(invalid, 'invalid item')} skipped`] : []),
  ];
  if (left.length === 0) return '';
  const each = repeats > 0 ? ': each distinct item once,' : ',';
  return ` Items are numbered as sent${each} in input order (not counted: ${left.join(', ')}).`;
}

function noTask(range: ItemRange): string {
  return `${rangeText(range, ' (')}) ${range.from === range.to ? 'has' : 'have'} no task`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** After stdout failed: the job's tasks when all were created (without a job the message names them), else what is left. */
function lostHint(job: string | undefined, all: boolean, rest: () => string): string {
  if (!all) return rest();
  return job === undefined ? 'Every item has a task.' : `See them: taskctl show --job ${job}`;
}

/** `unjournaled`: without a journal, the items that have no task named (unjournaledHint). */
function continueHint(service: string, job: JobRef | undefined, tasks: number, unjournaled?: string): string {
  if (job !== undefined) return resumeHint(job);
  return tasks > 0 ? (unjournaled ?? UNRESUMABLE) : listHint(service);
}

/**
 * A failure or Ctrl-C part-way names the tasks created so far and the one next step: `taskctl resume ID` for a job
 * (whatever the failure's own hint said: re-running the create would send the same items again).
 */
function stopped(
  ctx: Pick<Process, 'signal'>,
  error: unknown,
  at: {
    service: string;
    tasks: number;
    /** Of `tasks`, those reused (another run's), not created. */
    reused: number;
    total: number;
    ids: number[];
    job: JobRef | undefined;
    /** The run kept a journal (`job` undefined: it recorded nothing, and the job is not kept). */
    journaled: boolean;
    /**
     * A resume's job, even with nothing on record: it is kept (a resume never discards its job), and a lookup that could
     * not search its window names the resume's ways on, never the create's (a resume has no --reuse-window to drop).
     */
    resumed?: JobRef | undefined;
    /** The job's chunk the service refused, named with the way past it (refusedHint). */
    refused: string | undefined;
    /** The job's chunk that may have been created, with the candidates to look at and adopt (unsureHint). */
    unsure: string | undefined;
    /** Without a journal, past one chunk: the chunk that may have a task and the items that have none. */
    unjournaled: (() => string | undefined) | undefined;
  },
): unknown {
  const failure =
    error instanceof CliError
      ? error
      : ctx.signal.aborted
        ? new InterruptedError('interrupted', listHint(at.service))
        : undefined;
  if (!failure) return error;
  // Without a journal, a single task's own hint stands (the list to check, or its candidates); past one chunk, the
  // chunk that may have a task is named apart from the items that have none.
  const unjournaled = at.unjournaled?.();
  const unsearchedJob = at.job ?? at.resumed;
  const unsearchedHint =
    failure instanceof ReuseUnsearchedError && unsearchedJob !== undefined
      ? unsearchedResume(unsearchedJob, failure)
      : undefined;
  if (at.tasks === 0 && failure === error && at.job === undefined && unjournaled === undefined) {
    // A key refused with nothing of the job kept (its sends made nothing): no job to resume, the same command once the
    // key is fixed (a resume could not prove the new key's account by a task of the job: it has none).
    if (failure instanceof AuthError && at.resumed === undefined)
      return new CliError(
        failure.message,
        failure.exitCode,
        `${failure.hint ?? ''} Then run the same command again.`.trim(),
      );
    if (unsearchedHint === undefined) return error;
    return new CliError(failure.message, failure.exitCode, unsearchedHint);
  }
  // A job that sent goes on by its resume (with a window the list covers): a re-run would be a second job, and the
  // first one's resume would then pay again for what the second created. One that sent nothing left no job: a re-run
  // starts clean. A moved journal's hint names its new name (the job's id leads to the old one), with this run's flags.
  const moved =
    failure instanceof JournalMovedError && failure.now !== undefined && at.job !== undefined
      ? `Continue the job by its new name: ${resumeCommand({ ...at.job, id: failure.now })}`
      : undefined;
  const hint =
    failure instanceof ReuseUnsearchedError
      ? (unsearchedHint ?? failure.hint)
      : failure instanceof JournalMovedError || failure instanceof RestoredChunkError
        ? (moved ?? failure.hint)
        : (at.refused ??
          at.unsure ??
          (at.job !== undefined
            ? `${fixFirst(failure)}${resumeCommand(at.job)}`
            : (unjournaled ?? (at.tasks > 0 && !at.journaled ? UNRESUMABLE : failure.hint))));
  // A resume's stop names what the job has, its earlier runs' tasks too: "created … before that" read as this run's.
  const sofar =
    at.resumed !== undefined
      ? jobHasSoFar(at.tasks, at.reused, at.total, at.ids)
      : createdSoFar(at.tasks, at.reused, at.total, at.ids, at.job !== undefined, ' before that');
  const message = at.tasks === 0 ? failure.message : `${failure.message}\n${sofar}`;
  return new CliError(message, failure.exitCode, hint);
}

/**
 * A job whose `--reuse-window` lookup stopped at its page bound or its bound on candidate reads: its resume looks again
 * with the job's window and would stop the same way, so the hint names the resume with a window the pages (or the
 * reads) cover (the job's tasks are never sent again, whatever the window), or with no lookup at all.
 */
function unsearchedResume(job: JobRef, failure: ReuseUnsearchedError): string {
  // Let past a gone journal by this lookup: a resume without it (or with a window short of the job's start) is refused
  // (exit 2), and would buy again what that journal's run created. The ways on: that journal back, or forgotten.
  if (job.gone !== undefined) {
    const { gone, ...back } = job; // neither way looks: the journal back knows, forgotten buys again
    const forget = resumeCommand(back, ' --forget-gone-journal --no-reuse');
    // Removed as the job ended there (pruned), it cannot be put back: nothing is left to do but read its tasks, or
    // buy them again.
    if (gone.removed !== undefined) return removedResume(gone.path, gone.removed, forget);
    return `Put ${gone.path} back, then: ${resumeCommand(back)}; or, if it is lost for good, go on without looking, buying again whatever its run created of the chunks left: ${forget}`;
  }
  const skip = `without looking: ${resumeCommand(job, ' --no-reuse')}`;
  if (failure.shorter === undefined) return `Continue it ${skip}`;
  const window = formatDuration(failure.shorter);
  // What the shorter window leaves out, said beside it: the part of the job's window the walk could not search.
  const searched = failure.searched;
  const left =
    searched === undefined
      ? ''
      : ` (${notLookedAt(failure.shorter, searched.since, searched.window, {
          what: 'a chunk not sent yet',
          run: 'resume',
        })})`;
  const by = searched?.by ?? 'the list covers';
  return `Continue it with a window ${by}: ${resumeCommand(job, ` --reuse-window ${window}`)}${left}, or ${skip}`;
}

/**
 * The way on of a run let past a journal removed as its job ended there, whose lookup could not search the window: no
 * way back (that journal is not there to put back), but where the job's tasks are (a read that lists them), and, but
 * for a job that finished there (its chunks left were all that run's: the read alone), the one resume that goes on,
 * which buys them again, said as such.
 */
function removedResume(
  path: string,
  removed: NonNullable<NonNullable<JobRef['gone']>['removed']>,
  forget: string,
): string {
  const where = `${path} was removed as ${removed.as}: it cannot be put back. ${capitalised(tasksOnService(removed.as))} (\`${tasksSinceCommand(removed.service, removed.since)}\` lists those made since the job started)`;
  // Finished there: every chunk left is that run's task already, so the one resume that goes on would only buy them
  // again (a mistake): the read is the way on.
  if (removed.as === 'finished') return `${where}, and nothing of the job is left to buy.`;
  return `${where}. To go on without looking all the same, buying again whatever that run created of the chunks left: ${forget}`;
}

/**
 * What comes before a stopped job's resume command: what must be fixed first for the resume to get further (a key the
 * service refused, with that key's own advice; a balance that ran out), else nothing: resuming is the one next step.
 */
function fixFirst(failure: CliError): string {
  if (failure instanceof JournalWriteError) return journalFixed(failure);
  const key =
    failure instanceof AuthError
      ? failure.hint
      : failure instanceof CreateUnknownError
        ? failure.keyRefused
        : undefined;
  if (key !== undefined) return `${key} Then continue it: `;
  if (failure instanceof BalanceError)
    return `${failure.covers === undefined ? '' : `${failure.covers} `}Top up the balance, then continue it: `;
  return 'Continue it with: ';
}

type TaskOutputCtx = Pick<Output, 'io' | 'printer'> & Pick<Service, 'globals'>;

/**
 * The tasks on stdout as they are created: ids with -q, nothing with --wait (the wait prints their final state; a run
 * stopped before the wait prints them as created, see `abort`), else a stream in the output format; -o json is the
 * task itself when only one task can result (one service, no --chunk-size), else an array.
 */
class TaskOutput {
  private constructor(
    private readonly ctx: TaskOutputCtx,
    private readonly hold: OutputHold,
    private readonly out: RowStream<Task> | undefined,
    private readonly singleObject: boolean,
    /** At a terminal, a table's tasks are held and drawn after the summary line (`draw`); undefined elsewhere. */
    readonly held: Task[] | undefined,
    /** --wait (not -q): the stream its tasks go to if the run stops before the wait prints them. */
    private readonly unwaited?: () => RowStream<Task>,
  ) {}

  /** --wait: the tasks created, for a run that stops before the wait. */
  private readonly created: Task[] = [];

  private first: Task | undefined;

  static async open(ctx: TaskOutputCtx, oneTask: boolean, options: SubmitOptions): Promise<TaskOutput> {
    const { holdOutput } = await import('../../output/stdout-guard.js');
    const hold = holdOutput(ctx.io.stdout);
    const quiet = idsOnly(ctx.globals);
    const stream = () =>
      ctx.printer.stream(taskColumns(ctx.printer.paintStatus), (task: Task) => task, { wide: options.wide === true });
    const out = quiet || options.wait ? undefined : stream();
    const table = out !== undefined && ctx.printer.format === 'table' && ctx.io.stdout.isTTY === true;
    return new TaskOutput(
      ctx,
      hold,
      out,
      out !== undefined && oneTask && ctx.printer.format === 'json',
      table ? [] : undefined,
      !quiet && options.wait ? stream : undefined,
    );
  }

  /**
   * `task`: as created, reused or taken; a bare id (a taken task with -q, not read) is printed only with -q. A table
   * holds its rows until it is drawn and shows a task's item counts, never its items: it holds the task without them
   * (follow/item-counts.ts), so what it holds follows the tasks, not their answers (json and ndjson print the items).
   */
  write(task: Task | number): void {
    if (idsOnly(this.ctx.globals)) this.ctx.printer.line(String(typeof task === 'number' ? task : task.id));
    else if (typeof task === 'number') return;
    else this.print(this.ctx.printer.format === 'table' ? withItemCounts(task) : task);
  }

  private print(task: Task): void {
    if (this.unwaited) this.created.push(task);
    else if (this.singleObject) this.first ??= task;
    else if (this.held) this.held.push(task);
    else this.out?.write([task]);
  }

  async end(): Promise<void> {
    if (this.singleObject && this.first) this.ctx.printer.json(this.first);
    else if (!this.held) await this.out?.end();
  }

  /**
   * The held table with the service's latest states: one list read of at most 2 s; tasks it did not cover (or a read
   * that failed) keep their states as created, and a line says so (docs/behaviour.md#for-people).
   */
  async draw(api: ApiClient, job: string | undefined): Promise<void> {
    if (!this.held || !this.out) return;
    if (this.held.length === 0) return this.out.end();
    const latest = new Map<number, Task>();
    try {
      const { tasks } = await api.withBudget(STATES_READ_MS).listTasks({ perPage: 100 });
      for (const task of tasks) latest.set(task.id, task);
    } catch {
      // The states as created are shown, said to be so.
    }
    const rows = this.held.map((task) => latest.get(task.id) ?? task);
    if (this.held.some((task) => !latest.has(task.id)))
      this.ctx.printer.notice(
        `states as created; the latest: ${job === undefined ? 'taskctl list' : `taskctl show --job ${job}`}`,
      );
    this.out.write(rows);
    await this.out.end();
  }

  /**
   * A JSON array cut by the failure stays unterminated: a truncated result never parses as a whole one. At a terminal
   * the table is not drawn: the failure names the tasks by counts and ranges, on one screen (docs/behaviour.md#for-people).
   * With --wait the tasks created are printed now, as created, one whole document as the wait's own stops print them.
   */
  async abort(): Promise<void> {
    if (this.ctx.printer.format === 'table' && this.ctx.io.stdout.isTTY === true) return;
    if (this.unwaited && this.created.length > 0) {
      const out = this.unwaited();
      out.write(this.created);
      return out.end();
    }
    if (!this.singleObject) await this.out?.abort();
  }

  lost(): Promise<NodeJS.ErrnoException | undefined> {
    return this.hold.settle();
  }

  release(): void {
    this.hold.release();
  }
}
