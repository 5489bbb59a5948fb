import { JsonTokens } from './json-tokens.js';
import { charWords } from './sanitize.js';

/**
 * Offset of the first character that makes `text` invalid JSON (`text.length` when it ends too early), or -1 when it
 * is valid. Only called after `JSON.parse` has failed: V8's messages do not always carry a position, and users need
 * a line. Iterative (lib/json-tokens.ts), so deep nesting cannot overflow the stack.
 */
export function locateJsonError(text: string): number {
  const tokens = new JsonTokens(text);
  for (;;) {
    const token = tokens.next();
    if (token === 'end') return -1;
    if (token === 'error') return tokens.start;
  }
}

/** A text that ends before its JSON does, as every reader of JSON says it. */
export const JSON_ENDS_EARLY = 'it ends before the JSON is complete';

/**
 * What is wrong with `text`, which JSON.parse refused, in words for a person instead of V8's message (which may quote
 * the input): `unexpected '}' at line 3, column 5` (`at character 12` in a text of one line), `it ends before the
 * JSON is complete`, or, for a text that is valid but could not be read, that it is nested too deeply.
 */
export function jsonSyntaxWords(text: string): string {
  const { at, words } = jsonFault(text);
  return at >= 0 && at < text.length ? `${words} at ${positionWords(text, at)}` : words;
}

/**
 * What is wrong and where, for a caller that says the place its own way (an items file's `name:line:column`):
 * `at` is the offset (`text.length` when it ends too early; -1 when the text is valid JSON but could not be read).
 */
export function jsonFault(text: string): { at: number; words: string } {
  const at = locateJsonError(text);
  if (at < 0) return { at, words: 'it is nested too deeply or too large to read' };
  if (at >= text.length) return { at, words: text.trim() === '' ? 'it is empty' : JSON_ENDS_EARLY };
  return { at, words: `unexpected ${charWords(text.charCodeAt(at))}` };
}

/** `character 12`, or `line 3, column 5` when the text has more than one line (both count from 1). */
function positionWords(text: string, at: number): string {
  if (!text.includes('\n')) return `character ${at + 1}`;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return `line ${line}, column ${at - lineStart + 1}`;
}
