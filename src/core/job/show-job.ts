/**
 * `taskctl show --job FILE`: every item of a journaled job exactly once, in chunk order, each with its task id, one
 * task's answer in memory at a time. csv/tsv/ndjson/json are streamed as each task is read (json as one array of the
 * ndjson records); the table for people gathers a summary and its first rows in the same single pass, then shows the
 * summary first.
 */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Output, Process, Prompts, Runtime, Service, Store } from '../capabilities.js';

/** What `show --job` uses of the run. */
type Shower = Output &
  Pick<Process, 'endShort'> &
  Pick<Prompts, 'spin'> &
  Pick<Service, 'api' | 'globals'> &
  Pick<Store, 'cache' | 'config'> &
  Pick<Runtime, 'env' | 'clock'>;
import { UsageError } from '../../errors.js';
import { taskItemKeys, taskItemSlices } from '../../output/flatten.js';
import type { Column, Printer, RowStream } from '../../output/printer.js';
import type { ShowOptions } from '../show-options.js';
import { ITEM_SLICE, itemColumnsNamed, unseenColumnsWarning } from '../task-results.js';
import { itemFilter, requireAllItems, SHOW_JOB_CANNOT, type KeepItem } from './filter.js';
import {
  endShortIfLost,
  jobTasks,
  readJob,
  requireTasks,
  warnIfIncomplete,
  type JournaledJob,
} from './journaled-job.js';
import type { CreatedChunk } from './job-chunks.js';
import { SHOW_READ_AHEAD } from './read-ahead.js';
import { taskRecordSlices } from './show-records.js';
import { noneMatched, showJobTable } from './show-table.js';
import { idsOnly } from '../quiet.js';

export async function runShowJob(ctx: Shower, file: string, options: ShowOptions): Promise<void> {
  if (options.report?.length) {
    throw new UsageError(
      '--report is not written for a whole job (--job): a report holds every task in memory',
      `Export the items instead: taskctl show --job ${file} -o csv > results.csv`,
    );
  }
  const job = await readJob(ctx, file);
  requireTasks(job);
  endShortIfLost(ctx, job);
  warnIfIncomplete(ctx, job, (id) => `taskctl show --job ${id}`);
  const api = await ctx.api();
  const keep = itemFilter(options);
  if (idsOnly(ctx.globals)) await jobTargets(ctx.printer, api, job, keep);
  else if (ctx.printer.format === 'table') await showJobTable(ctx, api, job, keep, options);
  else await streamJob(ctx, api, job, keep, options);
}

/**
 * The columns of csv/tsv, from the first task: a name `--columns` gives that its items lack is a column all the same,
 * filled by the later tasks that have the field (ndjson and json carry every field: no columns to choose).
 */
function itemColumns(printer: Printer, keys: readonly string[], wanted: string[] | undefined) {
  const flat = printer.format === 'csv' || printer.format === 'tsv';
  return itemColumnsNamed(printer, keys, flat ? wanted : undefined);
}

/**
 * csv and tsv take their columns from the first task: a field a later task has that they lack is named once, on
 * stderr (ndjson and json keep every field).
 */
function lackingFields(printer: Printer, columns: ReadonlyArray<Column<unknown>>) {
  const known = new Set(columns.map((column) => column.key));
  return (task: Task, chunk: CreatedChunk) => {
    for (const key of taskItemKeys([task])) {
      if (known.has(key)) continue;
      known.add(key);
      printer.warn(
        `task ${task.id} (chunk ${chunk.chunk}) has the field "${key}", which the columns taken from the first task lack: it is left out (-o ndjson keeps every field)`,
      );
    }
  };
}

/** `-q` alone: the kept items' targets, one a line, as `show ID -q` prints them (what `create -f -` takes). */
async function jobTargets(printer: Printer, api: ApiClient, job: JournaledJob, keep: KeepItem): Promise<void> {
  for await (const { task } of jobTasks(api, job, SHOW_READ_AHEAD)) {
    requireAllItems(task, SHOW_JOB_CANNOT);
    for (const item of task.items ?? []) if (keep(item, task)) printer.line(item.target);
  }
}

/** csv, tsv, ndjson and json, written as each task is read; a failed read stops it (a json array left open). */
async function streamJob(
  ctx: Pick<Output, 'printer'>,
  api: ApiClient,
  job: JournaledJob,
  keep: KeepItem,
  options: ShowOptions,
): Promise<void> {
  const printer = ctx.printer;
  const flat = printer.format === 'csv' || printer.format === 'tsv';
  const wide = { wide: options.wide === true };
  let out: RowStream<unknown> | undefined;
  let lacking: ((task: Task, chunk: CreatedChunk) => void) | undefined;
  let kept = 0;
  const counted: KeepItem = (item, task) => keep(item, task) && ++kept > 0;
  // The fields of every task's items, and the names --columns gave that none of them has so far.
  const seen = new Set<string>();
  let unseen: string[] = [];
  try {
    for await (const { chunk, task } of jobTasks(api, job, SHOW_READ_AHEAD)) {
      requireAllItems(task, SHOW_JOB_CANNOT);
      const keys = taskItemKeys([task]);
      for (const key of keys) seen.add(key);
      if (out === undefined) {
        const named = itemColumns(printer, keys, options.columns);
        const columns = named.columns as Array<Column<unknown>>;
        unseen = named.unseen;
        out = printer.stream(columns, undefined, wide);
        if (flat && !options.columns?.length) lacking = lackingFields(printer, columns);
      } else lacking?.(task, chunk);
      if (!flat) for (const records of taskRecordSlices(task, counted, ITEM_SLICE)) out.write(records);
      else for (const slice of taskItemSlices([task], (item) => counted(item, task), ITEM_SLICE)) out.write(slice.rows);
    }
  } catch (error) {
    await out?.abort();
    throw error;
  }
  if (out === undefined) {
    const named = itemColumns(printer, taskItemKeys([]), options.columns);
    unseen = named.unseen;
    out = printer.stream(named.columns as Array<Column<unknown>>, undefined, wide);
  }
  await out.end();
  // Said once, after the export: a later task may have had the field.
  const lower = new Set([...seen].map((key) => key.toLowerCase()));
  const never = unseen.filter((name) => !lower.has(name.toLowerCase()));
  if (never.length > 0) {
    // In the export's order: task, target, status, the result fields in first-seen order, error.
    const fixed = taskItemKeys([]);
    const data = [...seen].filter((key) => !fixed.includes(key));
    printer.warn(unseenColumnsWarning(never, [...fixed.slice(0, -1), ...data, ...fixed.slice(-1)]));
  }
  // Nothing passed the filter: stdout stays empty (or `[]`), and stderr says why, as `retry` does.
  const none = kept === 0 ? noneMatched(job.file, options) : undefined;
  if (none !== undefined) printer.info(none);
}
