import { Option, type Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { isTerminal, itemCounts, itemOutcome } from '../core/task-state.js';
import { exportItems, type ItemLike } from '../output/flatten.js';
import { examples, type RunAction } from '../program.js';
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
    .addOption(
      new Option(
        '--items-status <status>',
        'only completed items, or (failed) only those that did not complete',
      ).choices(['completed', 'failed']),
    )
    .addOption(reportOption())
    .addHelpText(
      'after',
      examples([
        'taskctl show 42',
        'taskctl show 42 --items-status failed',
        'taskctl show 42 -o csv > results.csv',
        'taskctl show 42 -o ndjson | jq -r "select(.available) | .target"',
        'taskctl show 42 -o json | jq ".items[] | select(.data.available)"',
      ]) +
        '\n-o csv|tsv: one record per item: target, status, the result fields flattened, error (always last).' +
        '\n-o ndjson: one object per item, the result fields with their JSON types. "failed" = did not complete.\n',
    )
    .action((id: string, options: ShowOptions, command: Command) =>
      run(command, (ctx) => runShow(ctx, parseTaskId(id), options)),
    );
}

export function taskSummary(task: Task): Array<[string, string | number]> {
  const { total, completed, failed } = itemCounts(task);
  const fields: Array<[string, string | number | null | undefined]> = [
    ['id', task.id],
    ['service', task.service],
    ['status', task.status],
    ['items', `${total}${completed !== undefined ? ` (${completed} completed, ${failed ?? 0} failed)` : ''}`],
    ['cost', task.cost],
    ['created', task.created_at],
    ['started', task.started_at],
    ['completed', task.completed_at],
    ['failed', task.failed_at],
    ['error', task.error_message],
  ];
  return fields.filter((field): field is [string, string | number] => field[1] !== undefined && field[1] !== null);
}

export async function runShow(ctx: Context, id: number, options: ShowOptions): Promise<void> {
  const api = await ctx.api();
  const task = await api.getTask(id);
  ctx.cache.rememberTasks([task]);
  if (options.report?.length) await writeReports(ctx, options.report, [task]);
  const printer = ctx.printer;
  // The spec shows items in GET /tasks/:id, but a server may leave them out: say so rather than print nothing.
  if (task.items === undefined) printer.warn(`the service sent no item results for task ${task.id}`);
  const terminal = isTerminal(task);
  const wanted = options.itemsStatus;
  const keep = (item: ItemLike) => wanted === undefined || itemOutcome(item, terminal) === wanted;
  const { rows, columns, records } = exportItems(task.items ?? [], keep);
  const itemColumns = columns.map((column) =>
    column.key === 'status' ? { ...column, style: (value: string) => printer.paintStatus(value) } : column,
  );
  switch (printer.format) {
    case 'json':
      printer.json(task.items === undefined ? task : { ...task, items: task.items.filter(keep) });
      return;
    case 'table':
      printer.detail(taskSummary(task), task);
      if (rows.length > 0) {
        printer.blank();
        await printer.list(rows, itemColumns, records);
      } else if (wanted !== undefined && task.items !== undefined) {
        printer.info(wanted === 'failed' ? 'no items failed to complete' : 'no items completed');
      }
      return;
    default:
      // csv / tsv export the flat rows, ndjson the item records with their JSON values.
      await printer.list(rows, itemColumns, records);
  }
}
