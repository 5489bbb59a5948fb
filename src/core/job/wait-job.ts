/** `taskctl wait --job FILE`: every task of a journaled job, waited for as `wait` waits for ids. */
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import { UsageError } from '../../errors.js';
import { waitForTasks, type WaitOptions } from '../follow/wait-loop.js';
import { endShortIfLost, readJob, requireComplete, requireTasks, warnIfRefused } from './journaled-job.js';
import { chunkTaskChecks } from './job-chunks.js';
import { waitingFlags } from '../submit/resume-command.js';

export async function runWaitJob(
  ctx: Output & Process & Runtime & Store & Service,
  file: string,
  options: WaitOptions,
): Promise<void> {
  if (options.report?.length || options.results === true) {
    throw new UsageError(
      `${options.results === true ? '--results' : '--report'} is not written for a whole job (--job): it would hold every task's items in memory`,
      `Export the items when it ends: taskctl wait --job ${file} && taskctl show --job ${file} -o csv > results.csv`,
    );
  }
  const job = await readJob(ctx, file);
  requireComplete(job, 'wait --job', { wait: waitingFlags(options) });
  requireTasks(job);
  endShortIfLost(ctx, job);
  warnIfRefused(ctx, job);
  await waitForTasks(
    ctx,
    job.created.map((chunk) => chunk.task),
    {
      ...options,
      showCommand: `taskctl show --job ${file}`,
      resumeCommand: `taskctl wait --job ${file}`,
      // Each task is checked against its chunk as it is seen: by service and count (and its items, when read with them).
      ...chunkTaskChecks(job),
    },
  );
}
