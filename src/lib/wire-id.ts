/**
 * A task id the server sent as a string ("7") is a number inside taskctl, but JSON output keeps the server's type
 * (docs/behaviour.md#types-kept): the wire form rides along under this symbol (ignored by JSON.stringify, kept by object spread).
 */
export const WIRE_ID: unique symbol = Symbol.for('taskctl.wireId');

/**
 * Fields of a task the server sent in a type taskctl does not read (a webhook-only field the contract leaves unnamed
 * on the API's Task, api/schemas.ts): undefined inside taskctl, their values as sent under this symbol for JSON output.
 */
export const WIRE_FIELDS: unique symbol = Symbol.for('taskctl.wireFields');

/** `value` with its wire id and wire fields put back (a shallow copy), or `value` itself when it has none. */
export function withWireId(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const wire = (value as { [WIRE_ID]?: unknown })[WIRE_ID];
  const fields = (value as { [WIRE_FIELDS]?: Record<string, unknown> })[WIRE_FIELDS];
  if (wire === undefined && fields === undefined) return value;
  return { ...value, ...fields, ...(wire === undefined ? {} : { id: wire }) };
}
