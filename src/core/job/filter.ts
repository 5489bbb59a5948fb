/** Which items of a job's tasks `show --job` prints: `--items-status` and `--error`. */
import type { Task } from '../../api/schemas.js';
import { isTerminal, itemOutcome, listedTargets, unlistedItemsNote } from '../../lib/task-state.js';
import type { ItemLike } from '../../output/flatten.js';
import { MalformedResponseError } from '../../errors.js';
import { counted } from '../../output/plural.js';
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

/** What a task without its item results stops `show --job` from doing. */
export const SHOW_JOB_CANNOT = 'show --job cannot export every item of the job';

/**
 * docs/openapi.json shows items in GET /tasks/{id}, but a server may leave them out, or list another number than the
 * task has. What needs every item (`show --job`, a `diff` side) cannot go on without them (the one rule of "listed in
 * full", lib/task-state.ts `listedTargets`): exit 8 naming the task, `cannot` saying what that stops, never an export
 * or a comparison that looks whole (docs/behaviour.md#exit-codes).
 */
export function requireAllItems(task: Task, cannot: string): void {
  if (listedTargets(task) !== undefined) return;
  const missing =
    unlistedItemsNote(task) ??
    `task ${task.id} lists ${task.items?.length ?? 0} item results for its ${counted(task.total_items, 'item')}`;
  throw new MalformedResponseError(
    `${missing}: ${cannot}`,
    `See what the service sends: taskctl show ${task.id} -o json`,
  );
}
