/**
 * JSON read as text, token by token (lib/json-tokens.ts), without JSON.parse: what a value was written as (a number
 * beyond 2^53, which a double would round, keeps its digits), and a body made one line without rewriting any value.
 * Iterative: any depth.
 */
import { JsonTokens, stringEnd } from './json-tokens.js';

/**
 * The text of the scalar at `path` (keys of nested objects from the top), exactly as written (`1152921504606846977`,
 * `"done"`); undefined when there is none there, it is an object or array, or the text is not JSON. Repeated keys
 * read as JSON.parse reads them: the last one wins.
 */
export function scalarTextAt(text: string, path: readonly string[]): string | undefined {
  const tokens = new JsonTokens(text);
  // How many open containers, from the top, are objects whose current key is the path's key at their level.
  let matched = 0;
  let found: string | undefined;
  for (;;) {
    const token = tokens.next();
    if (token === 'end') return found;
    if (token === 'error') return undefined;
    if (token === 'close') matched = Math.min(matched, tokens.depth);
    else if (token === 'key') {
      const level = tokens.depth - 1;
      if (matched >= level && level < path.length)
        matched = keyOf(text, tokens.start, tokens.end) === path[level] ? level + 1 : level;
    } else {
      // A value starts at `level`: on the way to `path`, it replaces what an earlier one held there (the last
      // repeated key wins).
      const level = token === 'open' ? tokens.depth - 1 : tokens.depth;
      if (matched === level && level <= path.length)
        found = token === 'scalar' && level === path.length ? text.slice(tokens.start, tokens.end) : undefined;
    }
  }
}

/** The key written from `start` to `end` (its quotes included), escapes read. */
function keyOf(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/** `text` (JSON) without the white space between its tokens: one line, every value written as it came. */
export function compactJsonText(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      i = end - 1;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}
