import { Option, type Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { exportItems } from '../output/flatten.js';
import { examples, type RunAction } from './help-text.js';
import { reportOption, writeReports, type ReportSpec } from '../report/write.js';
import { parseTaskId } from './task-id.js';

export interface ShowOptions {
  /** Only items in this status. */
  itemsStatus?: 'completed' | 'failed';
  /** Reports on the whole task (`--report junit=FILE`, `--report github`); `--items-status` does not filter them. */
  report?: ReportSpec[];
}

export function registerShow(program: Command, run: RunAction): void {
  program
    .command('show')
    .alias('get')
    .description('show one task with its item results')
    .argument('<id>', 'task id')
    .addOption(new Option('--items-status <status>', 'only items in this status').choices(['completed', 'failed']))
    .addOption(reportOption())
    .addHelpText(
      'after',
      examples([
        'taskctl show 42',
        'taskctl show 42 --items-status failed',
        'taskctl show 42 -o csv > results.csv',
        'taskctl show 42 -o json | jq ".items[] | select(.data.available)"',
      ]) + '\n-o csv|tsv|ndjson export the item results: target, status, then the result fields flattened.\n',
    )
    .action((id: string, options: ShowOptions, command: Command) =>
      run(command, (ctx) => runShow(ctx, parseTaskId(id), options)),
    );
}

export function taskSummary(task: Task): Array<[string, string | number | null | undefined]> {
  const completed = task.completed_items ?? task.items?.filter((i) => i.status === 'completed').length;
  const failed = task.failed_items ?? task.items?.filter((i) => i.status === 'failed').length;
  return [
    ['id', task.id],
    ['service', task.service],
    ['status', task.status],
    [
      'items',
      `${task.total_items}${completed !== undefined ? ` (${completed} completed, ${failed ?? 0} failed)` : ''}`,
    ],
    ['cost', task.cost],
    ['created', task.created_at],
    ['started', task.started_at],
    ['completed', task.completed_at],
    ['failed', task.failed_at],
    ['error', task.error_message],
  ].filter(([, value]) => value !== undefined && value !== null) as Array<[string, string | number]>;
}

export async function runShow(ctx: Context, id: number, options: ShowOptions): Promise<void> {
  const api = await ctx.api();
  const task = await api.getTask(id);
  ctx.cache.rememberTasks([task]);
  if (options.report?.length) await writeReports(ctx, options.report, [task]);
  const items = (task.items ?? []).filter((item) => !options.itemsStatus || item.status === options.itemsStatus);
  const { rows, columns } = exportItems(items);
  const itemColumns = columns.map((column) =>
    column.key === 'status' ? { ...column, style: (value: string) => ctx.printer.paintStatus(value) } : column,
  );
  const printer = ctx.printer;
  switch (printer.format) {
    case 'json':
      printer.json({ ...task, items });
      return;
    case 'table':
      printer.detail(taskSummary(task), task);
      if (items.length > 0) {
        printer.blank();
        await printer.list(rows, itemColumns, rows);
      }
      return;
    default:
      // csv / tsv / ndjson export the item results.
      await printer.list(rows, itemColumns, rows);
  }
}
