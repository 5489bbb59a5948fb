import { Option, type Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { NotFoundError } from '../errors.js';
import { columnsOption, wideOption } from '../output/columns.js';
import { examples, type RunAction } from './help-text.js';
import { printTaskItems } from '../core/task-results.js';
import { checkReportTargets, reportOption, writeReports, type ReportSpec } from '../report/write.js';
import { parseTaskId } from '../lib/task-id.js';

export interface ShowOptions {
  /** Only items in this status. */
  itemsStatus?: 'completed' | 'failed';
  /** Reports on the whole tasks (`--report junit=FILE`, `--report github`); `--items-status` does not filter them. */
  report?: ReportSpec[];
  /** Item columns for table/tsv/csv: `task`, `target`, `status`, the data fields, `error`. */
  columns?: string[];
  wide?: boolean;
}

export function registerShow(program: Command, run: RunAction): void {
  program
    .command('show')
    .alias('get')
    .description('show tasks with their item results')
    .argument('<id...>', 'task ids')
    .addOption(
      new Option(
        '--items-status <status>',
        'only completed items, or (failed) only those that did not complete',
      ).choices(['completed', 'failed']),
    )
    .addOption(columnsOption())
    .addOption(wideOption())
    .addOption(reportOption())
    .addHelpText(
      'after',
      examples([
        'taskctl show 42',
        'taskctl show 42 43 44 -o csv > results.csv',
        'taskctl show 42 --items-status failed',
        'taskctl show 42 --columns target,available -o tsv',
        'taskctl show 42 -o ndjson | jq -r "select(.available) | .target"',
        'taskctl show 42 -o json | jq ".items[] | select(.data.available)"',
      ]) +
        '\n-o csv|tsv: one record per item: task, target, status, the result fields flattened, error (always last).' +
        '\n-o ndjson: one object per item, the result fields with their JSON types. "failed" = did not complete.' +
        '\nSeveral ids: one export (the result columns are the union over all the tasks); -o json is then a list.' +
        '\nA task that does not exist is exit 5 before anything is printed.\n',
    )
    .action((ids: string[], options: ShowOptions, command: Command) =>
      run(command, (ctx) => runShow(ctx, ids.map(parseTaskId), options)),
    );
}

/** Every task first, one after the other through the one client (its limiter paces): a missing one prints nothing. */
async function fetchTasks(ctx: Context, ids: readonly number[]): Promise<Task[]> {
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

export async function runShow(ctx: Context, requested: readonly number[], options: ShowOptions): Promise<void> {
  checkReportTargets(options.report);
  const ids = [...new Set(requested)];
  const tasks = await ctx.spin(ids.length === 1 ? `reading task ${ids[0]}` : `reading ${ids.length} tasks`, () =>
    fetchTasks(ctx, ids),
  );
  ctx.cache.rememberTasks(tasks);
  if (options.report?.length) await writeReports(ctx, options.report, tasks);
  const printer = ctx.printer;
  // The spec shows items in GET /tasks/:id, but a server may leave them out: say so rather than print nothing.
  for (const task of tasks) {
    if (task.items === undefined) printer.warn(`the service sent no item results for task ${task.id}`);
  }
  await printTaskItems(ctx, tasks, { ...options, single: requested.length === 1 });
}
