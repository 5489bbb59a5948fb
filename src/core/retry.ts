/**
 * `taskctl retry`: the tasks named by ids (core/submit/retry-tasks.ts) or a journaled job's (`--job FILE`, core/job/retry-job.ts),
 * both through the one submission pipeline. Kept apart from both, since the job path uses the ids path's helpers.
 */
import type { Capabilities } from './capabilities.js';
import { UsageError } from '../errors.js';
import { checkReportTargets } from '../report/write.js';
import { retryTasks, type RetryOptions } from './submit/retry-tasks.js';

export async function runRetry(ctx: Capabilities, ids: number[], options: RetryOptions): Promise<void> {
  if (options.reuse === false && options.reuseWindow !== undefined) {
    throw new UsageError('--no-reuse and --reuse-window contradict each other', 'Pass one of them.');
  }
  // Before the tasks are read, as wait and show do; the pipeline checks again before the first POST.
  checkReportTargets(options.report, { env: ctx.env, journal: options.journal });
  const { jobOrIds } = await import('./job/args.js');
  const job = jobOrIds('retry', ids, options);
  if (job !== undefined) return (await import('./job/retry-job.js')).runRetryJob(ctx, job, options);
  await retryTasks(ctx, ids, options);
}
