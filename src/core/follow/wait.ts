/**
 * The one wait loop behind `wait`, `create --wait` and `retry --wait`: follows the tasks (follow.ts), shows them
 * (display.ts), prints the result, sets the exit code (outcome.ts) and writes the reports.
 */
import type { Context } from '../../context.js';
import { formatDuration } from '../duration.js';
import { taskPhase, unknownStatusWarner } from '../task-state.js';
import { fetchWithItems, writeReports, type ReportSpec } from '../../report/write.js';
import { EPHEMERAL_SANDBOX_NOTE, sandboxAwareHint } from '../../sandbox/launch.js';
import { countOf } from '../../report/plural.js';
import { taskColumns } from '../../output/task-columns.js';
import { neutralise } from '../../output/sanitize.js';
import type { Task } from '../../api/schemas.js';

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
  /** `--outage-tolerance`: no good answer for this long ends the wait with 8 (7 after a 429); default the setting, 2 min. */
  outageTolerance?: number;
}

/** How long the items of the waited tasks may take to read for `--report`, after the wait ended. */
const REPORT_READ_BUDGET_MS = 60_000;

/**
 * The one wait loop: `wait` and `create --wait`. Sets ctx.exitCode to the outcome (DESIGN.md section 2). `known`: the
 * tasks as created (`create --wait`), the last known state of any the wait never saw.
 */
export async function waitForTasks(
  ctx: Context,
  ids: number[],
  options: WaitOptions,
  known: readonly Task[] = [],
): Promise<void> {
  const start = ctx.clock.now();
  const deadline = options.timeout > 0 ? start + options.timeout : undefined;
  const api = await ctx.api({ deadline });
  const [
    { followTasks },
    { waitExitCode, stillRunningMessage },
    { startLogGroup },
    { FollowDisplay },
    unknown,
    outage,
  ] = await Promise.all([
    import('./follow.js'),
    import('./outcome.js'),
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
  const display = new FollowDisplay({ progress, clock: ctx.clock, ids, allowItemFailures: options.allowItemFailures });
  const warn = (text: string): void => {
    progress.interject(() => {
      ctx.printer.warn(text);
    });
  };
  const warnUnknown = unknownStatusWarner(warn);
  // GitHub Actions folds the progress lines of a long wait into one expandable group.
  const group =
    progress.mode === 'lines'
      ? startLogGroup(
          ctx.io.stderr,
          ctx.env,
          `waiting for ${ids.length === 1 ? `task ${ids[0]}` : `${ids.length} tasks`}`,
        )
      : undefined;
  const result = await followTasks({
    reader: api,
    ids,
    clock: ctx.clock,
    random: ctx.random,
    intervalMs: options.interval,
    until: options.until ?? 'terminal',
    any: options.any,
    deadline,
    signal: ctx.signal,
    countItems: !options.allowItemFailures,
    onChange: (change) => {
      warnUnknown(change.task);
      display.change(change);
    },
    onPoll: (change) => {
      display.poll(change);
    },
    outageToleranceMs,
    onOutage: (state) => {
      display.outage(state);
      // The live block shows the outage itself; plain mode (CI, pipes) gets a line.
      if (progress.mode === 'live') return;
      const now = ctx.clock.now();
      warn(state.retrying ? outage.outageLine(state, now) : outage.recoveredLine(state, now));
    },
    onRound: () => {
      display.round();
    },
  })
    .catch((error: unknown) => {
      // An error (exit 8...) must not leave the live block on the screen above its message.
      progress.stop();
      throw error;
    })
    .finally(() => group?.end());
  display.finish(result.reason === 'interrupted');
  progress.stop();
  const code = waitExitCode(result.tasks, {
    allowItemFailures: options.allowItemFailures,
    reason: result.reason,
    lastError: result.outage?.lastError,
  });
  ctx.exitCode = code; // before anything is printed: a reader of stdout that goes away must not make it 0
  ctx.cache.rememberTasks(result.tasks);

  // The last known state of each task: as seen, else as created; nothing at all when the service never answered and
  // nothing was known (no `[]` for a failure).
  const seen = new Map(result.tasks.map((task) => [task.id, task]));
  const knownById = new Map(known.map((task) => [task.id, task]));
  const shown = ids.flatMap((id) => seen.get(id) ?? knownById.get(id) ?? []);
  const listed = result.reason === 'done' || result.reason === 'timeout' ? result.tasks : shown;
  if (!ctx.globals.quiet && (result.reason !== 'outage' || listed.length > 0))
    await ctx.printer.list(
      listed,
      taskColumns((status) => ctx.printer.paintStatus(status)),
      listed,
    );
  const resumeFlags = [options.any ? '--any' : '', options.until ? `--until ${options.until}` : ''].filter(Boolean);
  const hint = (text: string) => sandboxAwareHint(ctx.ephemeralSandbox, text);
  if (result.reason === 'interrupted') {
    ctx.printer.error('interrupted', hint(stillRunningMessage(result.unfinished, resumeFlags)));
  } else {
    // Also after a timeout: a task that already failed is named, or the resume hint alone would hide it.
    for (const task of result.tasks) {
      if (taskPhase(task) === 'ended')
        ctx.printer.error(
          `task ${task.id} ${task.status === 'failed' ? 'failed' : `ended "${neutralise(task.status)}"`}: ${neutralise(task.error_message ?? 'no reason given')}`,
          hint(`See the items: taskctl show ${task.id}`),
        );
      else if (!options.allowItemFailures && taskPhase(task) === 'completed' && (task.failed_items ?? 0) > 0) {
        const failed = countOf(task.failed_items ?? 0, 'failed item');
        ctx.printer.warn(
          ctx.ephemeralSandbox
            ? `task ${task.id} completed with ${failed} (${EPHEMERAL_SANDBOX_NOTE})`
            : `task ${task.id} completed with ${failed}: taskctl show ${task.id} --items-status failed`,
        );
      }
    }
    if (result.outage) {
      const failure = outage.outageError({
        ...result.outage,
        states: outage.lastKnownStates(ids, shown),
        resume: ctx.ephemeralSandbox ? undefined : ['taskctl', 'wait', ...result.unfinished, ...resumeFlags].join(' '),
      });
      ctx.printer.error(failure.message, failure.hint);
    }
    if (result.reason === 'timeout')
      ctx.printer.error(
        `timed out after ${formatDuration(options.timeout)}${unknown.unknownStatusNote(result.tasks)}`,
        hint(stillRunningMessage(result.unfinished, resumeFlags)),
      );
  }
  if (options.report?.length && result.reason !== 'interrupted')
    // Read after the wait's own deadline, which may have passed (a timed-out wait still reports): a budget of its own.
    await writeReports(
      ctx,
      options.report,
      await fetchWithItems(await ctx.api({ deadline: ctx.clock.now() + REPORT_READ_BUDGET_MS }), result.tasks, (text) =>
        ctx.printer.warn(text),
      ),
    );
}
