/**
 * `--error TEXT` (repeatable, ORed): an item whose error contains one of the texts, case-insensitively; an item with
 * no error of its own is judged by its task's `error_message`. Used by `retry` (ids or `--job`) and `show` (a preview
 * of what such a retry sends).
 */
import type { ItemLike } from '../../output/flatten.js';
import { errorText } from '../../lib/item-error.js';
import { itemOutcome } from '../../lib/task-state.js';

export type ErrorMatch = (item: ItemLike, task: { error_message?: string | null | undefined }) => boolean;

/** The matcher for `texts`, or undefined when none was given (every item matches). */
export function errorMatch(texts: readonly string[] | undefined): ErrorMatch | undefined {
  const wanted = (texts ?? []).map((text) => text.toLowerCase()).filter((text) => text !== '');
  if (wanted.length === 0) return undefined;
  return (item, task) => {
    const error = (errorText(item.error) ?? task.error_message ?? '').toLowerCase();
    return error !== '' && wanted.some((text) => error.includes(text));
  };
}

/** What a retry re-runs: an item of a finished task that did not complete, and matches `--error` when given. */
export function toRetry(match: ErrorMatch | undefined): ErrorMatch {
  return (item, task) => itemOutcome(item, true) !== 'completed' && (match === undefined || match(item, task));
}
