/**
 * Task statuses outside the spec's four (issue 13): shown as they came, warned about once per run, and named when a
 * wait times out on them. If core/task-state.ts gains a shared warn-once helper, `warnOnceForUnknownStatus` becomes a
 * call to it.
 */
import type { Task } from '../../api/schemas.js';
import { isKnownTaskStatus, isTerminal } from '../task-state.js';

/** Returns a function to call with every status seen; it calls `warn` once per unknown status. */
export function warnOnceForUnknownStatus(warn: (text: string) => void): (status: string) => void {
  const warned = new Set<string>();
  return (status) => {
    if (isKnownTaskStatus(status) || warned.has(status)) return;
    warned.add(status);
    warn(
      `the server reported task status "${status}", which the API documentation does not list; taskctl keeps waiting ` +
        'unless it carries a finish time or is a word for an ended task (cancelled, expired, ...)',
    );
  };
}

/** ` (task 5 is "on_hold", ...)`: the unfinished tasks whose status taskctl does not know; '' when there are none. */
export function unknownStatusNote(tasks: readonly Task[]): string {
  const odd = tasks.filter((task) => !isTerminal(task) && !isKnownTaskStatus(task.status));
  if (odd.length === 0) return '';
  const named = odd.slice(0, 3).map((task) => `task ${task.id} is "${task.status}"`);
  const more = odd.length > 3 ? `, and ${odd.length - 3} more` : '';
  return ` (${named.join(', ')}${more}: a status the API documentation does not list)`;
}
