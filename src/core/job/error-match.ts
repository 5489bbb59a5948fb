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

/**
 * That no item to retry matched `--error`, the patterns repeated: `of the items of task 42 that did not complete, none
 * has an error containing "timeout"`. `of`: the task or job file the items are of (none: the task shown).
 */
export function noErrorMatched(of: string | undefined, texts: readonly string[]): string {
  const patterns = texts.map((text) => JSON.stringify(text));
  const which = patterns.length > 1 ? `${patterns.slice(0, -1).join(', ')} or ${patterns.at(-1)}` : (patterns[0] ?? '');
  return `of the items${of === undefined ? '' : ` of ${of}`} that did not complete, none has an error containing ${which}`;
}
