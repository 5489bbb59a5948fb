/** Headers whose values are secrets: never printed, in traces or anywhere else. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['x-api-key', 'authorization', 'x-webhook-signature']);

const REDACTED = '[REDACTED]';

export type Redactor = (text: string) => string;

/**
 * Returns a function that replaces every literal occurrence of each secret (of 4+ characters) with `[REDACTED]`.
 * Every string printed by taskctl passes through one of these, so a server that echoes the key cannot leak it.
 */
export function createRedactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  const values = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    // includes() first: a split and join of a 60 MiB answer that holds no secret would copy it for nothing.
    for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  };
}

/** Header list for a trace line: secret header values replaced. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Last four characters, for `auth status`: `****abcd`. */
export function maskKey(key: string): string {
  return key.length <= 4 ? '****' : `****${key.slice(-4)}`;
}
