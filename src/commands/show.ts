import { Option, type Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { isTerminal, itemCounts, itemOutcome } from '../core/task-state.js';
import { NotFoundError } from '../errors.js';
import { columnsOption, pickColumns, wideOption } from '../output/columns.js';
import { taskItemColumns, taskItemKeys, taskItemSlices, type ItemLike } from '../output/flatten.js';
import type { Column, RowStream } from '../output/printer.js';
import { examples, type RunAction } from './help-text.js';
import { checkReportTargets, reportOption, writeReports, type ReportSpec } from '../report/write.js';
import { parseTaskId } from './task-id.js';

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

function taskSummary(task: Task): Array<[string, string | number]> {
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
  const tasks = await fetchTasks(ctx, ids);
  ctx.cache.rememberTasks(tasks);
  if (options.report?.length) await writeReports(ctx, options.report, tasks);
  const printer = ctx.printer;
  // The spec shows items in GET /tasks/:id, but a server may leave them out: say so rather than print nothing.
  for (const task of tasks) {
    if (task.items === undefined) printer.warn(`the service sent no item results for task ${task.id}`);
  }
  const wanted = options.itemsStatus;
  const terminal = new Map(tasks.map((task) => [task.id, isTerminal(task)]));
  const keep = (item: ItemLike, task: { id: number }) =>
    wanted === undefined || itemOutcome(item, terminal.get(task.id) === true) === wanted;
  if (printer.format === 'json') {
    // The tasks as the server sent them, streamed: the flat rows below would only be a second copy (issue 25).
    const shown = tasks.map((task) =>
      task.items === undefined || wanted === undefined
        ? task
        : { ...task, items: task.items.filter((item) => keep(item, task)) },
    );
    printer.json(requested.length === 1 ? shown[0] : shown);
    return;
  }
  // Columns from every item (a first pass that keeps nothing), then the rows a slice at a time (issue 25).
  const keys = taskItemKeys(tasks);
  const styled = taskItemColumns(keys).map((column) =>
    column.key === 'status' ? { ...column, style: (value: string) => printer.paintStatus(value) } : column,
  );
  // Unknown names are refused against the columns the tasks really have (data fields are known only now).
  const picked = pickColumns(styled, options.columns);
  const chosen = options.columns !== undefined && options.columns.length > 0;
  const listOptions = { wide: options.wide === true };
  if (printer.format === 'table') {
    await showTables(ctx, tasks, keep, chosen ? picked : picked.filter((c) => c.key !== 'task'), {
      ...listOptions,
      wanted,
      chosen,
    });
    return;
  }
  // csv / tsv export the flat rows, ndjson the item records with their JSON values.
  const out = printer.stream(picked, undefined, listOptions);
  for (const slice of taskItemSlices(tasks, keep, SLICE)) {
    if (printer.format === 'ndjson') (out as RowStream<unknown>).write(slice.records());
    else out.write(slice.rows);
  }
  await out.end();
}

/** Items flattened and printed at a time: a bounded working set whatever the task's size. */
const SLICE = 10_000;

/** On a terminal: each task's summary and its items table, a blank line between tasks. */
async function showTables(
  ctx: Context,
  tasks: readonly Task[],
  keep: (item: ItemLike, task: { id: number }) => boolean,
  columns: Array<Column<Record<string, string>>>,
  options: { wide: boolean; wanted: ShowOptions['itemsStatus']; chosen: boolean },
): Promise<void> {
  const printer = ctx.printer;
  for (const [index, task] of tasks.entries()) {
    if (index > 0) printer.blank();
    printer.detail(taskSummary(task), task);
    const slices = taskItemSlices([task], keep, SLICE);
    const first = slices.next();
    if (first.done !== true) {
      printer.blank();
      // Each task's own result fields: another service's columns would only be dashes here.
      const ownKeys = new Set(taskItemKeys([task]));
      const shown = options.chosen ? columns : columns.filter((column) => ownKeys.has(column.key ?? ''));
      // The table keeps its first rows and counts the rest (printer.stream), so a huge task is never held as rows.
      const out = printer.stream(shown, undefined, { wide: options.wide });
      out.write(first.value.rows);
      for (const slice of slices) out.write(slice.rows);
      await out.end();
    } else if (options.wanted !== undefined && task.items !== undefined) {
      const none = options.wanted === 'failed' ? 'no items failed to complete' : 'no items completed';
      printer.info(tasks.length > 1 ? `task ${task.id}: ${none}` : none);
    }
  }
}
