/**
 * What an item's `error` says. The contract does not name the field (docs/openapi.json, TaskItem), so a service may
 * send any JSON value there: a string is itself; an object with a string `message` (`{code, message}`) is its
 * message, else its `code`; null or nothing is no error; any other value is its compact JSON. The text is for people,
 * `--error` and reports only: an item's outcome is its status alone (lib/task-state.ts), never its error.
 */
export function errorText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { message, code } = value as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    if (typeof code === 'string' && code !== '') return code;
  }
  return JSON.stringify(value);
}
