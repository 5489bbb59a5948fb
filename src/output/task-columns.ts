/** Columns shared by every command that prints tasks (`list`, `create`, `wait`). */
import type { Task } from '../api/schemas.js';
import { itemCounts, taskPhase, taskSucceeded } from '../lib/task-state.js';
import type { Column } from './printer.js';
import type { ChalkInstance } from 'chalk';

export type StatusPainter = (status: string) => string;

/** `8/8`, `7/8, 1 failed`, or the total alone when the server gave neither items nor counts. */
function itemsText(task: Task): string {
  return countsText(itemCounts(task));
}

/**
 * The one way counts are shown (issue 26): `completed/total`, then `, N failed` — exactly what the service reported,
 * the same in list, watch, wait's lines and the live block. Without counts from the service: the total alone.
 */
export function countsText(counts: { total: number; completed?: number | undefined; failed?: number | undefined }) {
  const { total, completed, failed } = counts;
  if (completed === undefined) return String(total);
  return failed !== undefined && failed > 0 ? `${completed}/${total}, ${failed} failed` : `${completed}/${total}`;
}

/** Coloured by outcome (task-state rules): green only when every item completed; any failed item is red. */
function paintItems(chalk: ChalkInstance, task: Task, text: string): string {
  if (taskSucceeded(task)) return chalk.green(text);
  const { completed, failed } = itemCounts(task);
  if (failed !== undefined && failed > 0) return chalk.red(text);
  if (taskPhase(task) === 'active') return chalk.yellow(text);
  return completed === undefined ? text : chalk.red(text);
}

/**
 * Machine formats keep the server's fields (`total_items`, ISO times); a terminal shows the item outcome and ages. At
 * a narrow terminal FINISHED, then COST, then ITEMS are left out (`--wide` keeps them); ID, SERVICE, STATUS and
 * CREATED stay, or the rows stack.
 */
export function taskColumns(paint: StatusPainter, chalk?: ChalkInstance): Array<Column<Task>> {
  return [
    { header: 'ID', key: 'id', value: (t) => t.id, align: 'right' },
    { header: 'SERVICE', key: 'service', value: (t) => t.service },
    { header: 'STATUS', key: 'status', value: (t) => t.status, style: (value) => paint(value) },
    {
      header: 'ITEMS',
      key: 'total_items',
      value: (t) => t.total_items,
      display: itemsText,
      optional: 1,
      ...(chalk ? { style: (text: string, t: Task) => paintItems(chalk, t, text) } : {}),
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
  ];
}
