/** Item counts of a followed task, by the shared rule of lib/task-state.ts (never a rule of its own). */
import type { Task } from '../../api/schemas.js';
import { ITEMS_CONTRADICTED, itemCounts, itemsContradicted, UNLISTED_ITEMS } from '../../lib/task-state.js';

/**
 * The task without `items`, with `completed_items`/`failed_items` set by `itemCounts` when it knows them. Items are
 * dropped so that following thousands of large tasks keeps memory small.
 */
export function withItemCounts(task: Task): Task {
  const rest: Task = { ...task };
  delete rest.items;
  const counts = itemCounts(task);
  const contradicted = itemsContradicted(task);
  return {
    ...rest,
    ...(counts.completed === undefined ? {} : { completed_items: counts.completed }),
    ...(counts.failed === undefined ? {} : { failed_items: counts.failed }),
    // Items a short list left out are kept aside; those two counts leave out are found again from the counts.
    ...(counts.unlisted === undefined || task.items === undefined ? {} : { [UNLISTED_ITEMS]: counts.unlisted }),
    // The counts put in place of the items take the worse reading; what each had said stays for the warning.
    ...(contradicted === undefined ? {} : { [ITEMS_CONTRADICTED]: contradicted }),
  };
}

/** Items finished either way, or undefined when unknown: what the pace model and the progress bar count. */
export function finishedItemCount(task: Task): number | undefined {
  const { completed, failed } = itemCounts(task);
  return completed === undefined ? undefined : completed + (failed ?? 0);
}
