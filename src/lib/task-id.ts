import { UsageError } from '../errors.js';

/**
 * Task ids are whole numbers; `#42` (as copied from a table) is accepted too. 0 is one: a server that numbers from 0
 * prints it in lists and hints, so `show 0` must work like any id the server gave.
 */
export function parseTaskId(text: string): number {
  const trimmed = text.trim().replace(/^#/, '');
  if (!/^\d{1,15}$/.test(trimmed)) {
    throw new UsageError(
      `invalid task id "${text}"`,
      'Task ids are whole numbers, e.g. `taskctl show 42`; see `taskctl list`.',
    );
  }
  return Number(trimmed);
}
