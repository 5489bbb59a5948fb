/**
 * Task statuses outside docs/openapi.json's four are named when a wait times out on them; the warning once per run
 * is `unknownStatusWarner` in lib/task-state.ts.
 */
import type { Task } from '../../api/schemas.js';
import { isKnownTaskStatus, isTerminal } from '../../lib/task-state.js';
import { formatCount } from '../../output/numbers.js';

/** ` (task 5 is "on_hold", ...)`: the unfinished tasks whose status taskctl does not know; '' when there are none. */
export function unknownStatusNote(tasks: readonly Task[]): string {
  const odd = tasks.filter((task) => !isTerminal(task) && !isKnownTaskStatus(task.status));
  if (odd.length === 0) return '';
  const named = odd.slice(0, 3).map((task) => `task ${task.id} is "${task.status}"`);
  const more = odd.length > 3 ? `, and ${formatCount(odd.length - 3)} more` : '';
  return ` (${named.join(', ')}${more}: a status the API documentation does not list)`;
}
