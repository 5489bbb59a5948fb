import { charWords } from './sanitize.js';

// Containers on the scanner's stack.
const ARRAY = 0;
const OBJECT = 1;

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'after-value';

/**
 * Offset of the first character that makes `text` invalid JSON (`text.length` when it ends too early), or -1 when it
 * is valid. Only called after `JSON.parse` has failed: V8's messages do not always carry a position, and users need
 * a line.
 * Iterative, so deep nesting cannot overflow the stack.
 */
export function locateJsonError(text: string): number {
  const n = text.length;
  const stack: number[] = [];
  let expect: Expect = 'value';
  let i = 0;
  for (;;) {
    i = skipSpace(text, i);
    if (i >= n) return expect === 'after-value' && stack.length === 0 ? -1 : n;
    const c = text.charCodeAt(i);
    switch (expect) {
      case 'value':
      case 'value-or-close': {
        if (c === 0x5d /* ] */ && expect === 'value-or-close') {
          stack.pop();
          i++;
          expect = 'after-value';
        } else if (c === 0x5b /* [ */) {
          stack.push(ARRAY);
          i++;
          expect = 'value-or-close';
        } else if (c === 0x7b /* { */) {
          stack.push(OBJECT);
          i++;
          expect = 'key-or-close';
        } else {
          const end = scanScalar(text, i);
          if (end < 0) return -end - 1;
          i = end;
          expect = 'after-value';
        }
        break;
      }
      case 'key':
      case 'key-or-close': {
        if (c === 0x7d /* } */ && expect === 'key-or-close') {
          stack.pop();
          i++;
          expect = 'after-value';
          break;
        }
        if (c !== 0x22) return i;
        const end = scanString(text, i);
        if (end < 0) return -end - 1;
        i = skipSpace(text, end);
        if (i >= n) return n;
        if (text.charCodeAt(i) !== 0x3a /* : */) return i;
        i++;
        expect = 'value';
        break;
      }
      case 'after-value': {
        const top = stack[stack.length - 1];
        if (top === undefined) return i; // trailing text after the top-level value
        if (c === 0x2c /* , */) {
          i++;
          expect = top === ARRAY ? 'value' : 'key';
        } else if ((c === 0x5d && top === ARRAY) || (c === 0x7d && top === OBJECT)) {
          stack.pop();
          i++;
        } else {
          return i;
        }
        break;
      }
    }
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

// Scanners return the index just past the token, or -(errorOffset + 1).

function scanScalar(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return scanString(text, i);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return scanNumber(text, i);
  for (const word of ['true', 'false', 'null']) {
    if (text.startsWith(word, i)) return i + word.length;
  }
  return -(i + 1);
}

function scanString(text: string, i: number): number {
  const n = text.length;
  i++; // opening quote
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -(i + 1);
    if (c === 0x5c /* \ */) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return -(i + 1);
        i += 6;
      } else if (i + 1 < n && '"\\/bfnrt'.includes(text.charAt(i + 1))) {
        i += 2;
      } else {
        return -(i + 1);
      }
      continue;
    }
    i++;
  }
  return -(n + 1);
}

function scanNumber(text: string, i: number): number {
  const match = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  match.lastIndex = i;
  const found = match.exec(text);
  if (!found) return -(i + 1);
  return i + found[0].length;
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
