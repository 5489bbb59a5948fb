/** `taskctl show`: tasks read one after the other (a missing one prints nothing), reports written, items printed. */
import type { Task } from '../api/schemas.js';
import type { Capabilities, Service } from './capabilities.js';
import { NotFoundError } from '../errors.js';
import { printTaskItems } from './task-results.js';
import { idsOnly } from './quiet.js';
import { disagreeingCountsWarner, unlistedItemsNote } from '../lib/task-state.js';
import { counted } from '../output/plural.js';
import { checkReportTargets, writeReports } from '../report/write.js';
import type { ShowOptions } from './show-options.js';

export type { ShowOptions } from './show-options.js';

/** Every task first, one after the other through the one client (its limiter paces): a missing one prints nothing. */
async function fetchTasks(ctx: Service, ids: readonly number[]): Promise<Task[]> {
  const api = await ctx.api();
  const tasks: Task[] = [];
  for (const id of ids) {
    try {
      tasks.push(await api.getTask(id));
    } catch (error) {
      if (error instanceof NotFoundError && ids.length > 1) {
        throw new NotFoundError(`${error.message} (task ${id}; nothing was printed)`, error.hint);
      }
      throw error;
    }
  }
  return tasks;
}

export async function runShow(ctx: Capabilities, requested: readonly number[], options: ShowOptions): Promise<void> {
  const { jobOrIds } = await import('./job/args.js');
  const job = jobOrIds('show', requested, options);
  if (job !== undefined) return (await import('./job/show-job.js')).runShowJob(ctx, job, options);
  checkReportTargets(options.report, { env: ctx.env });
  const ids = [...new Set(requested)];
  const tasks = await ctx.spin(
    ids.length === 1 ? `reading task ${ids[0]}` : `reading ${counted(ids.length, 'task')}`,
    () => fetchTasks(ctx, ids),
  );
  ctx.cache.rememberTasks(tasks);
  if (options.report?.length) await writeReports(ctx, options.report, tasks);
  const printer = ctx.printer;
  // docs/openapi.json shows items in GET /tasks/{id}, but a server may leave them out, or some: say so (as diff does).
  // Counts that contradict each other are warned about as a wait warns (docs/commands.md#taskctl-wait-id-), on stderr.
  const warnCounts = disagreeingCountsWarner((text) => printer.warn(text));
  for (const task of tasks) {
    const unlisted = unlistedItemsNote(task);
    if (unlisted !== undefined) printer.warn(unlisted);
    warnCounts(task);
  }
  await printTaskItems(ctx, tasks, { ...options, single: requested.length === 1, targetsOnly: idsOnly(ctx.globals) });
}
