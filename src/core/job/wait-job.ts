/** `taskctl wait --job FILE`: every task of a journaled job, waited for as `wait` waits for ids. */
import type { Output, Process, Runtime, Service, Store } from '../capabilities.js';
import { UsageError } from '../../errors.js';
import { waitForTasks, type WaitOptions } from '../follow/wait-loop.js';
import { endShortIfLost, readJob, requireComplete, warnIfRefused } from './journaled-job.js';
import { checkChunkTask, goneChunkTask, type CreatedChunk } from './job-chunks.js';

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
  endShortIfLost(ctx, job);
  warnIfRefused(ctx, job);
  // Each task is checked against its chunk as it is seen: by service and count (and its items, when read with them).
  // Two chunks may name one id (the service gave it out again, its ids having started again): each is checked.
  const chunks = new Map<number, CreatedChunk[]>();
  for (const chunk of job.created) chunks.set(chunk.task, [...(chunks.get(chunk.task) ?? []), chunk]);
  await waitForTasks(
    ctx,
    job.created.map((chunk) => chunk.task),
    {
      ...options,
      showCommand: `taskctl show --job ${file}`,
      resumeCommand: `taskctl wait --job ${file}`,
      verify: (task) => {
        for (const chunk of chunks.get(task.id) ?? []) checkChunkTask(job, chunk, task);
        return true;
      },
      // A chunk's task the service no longer has: exit 8 naming the resume that records it lost.
      missing: (id) => {
        const [chunk] = chunks.get(id) ?? [];
        if (chunk !== undefined) throw goneChunkTask(job, chunk);
      },
    },
  );
}
