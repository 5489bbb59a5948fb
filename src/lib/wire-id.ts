/**
 * A task id the server sent as a string ("7") is a number inside taskctl, but JSON output keeps the server's type
 * (docs/behaviour.md#types-kept): the wire form rides along under this symbol (ignored by JSON.stringify, kept by object spread).
 */
export const WIRE_ID: unique symbol = Symbol.for('taskctl.wireId');

/** `value` with its wire id put back (a shallow copy), or `value` itself when it has none. */
export function withWireId(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const wire = (value as { [WIRE_ID]?: unknown })[WIRE_ID];
  return wire === undefined ? value : { ...value, id: wire };
}
