/**
 * A task's item results as `show` prints them, shared by `show` and the end of `wait`/`create --wait` (the
 * main job ends with its results), used by `show` and core/follow/wait-loop.ts.
 */
import type { Task } from '../api/schemas.js';
import type { Output } from './capabilities.js';
import { itemCounts } from '../lib/task-state.js';
import { itemFilter } from './job/filter.js';
import { noErrorMatched } from './job/error-match.js';
import { pickColumns } from '../output/columns.js';
import { formatCount } from '../output/numbers.js';
import {
  exportTaskItems,
  taskItemColumns,
  taskItemKeys,
  taskItemSlices,
  type FlatRecord,
  type ItemLike,
} from '../output/flatten.js';
import { TABLE_MAX_ROWS, type Column, type DetailField, type Printer, type RowStream } from '../output/printer.js';

/** Items flattened and printed at a time: a bounded working set whatever the task's size. */
export const ITEM_SLICE = 10_000;

export interface ItemsView {
  /** Only items in this status. */
  itemsStatus?: 'completed' | 'failed' | undefined;
  /** `--error TEXT`: only items that did not complete whose error (else their task's) contains one of these. */
  error?: string[] | undefined;
  /** Item columns for table/tsv/csv: `task`, `target`, `status`, the data fields, `error`. */
  columns?: string[] | undefined;
  wide?: boolean | undefined;
  /** One task asked for: `-o json` prints the task object, not a list of one. */
  single: boolean;
  /** `-q` alone: the items' targets, one a line (core/quiet.ts). */
  targetsOnly?: boolean | undefined;
}

/** Item columns with the status cell coloured by its meaning (on a terminal with colour). */
function statusPainted<T>(printer: Printer, columns: ReadonlyArray<Column<T>>): Array<Column<T>> {
  return columns.map((column) =>
    column.key === 'status' ? { ...column, style: (value: string) => printer.paintStatus(value) } : column,
  );
}

/**
 * The item columns `--columns` names, among `keys` (`task`, `target`, `status`, the result fields the items have,
 * `error`), all of them when it names none. Which result fields a task has depends on how its items ended (a task whose
 * items all failed has none), so a name no item has is no usage error: it is a column of its own, empty where an item
 * lacks the field, and `unseen` lists such names for `unseenColumnsWarning`.
 */
export function itemColumnsNamed(
  printer: Printer,
  keys: readonly string[],
  wanted: readonly string[] | undefined,
): { columns: Array<Column<FlatRecord>>; unseen: string[] } {
  const known = new Set(keys.map((key) => key.toLowerCase()));
  const unseen = [...new Set((wanted ?? []).filter((name) => !known.has(name.toLowerCase())))];
  const all = unseen.length === 0 ? keys : [...keys.slice(0, -1), ...unseen, ...keys.slice(-1)];
  return { columns: pickColumns(statusPainted(printer, taskItemColumns(all)), wanted), unseen };
}

/** One warning for the names `--columns` gave that no item has, with the columns seen: a typo stays visible. */
export function unseenColumnsWarning(unseen: readonly string[], seen: readonly string[]): string {
  const names = unseen.map((name) => `"${name}"`);
  const named =
    names.length === 1 ? `column ${names[0]}` : `columns ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `no item has the ${named}, printed empty (the columns seen: ${seen.join(', ')})`;
}

/** The task's own fields above its items on a terminal; its status in the task's tone. */
function taskSummary(task: Task, printer: Printer): DetailField[] {
  const { total, completed, failed, unlisted } = itemCounts(task);
  const fields: Array<[string, string | number | null | undefined]> = [
    ['id', task.id],
    ['service', task.service],
    ['status', task.status],
    [
      'items',
      `${formatCount(total)}${completed !== undefined ? ` (${formatCount(completed)} completed, ${formatCount(failed ?? 0)} failed${unlisted === undefined ? '' : `, ${formatCount(unlisted)} not listed`})` : ''}`,
    ],
    ['cost', task.cost],
    ['created', task.created_at],
    ['started', task.started_at],
    ['completed', task.completed_at],
    ['failed', task.failed_at],
    ['error', task.error_message],
  ];
  const paint = (text: string) => printer.paintStatus(text, task);
  return fields
    .filter((field): field is [string, string | number] => field[1] !== undefined && field[1] !== null)
    .map(([label, value]) => (label === 'status' ? [label, value, paint] : [label, value]));
}

/**
 * The tasks' items in the printer's format: json the tasks with their (filtered) items; csv/tsv the flat item rows;
 * ndjson one object per item; on a terminal each task's summary and its items table, through the pager when taller
 * than the screen.
 */
export async function printTaskItems(ctx: Output, tasks: readonly Task[], options: ItemsView): Promise<void> {
  const printer = ctx.printer;
  const wanted = options.itemsStatus;
  const filter = itemFilter(options);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const keep = (item: ItemLike, task: { id: number }) => {
    const full = byId.get(task.id);
    return full !== undefined && filter(item, full);
  };
  if (options.targetsOnly === true) {
    for (const task of tasks) for (const item of task.items ?? []) if (keep(item, task)) printer.line(item.target);
    return;
  }
  if (printer.format === 'json') {
    // The tasks as the server sent them, streamed: the flat rows below would only be a second copy.
    const shown = tasks.map((task) =>
      task.items === undefined || (wanted === undefined && !options.error?.length)
        ? task
        : { ...task, items: task.items.filter((item) => keep(item, task)) },
    );
    printer.json(options.single ? shown[0] : shown);
    return;
  }
  if (printer.format !== 'table') {
    // csv / tsv the flat rows, ndjson the item records with their JSON values (every field: --columns is not theirs):
    // a slice of items at a time.
    const keys = taskItemKeys(tasks);
    const named = itemColumnsNamed(printer, keys, printer.format === 'ndjson' ? undefined : options.columns);
    if (named.unseen.length > 0) printer.warn(unseenColumnsWarning(named.unseen, keys));
    const out = printer.stream(named.columns, undefined, { wide: options.wide === true });
    for (const slice of taskItemSlices(tasks, keep, ITEM_SLICE)) {
      if (printer.format === 'ndjson') (out as RowStream<unknown>).write(slice.records());
      else out.write(slice.rows);
    }
    await out.end();
    return;
  }
  // A table shows at most TABLE_MAX_ROWS rows a task: only those are flattened (a 1,000,000-item task was 756 MB).
  const cut = new Map<number, number>();
  const tableTasks = tasks.map((task) => {
    if (task.items === undefined || task.items.length <= TABLE_MAX_ROWS) return task;
    const kept = task.items.filter((item) => keep(item, task));
    if (kept.length <= TABLE_MAX_ROWS) return { ...task, items: kept };
    cut.set(task.id, kept.length);
    return { ...task, items: kept.slice(0, TABLE_MAX_ROWS) };
  });
  const { rows, keys } = exportTaskItems(tableTasks, keep);
  const { columns: picked, unseen } = itemColumnsNamed(printer, keys, options.columns);
  const chosen = options.columns !== undefined && options.columns.length > 0;
  const columns = chosen ? picked : picked.filter((c) => c.key !== 'task');
  await ctx.paged(async (paper) => {
    // Said first: on the pager's first screen, not after it is left.
    if (unseen.length > 0) paper.warn(unseenColumnsWarning(unseen, keys));
    for (const [id, total] of cut)
      paper.warn(
        `showing the first ${formatCount(TABLE_MAX_ROWS)} of ${formatCount(total)} items of task ${id}; use -o tsv or -o csv to get them all`,
      );
    await showTables(paper, tasks, rows, columns, {
      wide: options.wide === true,
      wanted,
      chosen,
      byError: options.error?.length ? options.error : undefined,
    });
  });
}

/** Columns a terminal table always shows, even when every value is empty. */
const ALWAYS = new Set(['task', 'target', 'status']);

/** On a terminal: each task's summary and its items table, a blank line between tasks. */
async function showTables(
  printer: Printer,
  tasks: readonly Task[],
  rows: ReadonlyArray<Record<string, string>>,
  columns: Array<Column<Record<string, string>>>,
  options: {
    wide: boolean;
    wanted: ItemsView['itemsStatus'];
    chosen: boolean;
    /** `--error`'s texts, when given. */
    byError: readonly string[] | undefined;
  },
): Promise<void> {
  for (const [index, task] of tasks.entries()) {
    if (index > 0) printer.blank();
    printer.detail(taskSummary(task, printer), task);
    const own = rows.filter((row) => row.task === String(task.id));
    if (own.length > 0) {
      printer.blank();
      // Each task's own result fields (from its rows: flattening all its items again would cost as much as the
      // answer, 1,000,000 items of which the table shows 1,000): another service's columns would only be dashes here.
      const ownKeys = new Set(own.flatMap((row) => Object.keys(row)));
      // ... and on a terminal no column that is empty in every row (an ERROR column of dashes says nothing).
      const filled = (key: string) => own.some((row) => Object.hasOwn(row, key) && row[key] !== '');
      const shown = options.chosen
        ? columns
        : columns.filter(
            (column) => ownKeys.has(column.key ?? '') && (ALWAYS.has(column.key ?? '') || filled(column.key ?? '')),
          );
      await printer.list(own, shown, undefined, { wide: options.wide, chosen: options.chosen });
    } else if ((options.wanted !== undefined || options.byError) && task.items !== undefined) {
      const none = options.byError
        ? noErrorMatched(undefined, options.byError)
        : options.wanted === 'failed'
          ? 'no items failed to complete'
          : 'no items completed';
      printer.info(tasks.length > 1 ? `task ${task.id}: ${none}` : none);
    }
  }
}
