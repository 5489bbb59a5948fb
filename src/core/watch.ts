/**
 * `taskctl watch`: status changes of tasks as they happen, printed as human lines, tsv/csv rows or webhook-shaped
 * events, through the follow engine (follow.ts); the exit code as `wait`'s (outcome.ts).
 */
import type { Task } from '../api/schemas.js';
import type { Column } from '../output/printer.js';
import type { Output, Process, Prompts, Runtime, Service, Store } from './capabilities.js';
import { ExitCode, UsageError } from '../errors.js';
import { eventLineFormatter, type EventLine } from '../output/event-line.js';
import { countsRoom, countsText } from '../output/task-columns.js';
import { counted } from '../output/plural.js';
import { formatCount } from '../output/numbers.js';
import { isoSeconds } from '../output/times.js';
import { formatDuration } from '../lib/duration.js';
import { seenOnServerClock, timesInOrderPerTask } from './server-time.js';
import {
  disagreeingCountsWarner,
  failedOrUnlisted,
  isTerminal,
  itemCounts,
  stateEnteredAt,
  taskPhase,
  unknownStatusWarner,
  type ItemCounts,
} from '../lib/task-state.js';
import { sandboxAwareHint } from './sandbox-hint.js';
import { idArgs } from './follow/outcome.js';
import { answerDoubtWarnings, nameFailedTasks } from './follow/failed-tasks.js';
import { onMissing } from './follow/reader.js';
import type { OutageState } from './follow/outage.js';
import { idsOnly } from './quiet.js';

export interface WatchOptions {
  /** With no ids: keep following new tasks after the current ones finish (until Ctrl-C). */
  follow?: boolean;
  interval: number;
  /** 0 (default) = no limit; else exit 124 when reached with tasks unfinished. */
  timeout: number;
  /** `--outage-tolerance`: no good answer for this long ends the watch with 8 (7 after a 429); default 2 min. */
  outageTolerance?: number;
  /** `--job ID|FILE`: the tasks of a journaled job, instead of ids. */
  job?: string;
}

/**
 * The ids to watch: as given, or those of the job `--job` names (an incomplete job: the tasks it has, said so), each
 * task checked against its chunk as it is seen (by service and count), as `wait --job` does.
 */
async function watched(
  ctx: Output & Pick<Process, 'endShort'> & Runtime & Store & Service,
  ids: number[],
  options: WatchOptions,
): Promise<{ ids: number[]; verify?: (task: Task) => void; missing?: (id: number) => void }> {
  // Never dropped in silence: with ids the watch would end with them and follow no new task.
  if (options.follow === true && ids.length > 0)
    throw new UsageError(
      '--follow watches new tasks as they are created: it takes no task ids',
      `Watch those tasks without it: taskctl watch ${idArgs(ids)}`,
    );
  if (options.job === undefined) return { ids };
  const { jobOrIds } = await import('./job/args.js');
  jobOrIds('watch', ids, options);
  if (options.follow === true)
    throw new UsageError(
      '--follow watches new tasks, not a job: give one of them',
      `taskctl watch --job ${options.job}`,
    );
  const [{ endShortIfLost, readJob, requireTasks, warnIfIncomplete }, { chunkTaskChecks }] = await Promise.all([
    import('./job/journaled-job.js'),
    import('./job/job-chunks.js'),
  ]);
  const job = await readJob(ctx, options.job);
  requireTasks(job);
  // Chunks recorded lost are left out (readJob says which): the job's items are not all done, so a clean end is 11,
  // settled before any output (a reader of stdout that goes away must not make it 0).
  endShortIfLost(ctx, job);
  warnIfIncomplete(ctx, job, (id) => `taskctl watch --job ${id}`);
  return { ids: job.created.map((chunk) => chunk.task), ...chunkTaskChecks(job) };
}

/**
 * The one time of a change, printed alike in every format: a new status at the service's own time for it, counts that
 * moved at the time they were seen (the task's start time would stamp every progress line the same). The first record
 * of an unfinished task is the time it was seen too: its counts are now's, and its start could be hours ago.
 */
function changeTime(
  change: { task: Task; at: number; statusChanged: boolean; previous?: string },
  onServer: (seenAt: number) => number,
): number {
  const seen = onServer(change.at);
  if (!change.statusChanged) return seen;
  if (change.previous === undefined && !isTerminal(change.task)) return seen;
  return stateEnteredAt(change.task, seen);
}

/** A change as a person reads it: its counts when the service gave them, with the room they can need kept for them. */
function humanLine(task: Task, at: number, counts: ItemCounts): EventLine {
  const rest = counts.completed === undefined ? '' : countsText(counts);
  return {
    at,
    id: task.id,
    service: task.service,
    status: task.status,
    task,
    rest,
    room: countsRoom(task.total_items),
    // A task that failed says why, as `wait` does (its ndjson event carries the same `error_message`).
    ...(taskPhase(task) === 'ended' && { reason: task.error_message ?? undefined }),
  };
}

/**
 * The tasks `watch` remembers something of beyond the follow (docs/behaviour.md#what-watch-keeps): those whose
 * disagreeing counts it warned about, and the time of each unfinished task's last record. A watch may follow thousands
 * of tasks for days, so each memory is bounded, the task seen least recently forgotten first.
 */
const TASKS_REMEMBERED = 1_000;

/**
 * Each change's time (changeTime), a task's records in time order (docs/behaviour.md#the-services-clock): one stamped
 * before the task's record above it (a status at the service's own time after counts seen on its `Date` clock, or a
 * task the service reports going back to `pending`, whose own time is its creation) is stamped with that record's
 * time. A task is remembered until its last record (a finished one, followed no more), at most TASKS_REMEMBERED.
 */
function recordTimes(onServer: (seenAt: number) => number): (change: Parameters<typeof changeTime>[0]) => number {
  const inOrder = timesInOrderPerTask(TASKS_REMEMBERED);
  return (change) => inOrder(change.task.id, changeTime(change, onServer), isTerminal(change.task));
}

interface Change {
  /** The change's time (recordTimes). */
  at: number;
  task: Task;
}

/** tsv/csv columns of `watch` (documented in its help). */
const CHANGE_COLUMNS: Array<Column<Change>> = [
  { header: 'timestamp', value: (c) => isoSeconds(c.at) },
  { header: 'id', value: (c) => c.task.id },
  { header: 'service', value: (c) => c.task.service },
  { header: 'status', value: (c) => c.task.status },
  { header: 'completed_items', value: (c) => c.task.completed_items },
  // No "not listed" column: items a finished task does not list count as failed (not seen is not a success).
  { header: 'failed_items', value: (c) => failedOrUnlisted(itemCounts(c.task)) },
  { header: 'total_items', value: (c) => c.task.total_items },
];

/**
 * Without ids, the first reading of the whole task list (docs/commands.md#taskctl-watch-id): its pages told in the run's
 * spinner line for a person at a terminal (a rate-limit wait is added to that text), else one line once the number of
 * pages is known. `stopped` resolves once the spinner is gone: what is printed after it must wait for it.
 */
function scanProgress(ctx: Pick<Prompts, 'spin'> & Output, live: boolean) {
  const what = 'finding unfinished tasks';
  let say: ((text: string) => void) | undefined;
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const stopped = live
    ? ctx.spin(`${what}: reading the task list`, async (next, shown) => {
        if (shown) say = next;
        await ended;
      })
    : Promise.resolve();
  let told = false;
  return {
    page: (page: number, pages: number | undefined) => {
      if (pages === undefined || pages < 2) return;
      if (say) say(`${what}: page ${formatCount(page)} of ${formatCount(pages)}`);
      else if (!told) ctx.printer.info(`${what}: reading the ${formatCount(pages)} pages of the task list`);
      told = true;
    },
    end,
    stopped,
  };
}

/**
 * Without ids, what the follow cannot keep up with, said rather than silently skipped or late
 * (docs/behaviour.md#what-watch-keeps): more tasks created between two reads of the listing than one round reads
 * (follow.ts `catchUp`), and a listing in no order of creation too long to read all of it quickly (`sweep`).
 */
function listingWarnings(printer: Output['printer']) {
  return {
    onMissed: (atLeast: number) =>
      printer.warn(`more than ${formatCount(atLeast)} tasks were created since the last read; some may not be shown`),
    onBehind: ({ pages, forMs }: { pages: number; forMs: number }) =>
      printer.warn(
        `new tasks may be shown late: the task list is not in order of creation, so each is found only by reading all ${formatCount(pages)} pages, which took over ${formatDuration(forMs)} at the rate limit`,
      ),
  };
}

/**
 * The run's code: Ctrl-C's, else the follow's outcome (a clean end of a job whose lost chunks were left out is 11:
 * `endShort`, set when the job was read). `outcome` is passed in: outcome.js is loaded with the follow, on demand.
 */
function watchExitCode(
  result: Awaited<ReturnType<typeof import('./follow/follow.js').followTasks>>,
  outcome: typeof import('./follow/outcome.js').waitExitCode,
): number {
  if (result.reason === 'interrupted') return ExitCode.interrupted;
  return outcome(result.tasks, { reason: result.reason, lastError: result.outage?.lastError });
}

/**
 * Ctrl-C is how watch is meant to end (its first line says so): exit 130 and how to go on, without "error:", when a
 * task seen is still unfinished: `resume` with ids; without, the same watch again (every unfinished task and, with
 * --follow, any new one), never a list of ids the next run would not watch for more.
 */
function stillRunning(ctx: Output & Service, resume: string | undefined, follow: boolean | undefined): void {
  const next = sandboxAwareHint(
    ctx.ephemeralSandbox,
    resume ?? `still running: taskctl watch${follow === true ? ' --follow' : ''}`,
  );
  if (next !== undefined) ctx.printer.notice(next);
}

export async function runWatch(
  ctx: Output & Process & Prompts & Runtime & Store & Service,
  ids: number[],
  options: WatchOptions,
): Promise<void> {
  const target = await watched(ctx, ids, options);
  ids = target.ids;
  // A job with no task to read (every chunk recorded lost; readJob said so, and one whose every chunk was refused is
  // exit 3): nothing to watch, never the account's other tasks (no ids means every unfinished one).
  if (options.job !== undefined && ids.length === 0) {
    ctx.exitCode = ExitCode.ok; // 11 when chunks were recorded lost (`endShort`)
    return;
  }
  const deadline = options.timeout > 0 ? ctx.clock.now() + options.timeout : undefined;
  const api = await ctx.api({ deadline, follow: true });
  // Polling for minutes or hours keeps to 100/min (docs/behaviour.md#pacing-and-the-rate-limit) when the server states
  // no budget (api/rate-limit.ts).
  api.rateLimiter.steady();
  const { followTasks } = await import('./follow/follow.js');
  const { toWebhookEvent } = await import('../api/task-event.js');
  const { waitExitCode } = await import('./follow/outcome.js');
  const unknown = await import('./follow/unknown-status.js');
  const outage = await import('./follow/outage.js');
  const { stallLine } = await import('./follow/stall-line.js');
  const outageToleranceMs = outage.resolveOutageTolerance(
    options.outageTolerance,
    (await ctx.settings()).outageTolerance,
  );
  const printer = ctx.printer;
  // At a terminal a stall is one live line, counting, gone when answers come again (follow/stall-line.ts).
  // Without ids, drawn once the list was read (its spinner gone).
  const elsewhere = (state: OutageState) => printer.warn(outage.outageWarning(state, ctx.clock.now()));
  const stall = await stallLine(printer, ctx.clock, { now: ids.length > 0, elsewhere });
  const warnUnknown = unknownStatusWarner((text) => printer.warn(text));
  // As `wait`, `show` and `list` warn, in every format and with `-q`; once a task, within a bounded memory.
  const warnCounts = disagreeingCountsWarner((text) => printer.warn(text), undefined, TASKS_REMEMBERED);
  // `-q` alone: nothing on stdout, the exit code speaks (docs/behaviour.md#quiet); warnings and errors still come.
  const silent = idsOnly(ctx.globals);
  const asEvents = !silent && (printer.format === 'json' || printer.format === 'ndjson');
  // tsv/csv rows go through the printer's row stream (it prints each write at once); table gets human lines.
  const tabular = !silent && (printer.format === 'tsv' || printer.format === 'csv');
  const rows = tabular ? printer.stream(CHANGE_COLUMNS) : undefined;
  // For a person: what is watched and how to stop (an empty watch is then not a silent mystery). Without ids, once
  // the list was read: with nothing to watch, the one line at the end says so.
  const human = !silent && !asEvents && !rows;
  const announce = (what: string) => {
    if (human) printer.info(`watching ${what}; Ctrl-C to stop`);
  };
  if (ids.length > 0) announce(`${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}`);
  // Without ids the heading waits for the list; the lines its reading finds wait for the heading, so it comes first.
  let held: Array<Parameters<typeof printer.styledLine>[0]> | undefined = ids.length === 0 && human ? [] : undefined;
  const release = () => {
    for (const line of held ?? []) stall.write(() => printer.styledLine(line));
    held = undefined;
  };
  const scan = ids.length === 0 && !silent ? scanProgress(ctx, human) : undefined;
  // At a terminal each line fits its width, the columns aligned and kept (the service's gives way to the counts).
  const eventLine = eventLineFormatter(() => printer.lineWidth);
  const timeOf = recordTimes(seenOnServerClock(() => api.serverClockBounds()));
  const result = await followTasks({
    reader: target.missing === undefined ? api : onMissing(api, target.missing),
    ids: ids.length > 0 ? ids : 'all-unfinished',
    clock: ctx.clock,
    random: ctx.random,
    intervalMs: options.interval,
    until: 'terminal',
    follow: options.follow,
    ...(scan && { onScanPage: scan.page }),
    onScanned: (unfinished) => {
      scan?.end();
      // Once the spinner line is gone (a line printed under it would be wiped with it); the records wait in `held`.
      void (scan?.stopped ?? Promise.resolve()).then(() => {
        const more = options.follow ? ' and any new one' : '';
        if (unfinished > 0) announce(`${counted(unfinished, 'unfinished task')}${more}`);
        else if (options.follow) announce('for new tasks (none is unfinished now)');
        release();
        stall.start();
      });
    },
    deadline,
    signal: ctx.signal,
    onChange: (change) => {
      const { task, statusChanged, counts: itemCounts } = change;
      target.verify?.(task);
      const at = timeOf(change);
      warnUnknown(task);
      warnCounts(task);
      if (asEvents) {
        // Webhook-shaped events come once per status, as a webhook would; count moves are for the other formats.
        const event = statusChanged ? toWebhookEvent(task, at) : undefined;
        if (event) stall.write(() => printer.line(JSON.stringify({ ...event, timestamp: isoSeconds(at) })));
      } else if (rows) {
        stall.write(() => rows.write([{ at, task }]));
      } else if (human) {
        const line = eventLine(humanLine(task, at, itemCounts));
        if (held) held.push(line);
        else stall.write(() => printer.styledLine(line));
      }
    },
    outageToleranceMs,
    ...listingWarnings(printer),
    // As `wait` warns (follow/failed-tasks.ts): a page naming a task twice, a task going back.
    ...answerDoubtWarnings((text) => printer.warn(text)),
    ...stall.hooks,
  }).finally(() => stall.stop());
  scan?.end();
  await scan?.stopped;
  release(); // a run stopped before the list was read still shows what it saw
  // Before the last output is flushed: a reader of stdout that goes away must not make it 0.
  ctx.exitCode = watchExitCode(result, waitExitCode);
  await rows?.end();
  ctx.cache.rememberTasks(result.tasks);
  const resume = `still running: taskctl watch ${idArgs(result.unfinished)}`;
  if (result.reason === 'interrupted') {
    if (result.unfinished.length > 0) stillRunning(ctx, ids.length > 0 ? resume : undefined, options.follow);
    return;
  }
  // As `wait` ends: a task that failed is named with why, one with failed items with the command that lists them (the
  // reason for exit 10 or 11), also after a timeout or an outage.
  nameFailedTasks(ctx, result.tasks);
  if (result.outage) {
    const watched = ids.length > 0 ? ids : result.tasks.map((task) => task.id);
    const failure = outage.outageError({
      ...result.outage,
      states: watched.length > 0 ? outage.lastKnownStates(watched, result.tasks) : 'no task seen',
      resume: ctx.ephemeralSandbox ? undefined : `taskctl watch ${idArgs(ids)}`.trimEnd(),
      timeoutMs: options.timeout,
    });
    printer.error(failure.message, failure.hint);
  }
  // Without --follow only: a follow said what it watches for when it began (`watching for new tasks`).
  if (ids.length === 0 && result.tasks.length === 0 && human && options.follow !== true)
    printer.info('no unfinished tasks: nothing to watch (`taskctl watch --follow` waits for new ones)');
  if (result.reason === 'timeout')
    printer.error(
      `timed out${unknown.unknownStatusNote(result.tasks)}`,
      // A follow that saw every task end has nothing to go on with (never `taskctl watch` naming no task).
      result.unfinished.length > 0 ? sandboxAwareHint(ctx.ephemeralSandbox, resume) : undefined,
    );
}
