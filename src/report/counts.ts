import type { Task } from '../api/schemas.js';

/** Completed and failed items: counted from the items when the task carries them, else the task's own counters. */
export function itemCounts(task: Task): { completed: number | undefined; failed: number | undefined } {
  if (task.items) {
    return {
      completed: task.items.filter((item) => item.status === 'completed').length,
      failed: task.items.filter((item) => item.status === 'failed').length,
    };
  }
  return { completed: task.completed_items ?? undefined, failed: task.failed_items ?? undefined };
}
