/**
 * Server text is printed inert: a task name or error message must not be able to move the cursor, recolour the
 * terminal, set the window title or reorder what the reader sees (docs/behaviour.md#output). Each dangerous code point becomes a
 * visible escape (`\x1b`, `\u009b`, `\u202e`) so the reader can still tell something odd was there.
 *
 * This is the one module for control-character patterns: import these instead of writing another regex.
 */

/** Source of the C0 range, DEL and C1 (U+009B is an 8-bit CSI on some terminals): what a terminal may act on. */
const C0 = '\\u0000-\\u001f';
const DEL_C1 = '\\u007f-\\u009f';
/**
 * Bidi embeddings/overrides (U+202A–E) and isolates (U+2066–9): they reorder what the reader sees (Trojan Source).
 * With them the line and paragraph separators (U+2028–9), which some readers take for a new line.
 */
const BIDI = '\\u2028-\\u202e\\u2066-\\u2069';

/** C0, DEL and C1 controls (no bidi): one such character. Use with `.test`; add the `g` flag yourself to replace. */
export const CONTROL_CHAR = new RegExp(`[${C0}${DEL_C1}]`);
/** Every code point `neutralise` escapes: C0, DEL, C1, bidi controls. */
const UNSAFE_CHAR = new RegExp(`[${C0}${DEL_C1}${BIDI}]`);
/** Code points JSON.stringify leaves raw but a terminal acts on: DEL, C1, bidi. Only ever inside JSON strings. */
const JSON_UNSAFE_CHAR = new RegExp(`[${DEL_C1}${BIDI}]`);

const UNSAFE_ALL = new RegExp(UNSAFE_CHAR.source, 'g');
// Same, minus \n and \t, which are harmless and carry meaning in messages and CSV fields.
const UNSAFE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069]/;
const UNSAFE_MULTILINE_ALL = new RegExp(UNSAFE_MULTILINE.source, 'g');
const CONTROL_ALL = new RegExp(CONTROL_CHAR.source, 'g');
const JSON_UNSAFE_ALL = new RegExp(JSON_UNSAFE_CHAR.source, 'g');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\uXXXX`: the JSON (and JavaScript) escape of one UTF-16 unit. */
function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * C0 controls read as `\x1b` (what terminals and shells show); DEL, C1 and bidi as `\u009b`, which is also a valid
 * JSON escape: JSON text (where C0 is always escaped already) stays valid and exact when neutralised, so a command
 * that prints a JSON line through a text path (`watch`, `webhook listen`) never produces a line `jq` rejects.
 */
function escapeCodePoint(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : jsonEscape(char);
}

/** One-line inert text: every control (including \n and \t), DEL, C1 and bidi control becomes a visible escape. */
export function neutralise(text: string): string {
  // The test is a fast path: almost every string is clean and is returned without allocating.
  return UNSAFE_CHAR.test(text) ? text.replace(UNSAFE_ALL, escapeCodePoint) : text;
}

/** Like `neutralise`, but keeps \n and \t (messages, CSV fields); CRLF becomes LF, a lone \r is escaped. */
export function neutraliseMultiline(text: string): string {
  if (!UNSAFE_MULTILINE.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_MULTILINE_ALL, escapeCodePoint);
}

/** JSON text made inert without changing its meaning: DEL, C1 and bidi controls (only ever inside strings) escaped. */
export function neutraliseJson(text: string): string {
  return JSON_UNSAFE_CHAR.test(text) ? text.replace(JSON_UNSAFE_ALL, jsonEscape) : text;
}

/** Removes C0, DEL and C1 controls (for text that must not carry them at all, e.g. completion descriptions). */
export function stripControls(text: string): string {
  return CONTROL_CHAR.test(text) ? text.replace(CONTROL_ALL, '') : text;
}

/** True when `neutralise` would change the text. */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE_CHAR.test(text);
}

/** A short, quoted, terminal-safe rendering of user text for messages (`"http://a.com"`, cut at `max` with `…`). */
export function quoteForMessage(text: string, max = 60): string {
  // JSON escaping turns C0 controls into \uXXXX; DEL, C1, separators and bidi controls are escaped after it.
  return neutraliseJson(JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text));
}

/** The names people know of the characters a message names most: controls, the space, the separators. */
const CHAR_NAMES: Readonly<Record<number, string>> = {
  0x00: 'NUL',
  0x09: 'tab',
  0x0a: 'line feed',
  0x0d: 'carriage return',
  0x1b: 'escape',
  0x20: 'space',
  0x7f: 'delete',
  0x85: 'next line',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
};

/**
 * How every message names one character (JSON, CSV, an item, the config file): printable ASCII quoted (`'}'`), any
 * other by its code point and its name when it has one (`U+0009 (tab)`, `U+00E9`), never printed raw.
 */
export function charWords(code: number): string {
  if (code > 0x20 && code < 0x7f) return `'${String.fromCharCode(code)}'`;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CHAR_NAMES[code];
  return name === undefined ? hex : `${hex} (${name})`;
}
