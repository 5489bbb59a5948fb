/**
 * `create` and the entry of `create --journal`: read → clean (read.ts) → the one pipeline (pipeline.ts: price,
 * --dry-run, --max-cost and confirmation, chunks sent exactly once, summary, --wait).
 */
import type { Context } from '../context.js';
import { runPipeline } from './pipeline.js';
import { prepareItems, type ReadOptions } from './read.js';
import type { SubmitOptions } from './types.js';

export interface CreateOptions extends SubmitOptions, ReadOptions {
  /** `--journal FILE`: record the job so that `taskctl resume FILE` can continue it after a crash. */
  journal?: string;
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
    await runPipeline(ctx, { batches: [{ service, items }], verb: 'Create', normalised: items.normalised }, options);
  } finally {
    items.dispose();
  }
}
