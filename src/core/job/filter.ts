/** Which items of a job's tasks `show --job` prints: `--items-status` and `--error`. */
import type { Task } from '../../api/schemas.js';
import { isTerminal, itemOutcome } from '../../lib/task-state.js';
import type { ItemLike } from '../../output/flatten.js';
import type { Printer } from '../../output/printer.js';
import { errorMatch, toRetry } from './error-match.js';

export type KeepItem = (item: ItemLike, task: Task) => boolean;

/** `--items-status`, and `--error`: items that did not complete and whose error matches (what such a retry sends). */
export function itemFilter(options: {
  itemsStatus?: 'completed' | 'failed' | undefined;
  error?: string[] | undefined;
}): KeepItem {
  const match = errorMatch(options.error);
  const retried = match && toRetry(match);
  const wanted = options.itemsStatus;
  return (item, task) =>
    (wanted === undefined || itemOutcome(item, isTerminal(task)) === wanted) &&
    (retried === undefined || retried(item, task));
}

/** docs/openapi.json shows items in GET /tasks/{id}, but a server may leave them out: say so, not print nothing. */
export function warnNoItems(printer: Printer, task: Task): void {
  if (task.items === undefined) printer.warn(`the service sent no item results for task ${task.id}`);
}
