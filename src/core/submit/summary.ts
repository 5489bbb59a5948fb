/**
 * The pipeline's end, once the tasks exist: the summary line, a charge above --max-cost, items the server dropped,
 * the observer told, then --wait (a failure of the wait names the tasks and how to go on).
 */
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import {
  CliError,
  ExitCode,
  MalformedResponseError,
  NotFoundError,
  RateLimitError,
  UnavailableError,
} from '../../errors.js';
import { idArgs, LISTED_IDS } from '../follow/outcome.js';
import { waitForTasks, type WaitOptions } from '../follow/wait-loop.js';
import { jobTotals, type DoneChunk, type Outcome, type PipelineInput, type SubmitOptions } from './types.js';
import type { Task } from '../../api/schemas.js';
import { checkChunkTask, chunkTaskProblem, lostProof, type CreatedChunk } from '../job/job-chunks.js';
import { lostWords } from './journal-records.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { resumeCommand, waiting, withResumeHint, type JobRef } from './resume-command.js';

/** What the end uses of a run: the summary printed, the exit code, and --wait's own needs (follow/wait-loop.ts). */
type Finisher = Output & Process & Runtime & Store & Service;

/** Exit codes of a wait that ended before the tasks did: the note says how to go on waiting. */
const UNFINISHED: ReadonlySet<number> = new Set([
  ExitCode.rateLimited,
  ExitCode.unavailable,
  ExitCode.timeout,
  ExitCode.interrupted,
]);

interface Finished {
  /** Chunks an earlier run (or the settling before sending) gave a task. */
  done: ReadonlyMap<number, DoneChunk>;
  /** This run's tasks, by chunk. */
  outcomes: ReadonlyMap<number, Outcome>;
  input: PipelineInput;
}

export async function finishSubmission(ctx: Finisher, end: Finished, options: SubmitOptions): Promise<void> {
  const every = [...end.done.entries(), ...end.outcomes.entries()].sort(([a], [b]) => a - b).map(([, o]) => o);
  const now = [...end.outcomes.values()];
  try {
    end.input.observer?.finished(jobTotals(every));
  } catch (error) {
    // Every task exists; only the job's end is not on record: resuming it records that and sends nothing.
    throw withResumeHint(error, end.input.job);
  }
  const { job } = end.input;
  // Chunks whose task the service no longer has (its ids started again) are not counted as created.
  const lost = new Set(job === undefined ? [] : (end.input.observer?.lostChunks?.() ?? []));
  try {
    // A chunk recorded lost is not waited for; with --wait its id is read once first, in case its own task is back
    // (`foundAgain`): the summary then counts it, and no line calls it lost after it was found.
    if (options.wait && job !== undefined) await foundAgain(ctx, end, lost);
  } catch (error) {
    sayCreated(ctx, end, lost, options); // the tasks exist all the same (Ctrl-C, a key refused while reading)
    throw error;
  }
  const short = sayCreated(ctx, end, lost, options);
  if (!options.wait) return;
  // Items the server never took cannot have completed, nor can those of a chunk lost: not a clean success. Settled
  // before the wait prints anything, so a reader of stdout that goes away cannot make it 0.
  if (short || lost.size > 0) ctx.endShort(ExitCode.itemsFailed);
  // A job is named by its id in the hints that follow (`--job ID`), not by a list of ids.
  const byJob =
    job === undefined
      ? {}
      : { showCommand: `taskctl show --job ${job.id}`, resumeCommand: `taskctl wait --job ${job.id}` };
  const { timeout } = options as WaitOptions;
  const deadline = timeout > 0 ? ctx.clock.now() + timeout : undefined;
  const check = job === undefined ? undefined : earlierChunks(ctx, end, job, lost, deadline);
  try {
    await waitNamingTasks(
      ctx,
      // Every chunk's task but those recorded lost (their ids name other tasks): a task found lost now is exit 8.
      [...end.done.entries(), ...end.outcomes.entries()]
        .filter(([chunk]) => !lost.has(chunk) || end.outcomes.has(chunk))
        .sort(([a], [b]) => a - b)
        .map(([, o]) => o.task.id),
      {
        ...(options as WaitOptions),
        ...byJob,
        ...(check !== undefined && { verify: check.verify, missing: check.missing }),
      },
      now.map((o) => o.task),
    );
  } finally {
    check?.record();
  }
}

/**
 * The check of an earlier run's chunk against the task its id names now, as `wait --job` checks each (exit 8): the
 * service may have given the id to another task since (its ids started again), even to one of this run's chunks, or
 * have no task under it at all (not found: its ids started again and never reached it). The chunks found lost are
 * recorded all together (one write, `record`) once every earlier chunk's task was read, or the wait ended, then the
 * wait ends in exit 8 naming them; chunks recorded lost already (`lost`) are not read again. A task found lost is not
 * the job's: `verify` says so (false), and the wait does not show it as the job's progress. A chunk's id not found
 * (`missing`) reads the earlier chunks' tasks the wait has not read yet, one by one, so that every chunk lost is
 * recorded in the one write.
 */
function earlierChunks(
  ctx: Finisher,
  end: Finished,
  job: JobRef,
  lost: ReadonlySet<number>,
  deadline: number | undefined,
): { verify: (task: Task) => boolean; missing: (id: number) => Promise<void>; record: () => void } | undefined {
  const chunks = new Map<number, Array<{ service: string; chunk: CreatedChunk }>>();
  for (const [index, done] of end.done) {
    const facts = done.claim?.chunk;
    if (facts === undefined || end.outcomes.has(index) || lost.has(index)) continue;
    chunks.set(facts.chunk.task, [...(chunks.get(facts.chunk.task) ?? []), facts]);
  }
  if (chunks.size === 0) return undefined;
  const unread = new Set(chunks.keys());
  const found: Array<{ chunk: number; seen: { id: number; created_at?: string } }> = [];
  // The journal is still this run's: the chunks found lost are recorded there (job-journal.ts `lostAll`).
  const record = () => {
    if (found.length > 0) end.input.observer?.lostAll?.(found.splice(0).sort((a, b) => a.chunk - b.chunk));
  };
  /** Checks `task` against the chunks naming its id; true when it is theirs (none found lost by it). */
  const check = (task: Task): boolean => {
    unread.delete(task.id);
    let theirs = true;
    for (const { service, chunk } of chunks.get(task.id) ?? []) {
      if (lostProof({ service }, chunk, task)) {
        found.push({ chunk: chunk.chunk, seen: task });
        theirs = false;
      } else {
        try {
          checkChunkTask({ file: job.id, service, refused: job.refused === true ? ['refused'] : [] }, chunk, task);
        } catch (error) {
          record();
          throw error;
        }
      }
    }
    return theirs;
  };
  const lostNow = () => {
    // A chunk is found again when its task is read again before the wait can end (a later chunk's read failed, and the
    // next round reads the page listing the earlier ones first: their new status is a change, checked again): once.
    const numbers = [...new Set(found.map(({ chunk }) => chunk))].sort((a, b) => a - b);
    record();
    // The job's tasks left: this run's, and the earlier chunks' found lost neither before nor now.
    const earlier = [...end.done].filter(([index, done]) => {
      const facts = done.claim?.chunk;
      return (
        facts !== undefined && !end.outcomes.has(index) && !lost.has(index) && !numbers.includes(facts.chunk.chunk)
      );
    });
    const left = end.outcomes.size + earlier.length;
    const next =
      left > 0
        ? `Its other tasks (the chunks lost are not read again): ${resumeCommand(waiting(job))}`
        : 'No task of the job is left on the service to read or wait for.';
    return new LostChunksError(
      lostWords(numbers, job.id).replace(
        `of job ${job.id}:`,
        `of job ${job.id} (recorded in the job: \`taskctl jobs\` counts ${numbers.length === 1 ? 'it' : 'them'} lost):`,
      ),
      `The service's task ids seem to have started again (the service the job ran on, restarted without its state?).${end.outcomes.size === 0 ? ' Nothing was sent.' : ''} ${next}`,
    );
  };
  const verify = (task: Task): boolean => {
    const theirs = check(task);
    if (unread.size > 0 || found.length === 0) return theirs;
    throw lostNow();
  };
  const gone = (id: number) => {
    unread.delete(id);
    for (const { chunk } of chunks.get(id) ?? []) found.push({ chunk: chunk.chunk, seen: { id } });
  };
  const missing = async (id: number): Promise<void> => {
    if (!chunks.has(id)) return; // one of this run's tasks: the not-found error stands
    gone(id);
    // Within the wait's --timeout: what was found by then is recorded and said, the next resume --wait reads the rest.
    const api = await ctx.api(deadline === undefined ? {} : { deadline });
    for (const other of [...unread]) {
      if (deadline !== undefined && ctx.clock.now() >= deadline) break;
      try {
        check(await api.getTask(other));
      } catch (error) {
        if (error instanceof NotFoundError) {
          gone(other);
          continue;
        }
        // An outage or the deadline: what was found so far is recorded and said; the next resume --wait reads the rest.
        if (error instanceof UnavailableError || error instanceof RateLimitError) break;
        record();
        throw error;
      }
    }
    throw lostNow();
  };
  return { verify, missing, record };
}

/**
 * What the run created: the summary (chunks recorded lost left out), the lost chunks' warning, the cost and dropped-item
 * warnings; true when items were dropped.
 */
function sayCreated(ctx: Finisher, end: Finished, lost: ReadonlySet<number>, options: SubmitOptions): boolean {
  const { job } = end.input;
  // A task an earlier run of the job created (send.ts `settledEarlier`) is not this run's.
  const now = [...end.outcomes.values()].filter((outcome) => outcome.earlier !== true);
  const all = [...end.done.entries(), ...end.outcomes.entries()]
    .filter(([chunk]) => !lost.has(chunk) || end.outcomes.has(chunk))
    .sort(([a], [b]) => a - b)
    .map(([, o]) => o);
  // The line counts the whole job: a resume says how many of its tasks this run gave (0 too), whichever way the job is
  // named, so a resume that paid nothing never reads as the job bought again.
  const byRun = job !== undefined && now.length < all.length ? `${formatCount(now.length)} by this run` : undefined;
  const line = all.length > 0 ? summary(all, byRun) : 'no task';
  // A job in the state directory is named by its id on its own line (send-chunks.ts); one of --journal FILE by that id
  // too, its file beside it (one job, one name: never the file alone under a line that names the id).
  const file = job?.name === job?.id ? undefined : job?.name;
  const named = file === undefined || job === undefined ? line : `job ${job.id} (${file}): ${line}`;
  // No task is no success to tick: every chunk lost is said by the warning below, anything else in plain words.
  if (all.length > 0) ctx.printer.success(named);
  else if (lost.size === 0) ctx.printer.info(named);
  if (job !== undefined && lost.size > 0) ctx.printer.warn(lostWords([...lost], job.name));
  warnAboveMaxCost(ctx, now, options.maxCost);
  return warnDroppedItems(ctx, now);
}

/**
 * The chunks recorded lost (an earlier run's), each one's id read once before `--wait` waits for the others: its own
 * task under it again (the service got its tasks back: nothing tells it from the chunk's) is recorded found
 * (`ChunkObserver.found`), said, and waited for with the others; any other answer (another task, none, an outage) leaves
 * it lost and not waited for.
 */
async function foundAgain(ctx: Finisher, end: Finished, lost: Set<number>): Promise<void> {
  const observer = end.input.observer;
  if (observer?.found === undefined) return;
  const claims = [...lost].flatMap((chunk) => {
    const facts = end.done.get(chunk)?.claim?.chunk;
    return facts === undefined || end.outcomes.has(chunk) ? [] : [{ chunk, facts }];
  });
  if (claims.length === 0) return;
  const api = await ctx.api();
  for (const { chunk, facts } of claims) {
    let task: Task;
    try {
      task = await api.getTask(facts.chunk.task);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof UnavailableError || error instanceof RateLimitError)
        continue;
      throw error;
    }
    if (chunkTaskProblem({ service: facts.service }, facts.chunk, task) !== undefined) continue;
    observer.found(chunk, task.id);
    lost.delete(chunk);
    ctx.printer.info(`chunk ${chunk}: task ${task.id} is on the service again, as the job recorded it`);
  }
}

/** Chunks of the job found lost by `resume --wait`, recorded: its own hint says how to go on (no `wait --job`). */
class LostChunksError extends MalformedResponseError {}

/**
 * --wait after the tasks exist. A failure never hides them: 7, 8, 124 and 130 name them with the command to go on
 * (the wait's own endings already name it: `still running: …`, `try again later with …`).
 */
async function waitNamingTasks(
  ctx: Finisher,
  ids: number[],
  options: WaitOptions,
  known: ReadonlyArray<Outcome['task']>,
): Promise<void> {
  try {
    await waitForTasks(ctx, ids, options, known);
  } catch (error) {
    if (!(error instanceof CliError) || !UNFINISHED.has(error.exitCode) || ctx.ephemeralSandbox) throw error;
    if (error instanceof LostChunksError) throw error;
    const created = ids.length <= LISTED_IDS ? ids.join(' ') : `${formatCount(ids.length)} tasks`;
    const resume = options.resumeCommand ?? `taskctl wait ${idArgs(ids)}`;
    const note = `${ids.length === 1 ? 'the task was' : 'the tasks were'} created (${created}): continue with \`${resume}\``;
    throw new CliError(`${error.message}\n${note}`, error.exitCode, error.hint);
  }
}

/** Tasks that hold fewer items than were sent (total_items is the number the service took); true if any. */
function warnDroppedItems(ctx: Pick<Output, 'printer'>, outcomes: readonly Outcome[]): boolean {
  let any = false;
  for (const { task, how, items } of outcomes) {
    if (how === 'reused' || task.total_items >= items) continue;
    any = true;
    const dropped = items - task.total_items;
    ctx.printer.warn(
      `task ${task.id} holds ${formatCount(task.total_items)} of the ${counted(items, 'item')} sent: ${counted(dropped, 'item')} ${dropped === 1 ? 'was' : 'were'} dropped by the server`,
    );
  }
  return any;
}

/**
 * What the server charged above --max-cost, when its price changed between the estimate and the create. A warning, not
 * an error: the tasks exist and are paid for, and a failure code would invite a script to create (and pay) again.
 */
function warnAboveMaxCost(
  ctx: Pick<Output, 'printer'>,
  outcomes: readonly Outcome[],
  maxCost: number | undefined,
): void {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const charged = paid.reduce((sum, o) => sum + o.task.cost, 0);
  if (maxCost === undefined || charged <= maxCost) return;
  const what =
    paid.length === 1 && paid[0] ? `task ${paid[0].task.id}` : `tasks ${paid.map((o) => o.task.id).join(', ')}`;
  ctx.printer.warn(
    `${what} cost ${counted(charged, 'coin')}, above --max-cost ${formatCount(maxCost)} (the price changed after the estimate)`,
  );
}

/**
 * `task 41 for 3 items, 15 coins; reused task 36 for 2 items (no coins spent)`: only what was paid for costs coins.
 * What more there is to say goes in one parenthesis at the end of its part, its clauses apart by `;` (ids are apart
 * by `,`): the tasks recovered (`tasks 4, 7 recovered`; one task alone, `recovered`), and `byRun`, said of the whole
 * line, in the last part's (`(task 4 recovered; 1 by this run)`), never a second parenthesis beside the first.
 */
function summary(outcomes: readonly DoneChunk[], byRun?: string): string {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const reused = outcomes.filter((o) => o.how === 'reused');
  const tasks = (list: readonly DoneChunk[]) =>
    list.length === 1 && list[0] ? `task ${list[0].task.id}` : `${list.length} tasks`;
  const items = (list: readonly DoneChunk[]) =>
    counted(
      list.reduce((sum, o) => sum + o.items, 0),
      'item',
    );
  const parts: Array<{ text: string; notes: string[] }> = [];
  if (paid.length > 0) {
    const recovered = paid.filter((o) => o.how === 'recovered').map((o) => o.task.id);
    const coins = counted(
      paid.reduce((sum, o) => sum + o.task.cost, 0),
      'coin',
    );
    const which = paid.length === 1 ? '' : `${recovered.length === 1 ? 'task' : 'tasks'} ${recovered.join(', ')} `;
    parts.push({
      text: `${tasks(paid)} for ${items(paid)}, ${coins}`,
      notes: recovered.length > 0 ? [`${which}recovered`] : [],
    });
  }
  if (reused.length > 0) {
    const ids = reused.map((o) => o.task.id).join(', ');
    parts.push({
      text: `reused ${reused.length === 1 ? 'task' : 'tasks'} ${ids} for ${items(reused)}`,
      notes: ['no coins spent'],
    });
  }
  if (byRun !== undefined) parts.at(-1)?.notes.push(byRun);
  return parts.map(({ text, notes }) => (notes.length > 0 ? `${text} (${notes.join('; ')})` : text)).join('; ');
}
