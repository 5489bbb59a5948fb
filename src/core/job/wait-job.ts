/** `taskctl wait --job FILE`: every task of a journaled job, waited for as `wait` waits for ids. */
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import { UsageError } from '../../errors.js';
import { waitForTasks, type WaitOptions } from '../follow/wait-loop.js';
import { readJob, requireComplete, warnIfRefused } from './journaled-job.js';
import { checkChunkTask } from './job-chunks.js';

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
  requireComplete(job, 'wait --job');
  warnIfRefused(ctx, job);
  // Each task is checked against its chunk as it is seen: by service and count (and its items, when read with them).
  const chunks = new Map(job.created.map((chunk) => [chunk.task, chunk]));
  await waitForTasks(
    ctx,
    job.created.map((chunk) => chunk.task),
    {
      ...options,
      showCommand: `taskctl show --job ${file}`,
      resumeCommand: `taskctl wait --job ${file}`,
      verify: (task) => {
        const chunk = chunks.get(task.id);
        if (chunk) checkChunkTask(job, chunk, task);
      },
    },
  );
}
