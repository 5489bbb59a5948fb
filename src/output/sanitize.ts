/**
 * Server text is printed inert: a task name or error message must not be able to move the cursor, recolour the
 * terminal, set the window title or reorder what the reader sees (DESIGN.md 3). Each dangerous code point becomes a
 * visible escape (`\x1b`, `\u202e`) so the reader can still tell something odd was there.
 */

// C0 controls, DEL, C1 controls (U+009B is an 8-bit CSI on some terminals), bidi embeddings/overrides and isolates.
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// Same, minus \n and \t, which are harmless and carry meaning in messages and CSV fields.
const UNSAFE_MULTILINE_TEST = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_MULTILINE_ALL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCodePoint(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One-line inert text: every control (including \n and \t), DEL, C1 and bidi control becomes a visible escape. */
export function neutralise(text: string): string {
  // The test is a fast path: almost every string is clean and is returned without allocating.
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE_ALL, escapeCodePoint) : text;
}

/** Like `neutralise`, but keeps \n and \t (messages, CSV fields); CRLF becomes LF, a lone \r is escaped. */
export function neutraliseMultiline(text: string): string {
  if (!UNSAFE_MULTILINE_TEST.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_MULTILINE_ALL, escapeCodePoint);
}

/** True when `neutralise` would change the text. */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE_TEST.test(text);
}
