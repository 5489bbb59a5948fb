/**
 * One task's creation, exactly once: the --reuse-window lookup or the snapshot before the POST, the POST, and after an
 * ambiguous failure the reconciliation (core/reconcile.ts) that finds the task or says it cannot know (exit 9).
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../context.js';
import { CliError, CreateUnknownError, InterruptedError } from '../../errors.js';
import { formatDuration } from '../../output/durations.js';
import { counted } from '../items/clean.js';
import type { MatchResult, Snapshot } from '../reconcile.js';
import type { Chunk, Outcome, SubmitOptions } from './types.js';

/** How long the last reconciliation scan may take past the window's end. */
const RECONCILE_SCAN_GRACE_MS = 2_000;
/** Time allowed for the task listing taken before each POST (both tries together). */
const SNAPSHOT_BUDGET_MS = 1000;

export function listHint(service: string): string {
  return `Check before re-running: taskctl list --service ${service} --per-page 100 (or re-run with --reuse-window 1h to reuse it).`;
}

/** Ctrl-C: the abort becomes a message saying what may exist; other errors pass through. */
function interrupted(ctx: Context, error: unknown, message: string, hint: string): unknown {
  return ctx.signal.aborted && !(error instanceof CliError) ? new InterruptedError(message, hint) : error;
}

export async function createOne(
  ctx: Context,
  api: ApiClient,
  { service, items }: Chunk,
  options: SubmitOptions,
  exclude: ReadonlySet<number>,
  what: string,
  /** A journaled job records the send (with what existed before) here, on disk before the POST leaves. */
  beforePost?: (before: Snapshot) => void,
): Promise<Outcome> {
  const reconcile = await import('../reconcile.js');
  const match = { service, count: items.length };
  let before: Snapshot;
  try {
    if (options.reuseWindow !== undefined) {
      const reuse = await reconcile.findReusableTask(
        api,
        {
          service,
          items,
          createdAfter: ctx.clock.now() - options.reuseWindow,
          exclude,
          allowItemFailures: options.allowItemFailures === true,
        },
        ctx.signal,
      );
      if (reuse.match.kind === 'found') {
        const task = reuse.match.task;
        ctx.printer.info(
          `reusing task ${task.id}: same service and items, ${task.status}, created ${task.created_at} (within --reuse-window ${formatDuration(options.reuseWindow)})`,
        );
        return { task, how: 'reused', items: items.length };
      }
      before = reuse.seen;
    } else {
      // Insurance, not a gate: a slow list must not hold the create up (a lost answer then ends in exit 9).
      const budgeted = api.withDeadline(ctx.clock.now() + SNAPSHOT_BUDGET_MS);
      const snapshot = () => reconcile.takeSnapshot(budgeted, match, ctx.clock, ctx.signal);
      before = await snapshot()
        .catch((error: unknown) => {
          if (ctx.signal.aborted) throw error;
          return snapshot(); // an unreadable 2xx is not retried by the client: one more try
        })
        .catch((error: unknown): Snapshot => {
          if (ctx.signal.aborted) throw error;
          // No evidence of what existed: the create goes ahead, and a lost answer can only end in exit 9.
          return { ids: new Set<number>(), complete: false };
        });
    }
  } catch (error) {
    throw interrupted(
      ctx,
      error,
      `interrupted before sending ${what}: nothing was created for it`,
      `Re-run the same command to create it.`,
    );
  }
  const { AmbiguousCreateError } = await import('../../api/client.js');
  beforePost?.(before);
  const post = { sent: false };
  try {
    const task = await ctx.spin(`creating ${what}`, () => api.createTask({ service, items }, () => (post.sent = true)));
    return { task, how: 'created', items: items.length };
  } catch (error) {
    // Ctrl-C while the POST waited for the rate limit: it never left, so nothing can have been created.
    if (ctx.signal.aborted && !post.sent) {
      throw new InterruptedError(
        `interrupted before sending ${what}: nothing was created for it`,
        'Re-run the same command to create it.',
      );
    }
    if (ctx.signal.aborted) {
      throw new InterruptedError(
        `interrupted while creating a ${service} task for ${counted(items.length, 'item')}: it may have been created`,
        listHint(service),
      );
    }
    if (!(error instanceof AmbiguousCreateError)) throw error;
    const attempt = { service, items, sentAtMs: error.sentAtMs, before, exclude };
    const failedAtMs = ctx.clock.now();
    const windowMs = reconcile.reconcileWindowMs({ sentAtMs: error.sentAtMs, failedAtMs });
    ctx.printer.warn(`${error.message}; checking the task list for it (up to ${formatDuration(windowMs)})…`);
    let result: MatchResult;
    try {
      const { errorCode, TIMEOUT_CODES, DEADLINE_CODE } = await import('../../api/retry.js');
      const code = errorCode(error.cause);
      const timedOut = code !== undefined && (TIMEOUT_CODES.has(code) || code === DEADLINE_CODE);
      // Each scan's reads are retried by the client; the deadline keeps those retries inside the window (with a short
      // grace for the last scan), so a list that keeps failing cannot stretch 10 s into 20.
      const scans = api.withDeadline(failedAtMs + windowMs + RECONCILE_SCAN_GRACE_MS);
      result = await ctx.spin('checking the task list for it', () =>
        reconcile.reconcileCreate(scans, {
          ...attempt,
          failedAtMs,
          timedOut,
          clock: ctx.clock,
          signal: ctx.signal,
        }),
      );
    } catch (reason) {
      throw interrupted(
        ctx,
        reason,
        `interrupted while checking whether ${what} was created (${service}, ${counted(items.length, 'item')}): it may have been created`,
        listHint(service),
      );
    }
    if (result.kind === 'found') {
      ctx.printer.warn(
        `recovered: task ${result.task.id} was created by this request (the response was lost; it is the only matching task that did not exist before the request was sent)`,
      );
      return { task: result.task, how: 'recovered', items: items.length };
    }
    const sentAt = new Date(error.sentAtMs).toISOString();
    const found =
      result.kind === 'ambiguous'
        ? `several new tasks match (${result.ids.join(', ')}): at most one of them is this request's`
        : result.kind === 'unproven'
          ? `task ${result.ids.join(', ')} matches, but the task list could not be read in full before sending, so it may be an earlier identical task`
          : result.kind === 'unread'
            ? 'the task list could not be read to find out'
            : 'no new matching task was found';
    throw new CreateUnknownError(
      `the create request may have created a task, and ${found}: ${service}, ${counted(items.length, 'item')}, sent ${sentAt}`,
      listHint(service),
    );
  }
}
