import { UsageError } from '../errors.js';

/** Task ids are positive integers; `#42` (as copied from a table) is accepted too. */
export function parseTaskId(text: string): number {
  const trimmed = text.trim().replace(/^#/, '');
  if (!/^\d{1,15}$/.test(trimmed) || Number(trimmed) < 1) {
    throw new UsageError(
      `invalid task id "${text}"`,
      'Task ids are whole numbers, e.g. `taskctl show 42`; see `taskctl list`.',
    );
  }
  return Number(trimmed);
}
