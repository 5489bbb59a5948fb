/** Item counts and states of a task, from whichever fields the server gave. */
import { TERMINAL_TASK_STATUSES } from '../../api/schemas.js';
import type { Task } from '../../api/schemas.js';

export function isTerminal(status: string): boolean {
  return TERMINAL_TASK_STATUSES.has(status);
}

/**
 * The task without `items`, with `completed_items`/`failed_items` counted from the items when the server did not send
 * the counts. Items are dropped so that watching thousands of large tasks keeps memory small.
 */
export function withItemCounts(task: Task): Task {
  const { items, ...rest } = task;
  if (!items) return rest;
  let completed = 0;
  let failed = 0;
  for (const item of items) {
    if (item.status === 'completed') completed++;
    else if (item.status === 'failed') failed++;
  }
  return { ...rest, completed_items: rest.completed_items ?? completed, failed_items: rest.failed_items ?? failed };
}

/** Failed items: the server's count, else counted from items, else unknown. */
export function failedItemCount(task: Task): number | undefined {
  if (task.failed_items !== undefined && task.failed_items !== null) return task.failed_items;
  if (task.items) return task.items.filter((item) => item.status === 'failed').length;
  return undefined;
}

/** Completed items: the server's count, else counted from items, else unknown. */
export function completedItemCount(task: Task): number | undefined {
  if (task.completed_items !== undefined && task.completed_items !== null) return task.completed_items;
  if (task.items) return task.items.filter((item) => item.status === 'completed').length;
  return undefined;
}
