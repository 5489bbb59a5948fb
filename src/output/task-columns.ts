/** Columns shared by every command that prints tasks (`list`, `create`, `wait`). */
import type { Task } from '../api/schemas.js';
import { itemCounts, taskTone, type TaskStateFields } from '../lib/task-state.js';
import { paintTone } from './status-colours.js';
import { formatCount } from './numbers.js';
import type { Column } from './printer.js';
import { columnName } from './columns.js';
import type { ChalkInstance } from 'chalk';

/** Paints a status word, by the task's tone when the task is given (`Printer.paintStatus`). */
export type StatusPainter = (status: string, task?: TaskStateFields) => string;

/** `8/8`, `7/8, 1 failed`, or the total alone when the server gave neither items nor counts. */
function itemsText(task: Task): string {
  return countsText(itemCounts(task));
}

/**
 * The one way counts are shown: `completed/total`, then `, N failed` — exactly what the service reported,
 * the same in list, watch, wait's lines and the live block. Without counts from the service: the total alone.
 */
export function countsText(counts: {
  total: number;
  completed?: number | undefined;
  failed?: number | undefined;
  unlisted?: number | undefined;
}) {
  const { total, completed, failed, unlisted } = counts;
  if (completed === undefined) return formatCount(total);
  const done = `${formatCount(completed)}/${formatCount(total)}`;
  const withFailed = failed !== undefined && failed > 0 ? `${done}, ${formatCount(failed)} failed` : done;
  return unlisted !== undefined && unlisted > 0 ? `${withFailed}, ${formatCount(unlisted)} not listed` : withFailed;
}

/** The widest `countsText` a task of `total` items can show (all of them completed and failed): its room on a line. */
export function countsRoom(total: number): number {
  return countsText({ total, completed: total, failed: total }).length;
}

/**
 * Machine formats keep the server's fields (`total_items`, ISO times, and the item counts last); a terminal shows the
 * item outcome and ages. At a narrow terminal FINISHED, then COST are left out, then SERVICE is cut (to 16 columns,
 * `domain_check_av…`), then ITEMS are left out (`--wide` keeps them all); ID, SERVICE, STATUS and CREATED stay, or
 * the rows stack.
 */
/** ITEMS's rank among the columns left out at a narrow terminal: the last of them to go. */
const ITEMS_RANK = 1;

export function taskColumns(paint: StatusPainter, chalk?: ChalkInstance): Array<Column<Task>> {
  return [
    { header: 'ID', key: 'id', value: (t) => t.id, align: 'right' },
    {
      header: 'SERVICE',
      key: 'service',
      value: (t) => t.service,
      truncate: true,
      yieldsTo: { rank: ITEMS_RANK, least: 16 },
    },
    { header: 'STATUS', key: 'status', value: (t) => t.status, style: (value, t) => paint(value, t) },
    {
      header: 'ITEMS',
      key: 'total_items',
      value: (t) => t.total_items,
      display: itemsText,
      optional: ITEMS_RANK,
      // The task's tone, like its status: a completed task with failed items is yellow, never green.
      ...(chalk ? { style: (text: string, t: Task) => paintTone(chalk, taskTone(t), text) } : {}),
    },
    { header: 'COST', key: 'cost', value: (t) => t.cost, align: 'right', optional: 2 },
    { header: 'CREATED', key: 'created_at', value: (t) => t.created_at, time: true },
    {
      header: 'FINISHED',
      key: 'finished_at',
      value: (t) => t.completed_at ?? t.failed_at ?? '',
      time: true,
      optional: 3,
    },
    // For scripts: the counts ITEMS shows people (`7/8, 1 failed`), empty when the service gave none.
    { header: 'COMPLETED ITEMS', key: 'completed_items', value: (t) => itemCounts(t).completed ?? '', machine: true },
    { header: 'FAILED ITEMS', key: 'failed_items', value: (t) => itemCounts(t).failed ?? '', machine: true },
  ];
}

/** The task columns' names, in their order: a task record's tsv and csv columns, as help texts list them. */
export function taskColumnNames(): string[] {
  return taskColumns((status) => status).map(columnName);
}
