/**
 * The one wait loop behind `wait`, `create --wait` and `retry --wait`: follows the tasks (follow.ts), shows them
 * (display.ts), prints the result, sets the exit code (outcome.ts) and writes the reports.
 */
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import type { Task } from '../../api/schemas.js';
import type { FollowResult } from './follow.js';
import { AuthError, CliError, ExitCode } from '../../errors.js';
import { onMissing } from './reader.js';
import { formatDuration } from '../../lib/duration.js';
import { isTerminal, disagreeingCountsWarner, unknownStatusWarner } from '../../lib/task-state.js';
import { answerDoubtWarnings, nameFailedTasks } from './failed-tasks.js';
import { printTaskItems } from '../task-results.js';
import {
  BEFORE_FIRST_ANSWER,
  exitCodeFlags,
  idArgs,
  resumeHint,
  stillRunningMessage,
  waitExitCode,
} from './outcome.js';
import { idListCommand } from './id-list.js';
import { fetchWithItems, writeReports, type ReportSpec } from '../../report/write.js';
import { sandboxAwareHint } from '../sandbox-hint.js';
import { counted } from '../../output/plural.js';
import { taskColumns } from '../../output/task-columns.js';
import { idsOnly } from '../quiet.js';
import { serviceNow } from '../server-time.js';

export interface WaitOptions {
  /** Poll interval in ms while a task's end cannot be predicted (default 2 s); grows ×1.5 to 30 s while nothing changes. */
  interval: number;
  /** Give up after this many ms (default 30 min; 0 = never) → exit 124. */
  timeout: number;
  /** Return when the first task reaches the state. */
  any?: boolean;
  /** State to wait for: a terminal state (default), `processing` or `completed`. */
  until?: 'processing' | 'completed';
  /** A completed task with failed items exits 0 instead of 11. */
  allowItemFailures?: boolean;
  /** Reports to write after the wait (`--report junit=FILE`, `--report github`). */
  report?: ReportSpec[];
  /**
   * The item results at the end: undefined = on a terminal (one task: its items table; several: a summary and the
   * `show` command), false (`--no-results`) = the task records only, true (`--results`) = also in script formats.
   */
  results?: boolean;
  /** The command that shows the items, in the hint after several tasks (`wait --job`: `taskctl show --job FILE`). */
  showCommand?: string;
  /** `--wide`: the tables at the end keep every column at full width, whatever the terminal's width. */
  wide?: boolean;
  /** The command that waits again, in the hint after a timeout, Ctrl-C or outage (`wait --job`: `taskctl wait --job FILE`). */
  resumeCommand?: string;
  /** `--outage-tolerance`: no good answer for this long ends the wait with 8 (7 after a 429); default the setting, 2 min. */
  outageTolerance?: number;
  /**
   * Checks each task as it is seen (`wait --job`: the task is its chunk's); what it throws ends the wait. `false`: the
   * task is not the one waited for (a job's chunk whose id names another task now): not shown as progress.
   */
  verify?: (task: Task) => boolean | undefined;
  /**
   * A task the service says does not exist (not found): what this throws ends the wait instead of the not-found error
   * (a job's chunk whose task the service no longer has); returning lets that error end it.
   */
  missing?: (id: number) => Promise<void> | void;
}

/** How long the items of the waited tasks may take to read for `--report`, after the wait ended. */
const REPORT_READ_BUDGET_MS = 60_000;

/**
 * What a wait prints at its end: on a terminal, one finished task's item results (as `show` prints them,
 * paged when long), several tasks' summary table and the command that shows their items; in script formats the task
 * records, or with `--results` the item records as `show` prints them. `--no-results` keeps the task records. After
 * Ctrl-C, a task the wait never read is said to show its state as created. True when the items of every task were
 * shown or named by a command, so that what follows need not point at them again.
 */
async function printOutcome(
  ctx: Output & Runtime & Service,
  tasks: Task[],
  follow: Pick<FollowResult, 'reason' | 'tasks'>,
  options: Pick<WaitOptions, 'results' | 'showCommand' | 'wide'>,
): Promise<boolean> {
  const itemsNamed = await printTasks(ctx, tasks, follow.reason === 'done', options);
  if (follow.reason === 'interrupted' || follow.reason === 'timeout')
    sayUnread(ctx, tasks, follow.tasks, follow.reason, options.showCommand);
  return itemsNamed;
}

async function printTasks(
  ctx: Output & Runtime & Service,
  tasks: Task[],
  done: boolean,
  { results, showCommand, wide }: Pick<WaitOptions, 'results' | 'showCommand' | 'wide'>,
): Promise<boolean> {
  const printer = ctx.printer;
  const human = printer.format === 'table';
  const one = tasks.length === 1 && tasks[0] !== undefined && isTerminal(tasks[0]);
  const items = results === true || (results === undefined && human && done && one);
  if (items) {
    const full = await withItems(ctx, tasks);
    if (full) {
      await printTaskItems(ctx, full, { single: tasks.length === 1, wide });
      return human;
    }
  }
  await printer.list(tasks, taskColumns(printer.paintStatus, printer.chalk), tasks, { wide: wide === true });
  if (!(human && done && results !== false && tasks.length > 1)) return false;
  const hint = `See the items: ${showCommand ?? `taskctl show ${idArgs(tasks.map((task) => task.id))}`}`;
  printer.info(sandboxAwareHint(ctx.ephemeralSandbox, hint) ?? hint);
  return true;
}

/** The tasks read once more with their items (polling reads summaries); undefined, with a warning, when one cannot be. */
async function withItems(ctx: Output & Runtime & Service, tasks: readonly Task[]): Promise<Task[] | undefined> {
  const api = await ctx.api({ deadline: ctx.clock.now() + REPORT_READ_BUDGET_MS });
  const full: Task[] = [];
  for (const task of tasks) {
    try {
      full.push(task.items ? task : await api.getTask(task.id));
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      ctx.printer.warn(`could not read the item results of task ${task.id} (${error.message}); showing the tasks`);
      return undefined;
    }
  }
  return full;
}

/**
 * The last known state of each task: as seen, else as created; nothing at all when the service never answered and
 * nothing was known (no `[]` for a failure).
 */
function lastKnown(ids: readonly number[], seenTasks: readonly Task[], known: readonly Task[]): Task[] {
  const seen = new Map(seenTasks.map((task) => [task.id, task]));
  const knownById = new Map(known.map((task) => [task.id, task]));
  return ids.flatMap((id) => seen.get(id) ?? knownById.get(id) ?? []);
}

/**
 * After Ctrl-C or a timeout the tasks show the states the wait read; one it never read (the stop came before its first
 * answer) shows its state as created, which is said, with where to see the latest (no request is made for it now).
 */
function sayUnread(
  ctx: Pick<Output, 'printer'>,
  shown: readonly Task[],
  read: readonly Task[],
  reason: 'interrupted' | 'timeout',
  showCommand: string | undefined,
): void {
  const seen = new Set(read.map((task) => task.id));
  const unread = shown.filter((task) => !seen.has(task.id)).map((task) => task.id);
  if (unread.length === 0) return;
  const which = unread.length === shown.length ? '' : `${unread.length === 1 ? 'task' : 'tasks'} ${idArgs(unread)}: `;
  const one = unread.length === 1;
  // Two lines: the command on its own, so an 80-column terminal never breaks it in the middle.
  const why = reason === 'timeout' ? 'the wait timed out before it read' : 'the run stopped before the wait read';
  ctx.printer.notice(`${which}${one ? 'state' : 'states'} as created: ${why} ${one ? 'it' : 'them'}`);
  ctx.printer.notice(`the latest: ${showCommand ?? `taskctl show ${idArgs(unread)}`}`);
}

/**
 * A wait that ends in an error (an answer it cannot read) still leaves the tasks `create --wait` made on stdout: their
 * records as created, said to be so, with where to see the latest. Nothing for a `wait`, which created none.
 */
async function printAsCreated(
  ctx: Output & Runtime & Service,
  ids: readonly number[],
  known: readonly Task[],
  options: Pick<WaitOptions, 'showCommand' | 'wide'>,
): Promise<void> {
  const tasks = lastKnown(ids, [], known);
  if (tasks.length === 0) return;
  await printTasks(ctx, tasks, false, { ...options, results: false });
  const one = tasks.length === 1;
  const show = options.showCommand ?? `taskctl show ${idArgs(tasks.map((task) => task.id))}`;
  ctx.printer.notice(`${one ? 'state' : 'states'} as created; the latest: ${show}`);
}

/** The log group of a wait's progress lines (GitHub Actions). */
function groupTitle(ids: readonly number[]): string {
  return `waiting for ${ids.length === 1 ? `task ${ids[0]}` : counted(ids.length, 'task')}`;
}

/** The reports, from the tasks read again with their items. */
async function reportTasks(
  ctx: Output & Process & Runtime & Service,
  report: ReportSpec[],
  tasks: readonly Task[],
): Promise<void> {
  // Read after the wait's own deadline, which may have passed (a timed-out wait still reports): a budget of its own.
  const api = await ctx.api({ deadline: ctx.clock.now() + REPORT_READ_BUDGET_MS });
  await writeReports(ctx, report, await fetchWithItems(api, tasks, (text) => ctx.printer.warn(text)));
}

/**
 * The timeout's error and its next step. A deadline that came before the wait sent its first read is a timeout too
 * (124), said as it is: the service was asked nothing, so nothing is said of it, nor of the tasks' states now. The
 * rate limit is named only when the limiter held that read (the run before it spent the budget).
 */
function timeoutLines(
  result: Pick<FollowResult, 'requests' | 'heldByRateLimit'>,
  tasks: number,
  timeoutMs: number,
  resume: string,
  { note, budget }: { note: string; budget: string | undefined },
): [string, string] {
  const after = `timed out after ${formatDuration(timeoutMs)}`;
  if (result.requests > 0) return [`${after}${note}`, `still running: ${resume}`];
  const what = tasks === 1 ? 'the task; its state now is not known' : 'the tasks; their states now are not known';
  if (!result.heldByRateLimit)
    return [`${after} before the wait sent its first read of ${what}`, `Wait again with a longer --timeout: ${resume}`];
  const held = budget === undefined ? 'the rate limit' : `the rate limit (${budget})`;
  return [
    `${after} before ${held} let the wait read ${what}`,
    `Wait again once the budget is back (\`taskctl auth status\` says when): ${resume}`,
  ];
}

/**
 * `wait -` stopped (Ctrl-C, SIGTERM) while it read its ids from stdin: the ids read so far, named as a wait stopped
 * before its first answer names them (a file of them when too many to list), exit 130. No task's state was read.
 */
export async function stoppedReadingIds(
  ctx: Output & Pick<Process, 'exitCode'> & Runtime & Service,
  ids: readonly number[],
  options: Pick<WaitOptions, 'any' | 'until' | 'allowItemFailures'>,
): Promise<void> {
  const command = await idListCommand(ctx, ids);
  const line = sandboxAwareHint(
    ctx.ephemeralSandbox,
    `${BEFORE_FIRST_ANSWER}: ${resumeHint(ids, exitCodeFlags(options), command)}`,
  );
  if (line !== undefined) ctx.printer.notice(line);
  ctx.exitCode = ExitCode.interrupted;
}

/**
 * A key refused part-way (rotated in the dashboard) while tasks were still running: the error with the key's advice,
 * then, as every other stop, what was still running and how to go on once the key is fixed (exit 4). False for any
 * other error, or when nothing was left running: the caller throws it as it is.
 */
async function saidKeyRefused(
  ctx: Output & Process & Runtime & Service,
  error: unknown,
  ids: readonly number[],
  seen: ReadonlyMap<number, Task>,
  options: Pick<WaitOptions, 'resumeCommand' | 'any' | 'until' | 'allowItemFailures'>,
): Promise<boolean> {
  if (!(error instanceof AuthError)) return false;
  const unfinished = ids.filter((id) => {
    const task = seen.get(id);
    return task === undefined || !isTerminal(task);
  });
  if (unfinished.length === 0) return false;
  ctx.printer.error(error.message, sandboxAwareHint(ctx.ephemeralSandbox, error.hint));
  const command = options.resumeCommand ?? (await idListCommand(ctx, unfinished));
  const next = sandboxAwareHint(ctx.ephemeralSandbox, stillRunningMessage(unfinished, exitCodeFlags(options), command));
  if (next !== undefined) ctx.printer.notice(next);
  ctx.exitCode = error.exitCode;
  return true;
}

/** The one wait loop: `wait` and `create --wait`. Sets ctx.exitCode to the outcome (docs/behaviour.md#exit-codes). */
/**
 * `known`: the tasks as created (`create --wait`), the last known state of any the wait never saw.
 */
export async function waitForTasks(
  ctx: Output & Process & Runtime & Store & Service,
  ids: number[],
  options: WaitOptions,
  known: readonly Task[] = [],
): Promise<void> {
  if (ids.length === 0) {
    // Nothing to wait for (an empty pipe): no request, no live block, no log group. A script still gets its empty
    // document (`[]` for -o json) and its reports; a terminal's table has nothing to add to the caller's line.
    if (!idsOnly(ctx.globals) && ctx.printer.format !== 'table') await printTasks(ctx, [], true, options);
    if (options.report?.length) await reportTasks(ctx, options.report, []);
    return;
  }
  const start = ctx.clock.now();
  const deadline = options.timeout > 0 ? start + options.timeout : undefined;
  const api = await ctx.api({ deadline, follow: true });
  // Polling for minutes or hours keeps to 100/min (docs/behaviour.md#pacing-and-the-rate-limit) when the server states
  // no budget (api/rate-limit.ts).
  api.rateLimiter.steady();
  const [{ followTasks }, { startLogGroup }, { FollowDisplay }, unknown, outage] = await Promise.all([
    import('./follow.js'),
    import('../../output/progress.js'),
    import('./display.js'),
    import('./unknown-status.js'),
    import('./outage.js'),
  ]);
  const outageToleranceMs = outage.resolveOutageTolerance(
    options.outageTolerance,
    (await ctx.settings()).outageTolerance,
  );
  const progress = await ctx.printer.progress();
  // A task's elapsed time counts on the service's clock, which stamped its start (docs/behaviour.md#the-services-clock).
  const onService = (localNow: number) => serviceNow(api.serverClockBounds(), localNow).start;
  const { allowItemFailures } = options;
  const display = new FollowDisplay({ progress, clock: ctx.clock, ids, allowItemFailures, serviceNow: onService });
  const warn = (text: string): void => progress.interject(() => ctx.printer.warn(text));
  const warnUnknown = unknownStatusWarner(warn);
  const warnCounts = disagreeingCountsWarner(warn, 'its progress is shown as at most 100%');
  // GitHub Actions folds the progress lines of a long wait into one expandable group.
  const group = progress.mode === 'lines' ? startLogGroup(ctx.io.stderr, ctx.env, groupTitle(ids)) : undefined;
  const seen = new Map<number, Task>(); // the last state read of each task, for saidKeyRefused
  const result = await followTasks({
    reader: options.missing === undefined ? api : onMissing(api, options.missing),
    ids,
    clock: ctx.clock,
    random: ctx.random,
    intervalMs: options.interval,
    until: options.until ?? 'terminal',
    any: options.any,
    deadline,
    signal: ctx.signal,
    countItems: !options.allowItemFailures,
    outageToleranceMs,
    onChange: (change) => {
      if (options.verify?.(change.task) === false) return;
      warnUnknown(change.task);
      warnCounts(change.task);
      display.change(change);
    },
    onPoll: (change) => {
      seen.set(change.task.id, change.task);
      display.poll(change);
    },
    // On a terminal the live block says it in place; a log gets watch's lines (core/follow/outage.ts, the one wording):
    // each failed round that polls again, and the service answering again; the round that gives up, only the error.
    onTransientError: (error) => display.unanswered(error.message),
    onOutage: (state) => {
      if (!display.outage(state)) warn(outage.outageWarning(state, ctx.clock.now()));
    },
    onRoundStart: () => display.roundStarted(),
    ...answerDoubtWarnings(warn),
    onRateLimitHold: (untilMs) => {
      // On a terminal the live block says it in place, counting down; elsewhere the client's own notice of a wait.
      if (progress.mode === 'live') display.held(untilMs, api.rateLimiter.holdWords());
      else api.announceRateLimitWait(untilMs - ctx.clock.now());
    },
    onRound: () => display.round(),
  })
    .catch(async (error: unknown) => {
      progress.stop(); // an error (exit 8...) must not leave the live block on the screen above its message
      if (!idsOnly(ctx.globals)) await printAsCreated(ctx, ids, known, options).catch(() => undefined);
      if (await saidKeyRefused(ctx, error, ids, seen, options)) return undefined;
      throw error;
    })
    .finally(() => group?.end());
  if (result === undefined) return;
  display.finish(result.reason === 'interrupted');
  progress.stop();
  // Before anything is printed: a reader of stdout that goes away must not make it 0.
  ctx.exitCode = waitExitCode(result.tasks, { ...options, reason: result.reason, lastError: result.outage?.lastError });
  ctx.cache.rememberTasks(result.tasks);

  const shown = lastKnown(ids, result.tasks, known);
  // However the wait ends, every task has its record: as read, else as created (a pipe or file needs them all). A wait
  // stopped before its first answer knows none (`wait`, `wait --job`: nothing created): it prints no empty list (`No
  // results.`, `[]`) that would read as an answer, only what the stop says.
  const listed = result.reason === 'done' ? result.tasks : shown;
  const itemsNamed = !idsOnly(ctx.globals) && listed.length > 0 && (await printOutcome(ctx, listed, result, options));
  const resumeFlags = exitCodeFlags(options);
  // `--any` returned at the first end: the others go on, and so may the wait (with `--until processing` a task still
  // running may be one that reached it: none is named).
  const othersRunning =
    result.reason === 'done' && options.any === true && options.until !== 'processing' && result.unfinished.length > 0;
  // A wait that ends done goes on only for those: the list of many ids is written only for a hint that names it.
  const goesOn = result.reason !== 'done' || othersRunning;
  const resumeCommand = options.resumeCommand ?? (goesOn ? await idListCommand(ctx, result.unfinished) : undefined);
  const hint = (text: string) => sandboxAwareHint(ctx.ephemeralSandbox, text);
  const resume = resumeHint(result.unfinished, resumeFlags, resumeCommand);
  if (result.reason === 'interrupted') {
    // Ctrl-C is how a person stops waiting, not a failure: exit 130 and how to go on, without "error:". Before the
    // first answer no task's state is known: none is said to be still running (docs/behaviour.md#for-people).
    const stop = result.tasks.length === 0 ? BEFORE_FIRST_ANSWER : 'still running';
    const next = result.unfinished.length > 0 ? hint(`${stop}: ${resume}`) : undefined;
    if (next !== undefined) ctx.printer.notice(next);
  } else {
    // Also after a timeout: a task that already failed is named, or the resume hint alone would hide it.
    const { allowItemFailures, showCommand } = options;
    nameFailedTasks(ctx, result.tasks, { allowItemFailures, showCommand, itemsNamed });
    if (result.outage) {
      const failure = outage.outageError({
        ...result.outage,
        states: outage.lastKnownStates(ids, shown),
        resume: ctx.ephemeralSandbox ? undefined : resume,
        timeoutMs: options.timeout,
      });
      ctx.printer.error(failure.message, failure.hint);
    }
    if (result.reason === 'timeout') {
      const why = { note: unknown.unknownStatusNote(result.tasks), budget: api.rateLimiter.budgetWords() };
      const [message, next] = timeoutLines(result, ids.length, options.timeout, resume, why);
      ctx.printer.error(message, hint(next));
    }
    const next = othersRunning ? hint(`still running: ${resume}`) : undefined;
    if (next !== undefined) ctx.printer.notice(next);
  }
  if (options.report?.length && result.reason !== 'interrupted') await reportTasks(ctx, options.report, result.tasks);
}
