/**
 * JSON read as text, token by token, without JSON.parse: what a value was written as (a number beyond 2^53, which a
 * double would round, keeps its digits), and a body made one line without rewriting any value. Iterative: any depth.
 */

// Open containers.
const ARRAY = 0;
const OBJECT = 1;

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'after-value';

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** Just past the string token at `i` (its opening quote), or -1 when it does not end. */
function stringEnd(text: string, i: number): number {
  for (let at = i + 1; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === 0x5c /* \ */) at++;
    else if (c === 0x22) return at + 1;
  }
  return -1;
}

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** Just past the scalar token at `i`, or -1 when there is none. */
function scalarEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x22) return stringEnd(text, i);
  SCALAR.lastIndex = i;
  return SCALAR.exec(text) === null ? -1 : SCALAR.lastIndex;
}

/**
 * The text of the scalar at `path` (keys of nested objects from the top), exactly as written (`1152921504606846977`,
 * `"done"`); undefined when there is none there, it is an object or array, or the text is not JSON. Repeated keys
 * read as JSON.parse reads them: the last one wins.
 */
export function scalarTextAt(text: string, path: readonly string[]): string | undefined {
  const kinds: number[] = [];
  // The key of each open object's current value; null in an array (no path goes through one).
  const keys: Array<string | null> = [];
  let found: string | undefined;
  let expect: Expect = 'value';
  let i = skipSpace(text, 0);
  const onPath = (): 'prefix' | 'at' | undefined => {
    if (keys.length > path.length) return undefined;
    for (let k = 0; k < keys.length; k++) if (keys[k] !== path[k]) return undefined;
    return keys.length === path.length ? 'at' : 'prefix';
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (expect === 'key' || expect === 'key-or-close') {
      if (c === 0x7d /* } */ && expect === 'key-or-close') {
        kinds.pop();
        keys.pop();
        expect = 'after-value';
        i = skipSpace(text, i + 1);
        continue;
      }
      const end = c === 0x22 ? stringEnd(text, i) : -1;
      if (end < 0) return undefined;
      let key: string;
      try {
        key = JSON.parse(text.slice(i, end)) as string;
      } catch {
        return undefined;
      }
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== 0x3a /* : */) return undefined;
      keys[keys.length - 1] = key;
      expect = 'value';
      i = skipSpace(text, i + 1);
      continue;
    }
    if (expect === 'after-value') {
      const top = kinds[kinds.length - 1];
      if (top === undefined) break;
      if (c === 0x2c /* , */) expect = top === ARRAY ? 'value' : 'key';
      else if ((c === 0x5d && top === ARRAY) || (c === 0x7d && top === OBJECT)) {
        kinds.pop();
        keys.pop();
      } else return undefined;
      i = skipSpace(text, i + 1);
      continue;
    }
    // A value starts here.
    if (c === 0x5d /* ] */ && expect === 'value-or-close') {
      kinds.pop();
      keys.pop();
      expect = 'after-value';
      i = skipSpace(text, i + 1);
      continue;
    }
    const place = onPath();
    // A later value on the way to `path` replaces what an earlier one held there (the last repeated key wins).
    if (place !== undefined) found = undefined;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      kinds.push(c === 0x7b ? OBJECT : ARRAY);
      keys.push(null);
      expect = c === 0x7b ? 'key-or-close' : 'value-or-close';
      i = skipSpace(text, i + 1);
      continue;
    }
    const end = scalarEnd(text, i);
    if (end < 0) return undefined;
    if (place === 'at') found = text.slice(i, end);
    expect = 'after-value';
    i = skipSpace(text, end);
  }
  return kinds.length === 0 && expect === 'after-value' ? found : undefined;
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
