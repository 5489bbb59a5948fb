/**
 * A journal side of `taskctl diff`: every task of the job in chunk order (core/job/journaled-job.ts: the journal's server and
 * account checked as `resume` checks them, each task checked against its chunk), each read once. An unfinished job
 * gives the tasks it has, and the side says it is incomplete; tasks of it still running are compared as they are,
 * and said.
 */
import { UsageError } from '../../errors.js';
import type { Capabilities } from '../capabilities.js';
import { jobTasks, readJob, requireTasks, warnIfIncomplete } from '../job/journaled-job.js';
import { addTask, unfinishedNote, type SideItems } from './side-items.js';
import type { OpenedFile } from './source.js';

/** `again(id)`: the same diff with job `id` as this side (a job taken over whole points to the job that took it over). */
export async function readJournal(
  ctx: Capabilities,
  file: OpenedFile,
  side: SideItems,
  again: (id: string) => string,
): Promise<void> {
  if (file.path === undefined)
    throw new UsageError('a journal is read from its file, not from stdin', 'Pass its path instead of -.');
  await file.close();
  const job = await readJob(ctx, file.path);
  requireTasks(job);
  side.services.add(job.service);
  warnIfIncomplete(ctx, job, again);
  const api = await ctx.api();
  await ctx.spin(`reading the ${job.created.length} tasks of ${file.name}`, async (say) => {
    let done = 0;
    for await (const { task } of jobTasks(api, job)) {
      addTask(side, task);
      say(`reading the tasks of ${file.name}: ${++done} of ${job.created.length}`);
    }
  });
  const note = unfinishedNote(side, `taskctl wait --job ${job.file}`);
  if (note !== undefined) ctx.printer.warn(note);
}
