/**
 * JSON text walked token by token, without JSON.parse: the one scanner of taskctl's JSON readers that need more than
 * JSON.parse gives, where a text stops being JSON (lib/json-locate.ts) and what a value was written as
 * (lib/json-text.ts). Strict: a text is read to its end exactly when JSON.parse accepts it, and the first character
 * it refuses is the one named. Iterative: open containers are an explicit stack, so nesting of any depth is read
 * without recursion (the stack holds one number per level).
 */

/**
 * What `next()` read: `open` (`{` or `[`), `close` (`}` or `]`), `key` (an object's key with its `:`; the token is the
 * key's string), `scalar` (a string, number, `true`, `false` or `null`), `end` (the text was one JSON value) or `error`
 * (the text is not JSON: `start` is the first offending character, `text.length` when it ends too early).
 */
export type JsonToken = 'open' | 'close' | 'key' | 'scalar' | 'end' | 'error';

// What may come next.
const VALUE = 0;
const VALUE_OR_CLOSE = 1;
const KEY = 2;
const KEY_OR_CLOSE = 3;
const AFTER_VALUE = 4;

// Open containers.
const ARRAY = 0;
const OBJECT = 1;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** The tokens of a JSON text in order; `start` and `end` are where the last one read starts and ends. */
export class JsonTokens {
  start = 0;
  end = 0;
  private at: number;
  private expect = VALUE;
  private readonly open: number[] = [];
  /** The last token once the text is read to its end or refused: every later `next()` returns it again. */
  private finished: 'end' | 'error' | undefined;

  constructor(private readonly text: string) {
    this.at = skipSpace(text, 0);
  }

  /** The containers open after the last token (0 at the top level). */
  get depth(): number {
    return this.open.length;
  }

  next(): JsonToken {
    const text = this.text;
    if (this.finished !== undefined) return this.finished;
    for (;;) {
      const i = this.at;
      if (i >= text.length) {
        if (this.expect !== AFTER_VALUE || this.open.length > 0) return this.fail(text.length);
        this.start = this.end = text.length;
        return (this.finished = 'end');
      }
      const c = text.charCodeAt(i);
      switch (this.expect) {
        case VALUE:
        case VALUE_OR_CLOSE:
          if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
            this.open.push(c === 0x5b ? ARRAY : OBJECT);
            this.expect = c === 0x5b ? VALUE_OR_CLOSE : KEY_OR_CLOSE;
            return this.token('open', i, i + 1);
          }
          if (c === 0x5d /* ] */ && this.expect === VALUE_OR_CLOSE) return this.close(i);
          return this.scalar(i, c);
        case KEY:
        case KEY_OR_CLOSE: {
          if (c === 0x7d /* } */ && this.expect === KEY_OR_CLOSE) return this.close(i);
          if (c !== 0x22 /* " */) return this.fail(i);
          const end = stringEnd(text, i);
          if (end < 0) return this.fail(~end);
          const colon = skipSpace(text, end);
          if (colon >= text.length) return this.fail(text.length);
          if (text.charCodeAt(colon) !== 0x3a /* : */) return this.fail(colon);
          this.expect = VALUE;
          this.start = i;
          this.end = end;
          this.at = skipSpace(text, colon + 1);
          return 'key';
        }
        default: {
          const top = this.open[this.open.length - 1];
          if (top === undefined) return this.fail(i); // text after the top-level value
          if (c === 0x2c /* , */) {
            this.expect = top === ARRAY ? VALUE : KEY;
            this.at = skipSpace(text, i + 1);
            continue;
          }
          if ((c === 0x5d && top === ARRAY) || (c === 0x7d && top === OBJECT)) return this.close(i);
          return this.fail(i);
        }
      }
    }
  }

  private scalar(i: number, c: number): JsonToken {
    const text = this.text;
    let end: number;
    if (c === 0x22) {
      end = stringEnd(text, i);
      if (end < 0) return this.fail(~end);
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return this.fail(i);
      end = NUMBER.lastIndex;
    } else if (c === 0x74 /* t */ && text.startsWith('true', i)) end = i + 4;
    else if (c === 0x66 /* f */ && text.startsWith('false', i)) end = i + 5;
    else if (c === 0x6e /* n */ && text.startsWith('null', i)) end = i + 4;
    else return this.fail(i);
    this.expect = AFTER_VALUE;
    return this.token('scalar', i, end);
  }

  private close(i: number): JsonToken {
    this.open.pop();
    this.expect = AFTER_VALUE;
    return this.token('close', i, i + 1);
  }

  private token(token: JsonToken, start: number, end: number): JsonToken {
    this.start = start;
    this.end = end;
    this.at = skipSpace(this.text, end);
    return token;
  }

  private fail(at: number): JsonToken {
    this.start = this.end = at;
    return (this.finished = 'error');
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/**
 * Just past the string whose opening quote is at `i`; when it is not valid JSON, `~offset` (negative) of the first
 * character refused: a control character, the backslash of a bad escape, or `text.length` when it does not end.
 */
export function stringEnd(text: string, i: number): number {
  const n = text.length;
  for (let at = i + 1; at < n; at++) {
    const c = text.charCodeAt(at);
    if (c > 0x5c) continue; // past the backslash: lower case letters and most of what a string holds
    if (c === 0x22) return at + 1;
    if (c < 0x20) return ~at;
    if (c === 0x5c /* \ */) {
      const last = escapeLast(text, at);
      if (last < 0) return last;
      at = last;
    }
  }
  return ~n;
}

/** The last character of the escape whose backslash is at `at`, or `~at` when it is not one JSON has. */
function escapeLast(text: string, at: number): number {
  switch (text.charCodeAt(at + 1)) {
    case 0x22:
    case 0x5c:
    case 0x2f /* / */:
    case 0x62 /* b */:
    case 0x66 /* f */:
    case 0x6e /* n */:
    case 0x72 /* r */:
    case 0x74 /* t */:
      return at + 1;
    case 0x75 /* u */:
      return isHex(text, at + 2) && isHex(text, at + 3) && isHex(text, at + 4) && isHex(text, at + 5) ? at + 5 : ~at;
    default:
      return ~at;
  }
}

function isHex(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  const lower = c | 0x20;
  return (c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x66);
}
