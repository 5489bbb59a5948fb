/**
 * `create`: read → clean (prepare-items.ts) → the one pipeline (pipeline.ts: price, --dry-run, --max-cost and confirmation,
 * chunks sent exactly once, summary, --wait). Every create that may send is a job (journaled-run.ts): journaled where
 * `--journal FILE` says, else in the state directory, so that `taskctl resume ID` continues it. Not a dry run (it
 * sends nothing) and not under `--sandbox` (its server dies with the run: there is nothing to resume).
 */
import { checkReportTargets } from '../../report/write.js';
import { runPipeline } from './pipeline.js';
import { prepareItems, type ReadOptions } from './prepare-items.js';
import type { SubmitOptions, Submitter } from './types.js';

export interface CreateOptions extends SubmitOptions, ReadOptions {
  /** `--journal FILE`: keep the job's journal in FILE instead of the state directory. */
  journal?: string;
}

export async function runCreate(
  ctx: Submitter,
  service: string,
  args: string[],
  options: CreateOptions,
): Promise<void> {
  // Before the journal is made: a report over it would turn the job's journal into XML at the end.
  checkReportTargets(options.report, { env: ctx.env, journal: options.journal });
  if (options.journal !== undefined && (options.dryRun === true || ctx.ephemeralSandbox))
    // Said, not silently dropped: a user who asked for a journal would look for it.
    ctx.printer.notice(
      `--journal ${options.journal} is not kept: ${options.dryRun === true ? 'a dry run sends nothing' : 'this --sandbox service ends with the run, so there is nothing to resume'}`,
    );
  if (options.dryRun !== true && !ctx.ephemeralSandbox) {
    const { journaledOr, placeJob, runJournaledCreate } = await import('./journaled-run.js');
    const place = placeJob(ctx, options.journal);
    if (place && (await journaledOr(ctx, place, () => runJournaledCreate(ctx, place, service, args, options)))) return;
  }
  const items = await prepareItems(ctx, service, args, options);
  try {
    await runPipeline(ctx, { batches: [{ service, items }], verb: 'Create', normalised: items.normalised }, options);
  } finally {
    items.dispose();
  }
}
