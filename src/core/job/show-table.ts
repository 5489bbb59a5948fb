/**
 * `show --job` for people: one pass over the job's tasks gathers the summary (items by status, the most common error
 * messages) and the first rows of the items table; the summary is shown first, then the items, through the pager.
 */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Output, Prompts } from '../capabilities.js';
import { errorText } from '../../lib/item-error.js';
import { isTerminal, itemOutcome } from '../../lib/task-state.js';
import { exportTaskItems, type FlatRecord, type ItemLike } from '../../output/flatten.js';
import { formatCount } from '../../output/numbers.js';
import { counted } from '../../output/plural.js';
import { TABLE_MAX_ROWS, type Column, type DetailField, type Printer } from '../../output/printer.js';
import type { ShowOptions } from '../show-options.js';
import { itemColumnsNamed, unseenColumnsWarning } from '../task-results.js';
import { jobTasks, type JournaledJob } from './journaled-job.js';
import { SHOW_READ_AHEAD } from './read-ahead.js';
import { requireAllItems, SHOW_JOB_CANNOT, type KeepItem } from './filter.js';
import { noErrorMatched } from './error-match.js';

/** Error messages shown in the summary, most common first. */
const TOP_ERRORS = 5;
/** Distinct error messages counted; past this, new ones are only counted as "other" (memory stays bounded). */
const MAX_DISTINCT_ERRORS = 10_000;

interface Tally {
  tasks: number;
  /** Every item of the tasks read, kept or not. */
  all: number;
  items: number;
  byStatus: Map<string, number>;
  errors: Map<string, number>;
  /** Items whose error was not among the distinct messages counted. */
  otherErrors: number;
  /** The first TABLE_MAX_ROWS kept items, by task (in order). */
  shown: Array<{ id: number; items: ItemLike[] }>;
  shownCount: number;
}

function tallyTask(tally: Tally, task: Task, keep: KeepItem): void {
  tally.tasks++;
  const terminal = isTerminal(task);
  let shown: ItemLike[] | undefined;
  for (const item of task.items ?? []) {
    tally.all++;
    if (!keep(item, task)) continue;
    tally.items++;
    const status = item.status.toLowerCase();
    tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
    if (itemOutcome(item, terminal) === 'failed') countError(tally, errorText(item.error) ?? task.error_message ?? '');
    if (tally.shownCount >= TABLE_MAX_ROWS) continue;
    if (shown === undefined) {
      shown = [];
      tally.shown.push({ id: task.id, items: shown });
    }
    shown.push(item);
    tally.shownCount++;
  }
}

function countError(tally: Tally, message: string): void {
  if (message === '') return;
  const seen = tally.errors.get(message);
  if (seen !== undefined) tally.errors.set(message, seen + 1);
  else if (tally.errors.size < MAX_DISTINCT_ERRORS) tally.errors.set(message, 1);
  else tally.otherErrors++;
}

/** The job's lines above its items: file, service, tasks, items, then one line per status. */
function summaryFields(job: JournaledJob, tally: Tally, options: ShowOptions): DetailField[] {
  const filter = filterWords(options);
  const statuses = [...tally.byStatus.entries()].sort((a, b) => b[1] - a[1]);
  return [
    ['job', job.file],
    ['service', job.service],
    [
      'tasks',
      tally.tasks === job.chunks.length
        ? tally.tasks
        : `${formatCount(tally.tasks)} of ${formatCount(job.chunks.length)} (the job is incomplete)`,
    ],
    [
      'items',
      filter === undefined
        ? formatCount(tally.items)
        : `${formatCount(tally.items)} of ${formatCount(tally.all)} (${filter})`,
    ],
    ...statuses.map(([status, count]): DetailField => [status, count]),
  ];
}

/** The filter the flags set, as typed (`--error timeout`), or undefined when every item is shown. */
function filterWords(options: ShowOptions): string | undefined {
  const words = [
    ...(options.itemsStatus === undefined ? [] : [`--items-status ${options.itemsStatus}`]),
    ...(options.error?.length ? options.error.map((text) => `--error ${text}`) : []),
  ];
  return words.length === 0 ? undefined : words.join(' ');
}

const NONE_IN_STATUS = { completed: 'completed', failed: 'failed to complete' } as const;

/** No item of the job passed the filter: said in `retry`'s words (undefined when no filter was set). */
export function noneMatched(file: string, options: ShowOptions): string | undefined {
  if (options.error?.length) return noErrorMatched(file, options.error);
  return options.itemsStatus && `no item of ${file} ${NONE_IN_STATUS[options.itemsStatus]}`;
}

interface ErrorRow {
  count: number;
  error: string;
}

function errorRows(tally: Tally): ErrorRow[] {
  const rows = [...tally.errors.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_ERRORS)
    .map(([error, count]) => ({ count, error }));
  const rest = [...tally.errors.values()].reduce((sum, n) => sum + n, 0) - rows.reduce((sum, r) => sum + r.count, 0);
  const other = rest + tally.otherErrors;
  if (other > 0) rows.push({ count: other, error: `(${counted(other, 'item')} with other errors)` });
  return rows;
}

const ERROR_COLUMNS: Array<Column<ErrorRow>> = [
  { header: 'Items', value: (row) => row.count, align: 'right' },
  { header: 'Error', value: (row) => row.error, truncate: true },
];

/** Columns a table always shows, even when every value is empty. */
const ALWAYS = new Set(['task', 'target', 'status']);

/** The items table's rows and columns (those with a value in some row, or those named by --columns). */
function itemsTable(printer: Printer, tally: Tally, wanted: string[] | undefined) {
  const { rows, keys } = exportTaskItems(tally.shown);
  const named = itemColumnsNamed(printer, keys, wanted);
  if (wanted !== undefined && wanted.length > 0) return { rows, keys, ...named };
  const filled = (key: string) => rows.some((row) => Object.hasOwn(row, key) && row[key] !== '');
  return {
    rows,
    keys,
    unseen: [],
    columns: named.columns.filter((c) => ALWAYS.has(c.key ?? '') || filled(c.key ?? '')),
  };
}

export async function showJobTable(
  ctx: Pick<Output, 'printer' | 'paged'> & Pick<Prompts, 'spin'>,
  api: ApiClient,
  job: JournaledJob,
  keep: KeepItem,
  options: ShowOptions,
): Promise<void> {
  const printer = ctx.printer;
  const tally: Tally = {
    tasks: 0,
    all: 0,
    items: 0,
    byStatus: new Map(),
    errors: new Map(),
    otherErrors: 0,
    shown: [],
    shownCount: 0,
  };
  await ctx.spin(`reading ${counted(job.created.length, 'task')} of ${job.file}`, async (say) => {
    for await (const { task } of jobTasks(api, job, SHOW_READ_AHEAD)) {
      requireAllItems(task, SHOW_JOB_CANNOT);
      tallyTask(tally, task, keep);
      say(`reading ${job.file}: ${tally.tasks} of ${counted(job.created.length, 'task')}`);
    }
  });
  const table = itemsTable(printer, tally, options.columns);
  const none = tally.items === 0 ? noneMatched(job.file, options) : undefined;
  await ctx.paged(async (paper) => {
    // Said first: on the pager's first screen, not after it is left.
    if (table.unseen.length > 0) paper.warn(unseenColumnsWarning(table.unseen, table.keys));
    if (tally.items > tally.shownCount)
      paper.warn(
        `showing the first ${formatCount(tally.shownCount)} of ${formatCount(tally.items)} items; use -o csv or -o ndjson to get them all`,
      );
    paper.detail(summaryFields(job, tally, options), undefined);
    const errors = errorRows(tally);
    if (errors.length > 0) {
      paper.blank();
      await paper.list(errors, ERROR_COLUMNS);
    }
    // Nothing passed the filter: said below the summary (after the pager), in retry's words, not as "No items.".
    if (none !== undefined) return;
    paper.blank();
    await paper.list<FlatRecord>(table.rows, table.columns, undefined, {
      wide: options.wide === true,
      emptyMessage: 'No items.',
    });
  });
  if (none !== undefined) printer.info(none);
}
