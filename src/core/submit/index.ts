/**
 * The submission pipeline behind `create` and `retry`: read → clean (read.ts, create only) → price (price.ts) →
 * --dry-run (dry-run.ts) → confirm (confirm.ts) → chunk and send (chunks.ts, send.ts: exactly-once creation with
 * reconciliation) → record and summarise (summary.ts) → --wait (core/follow/wait.ts).
 */
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { checkReportTargets } from '../../report/write.js';
import { waitForTasks, type WaitOptions } from '../follow/wait.js';
import { createChunks } from './chunks.js';
import { confirmCost } from './confirm.js';
import { dryRun } from './dry-run.js';
import { pricePerItem } from './price.js';
import { prepareItems, type ReadOptions } from './read.js';
import { summary, warnAboveMaxCost, warnDroppedItems } from './summary.js';
import type { Batch, PricedBatch, SubmitContext, SubmitOptions } from './types.js';

export type { Batch, SubmitContext, SubmitOptions } from './types.js';

export interface CreateOptions extends SubmitOptions, ReadOptions {
  /** `--journal FILE`: record the job so that `taskctl resume FILE` can continue it after a crash. */
  journal?: string;
}

/**
 * The one pipeline behind `create` and `retry`: price, --dry-run, --max-cost, confirmation, chunks, exactly-once
 * creation (or --reuse-window reuse), the summary, then --wait. Items are sent exactly as given.
 */
export async function submitItems(
  ctx: Context,
  batches: readonly Batch[],
  options: SubmitOptions,
  about: SubmitContext,
): Promise<void> {
  checkReportTargets(options.report);
  const { itemList, chunkCount } = await import('../items/index.js');
  const api = await ctx.api();
  const priced: PricedBatch[] = [];
  // A price that --max-cost or a confirmation relies on is read from the server now, never from the cache.
  const guardsMoney = options.maxCost !== undefined || (ctx.interactive && options.yes !== true);
  for (const batch of batches) {
    const price = await ctx.spin('reading the price', () => pricePerItem(ctx, api, batch.service, guardsMoney));
    const list = isItemArray(batch.items) ? itemList(batch.items) : batch.items;
    const size = options.chunkSize ?? Math.max(1, list.count);
    const tasks = chunkCount(list.count, size);
    priced.push({ service: batch.service, list, size, tasks, price, estimate: price * list.count });
  }
  if (options.dryRun) return dryRun(ctx, api, priced, about.normalised);
  await confirmCost(ctx, api, priced, options, about.verb);

  const created = await createChunks(ctx, api, priced, options);
  ctx.printer.success(summary(created));
  warnAboveMaxCost(ctx, created, options.maxCost);
  const short = warnDroppedItems(ctx, created);
  if (options.wait) {
    const ids = created.map((c) => c.task.id);
    // A failure after the tasks exist never hides them (issue 25): 7, 8, 124 and 130 name them with the command to go on.
    // The wait's own ending names it (`still running: …`, `try again later with …`); an error it throws gets this note.
    const createdNote = () =>
      `${ids.length === 1 ? 'the task was' : 'the tasks were'} created (${ids.join(' ')}): continue with \`taskctl wait ${ids.join(' ')}\``;
    const unfinished = new Set<number>([
      ExitCode.rateLimited,
      ExitCode.unavailable,
      ExitCode.timeout,
      ExitCode.interrupted,
    ]);
    try {
      await waitForTasks(
        ctx,
        ids,
        options as WaitOptions,
        created.map((c) => c.task),
      );
    } catch (error) {
      if (error instanceof CliError && unfinished.has(error.exitCode) && !ctx.ephemeralSandbox)
        throw new CliError(`${error.message}\n${createdNote()}`, error.exitCode, error.hint);
      throw error;
    }
    // Items the server never took cannot have completed: however the tasks ended, that is not a clean success.
    if (short && ctx.exitCode === ExitCode.ok) ctx.exitCode = ExitCode.itemsFailed;
  }
}

function isItemArray(items: Batch['items']): items is readonly string[] {
  return Array.isArray(items);
}

export async function runCreate(ctx: Context, service: string, args: string[], options: CreateOptions): Promise<void> {
  const journal = options.journal;
  // A dry run sends nothing, so it has nothing to journal.
  if (journal !== undefined && options.dryRun !== true) {
    const { runJournaledCreate } = await import('./journal.js');
    return runJournaledCreate(ctx, service, args, { ...options, journal });
  }
  const items = await prepareItems(ctx, service, args, options);
  try {
    await submitItems(ctx, [{ service, items }], options, { verb: 'Create', normalised: items.normalised });
  } finally {
    items.dispose();
  }
}
