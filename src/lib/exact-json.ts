/**
 * JSON read keeping integers written beyond 2^53, which a double would round (9007199254740993 reads as ...992): those
 * keep their digits (ExactInteger), for `diff` to compare (docs/behaviour.md#diff-values) and for every output format
 * to print as the service or the file wrote them. A cheap test finds the texts that may hold one (a number of 16
 * digits outside strings); every other text is JSON.parse's. The few that may are read by a small parser here, a loop
 * over a stack (any depth, as JSON.parse takes).
 */

/**
 * An integer written beyond 2^53, kept by its digits. The encoders of output/encode.ts write the digits
 * (`stringifyStrict` tells them where one is); any other JSON.stringify (a journal line, a cache) writes the double it
 * rounds to, as JSON.parse would have read it.
 */
export class ExactInteger {
  constructor(readonly digits: string) {}

  toJSON(): number {
    if (strict) throw new ExactIntegerSeen();
    return Number(this.digits);
  }
}

/** Thrown by `stringifyStrict` at the first ExactInteger: JSON.stringify cannot write digits unquoted. */
export class ExactIntegerSeen extends Error {}

let strict = false;

/** JSON.stringify, except that it throws ExactIntegerSeen at an ExactInteger instead of writing a rounded double. */
export function stringifyStrict(value: unknown, indent?: string): string | undefined {
  strict = true;
  try {
    return JSON.stringify(value, null, indent);
  } finally {
    strict = false;
  }
}

const LONG_DIGITS = /\d{16}/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** JSON.parse, keeping integers beyond 2^53 as ExactInteger. Throws SyntaxError as JSON.parse does. */
export function parseJsonExact(text: string): unknown {
  return LONG_DIGITS.test(text) && holdsLongNumber(text) ? parseSlow(text) : (JSON.parse(text) as unknown);
}

/** A run of 16 digits outside strings (digits inside them, a page id in a result say, are text). Linear. */
function holdsLongNumber(text: string): boolean {
  let inString = false;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++run >= 16) return true;
    } else {
      run = 0;
      if (c === 0x22) inString = true;
    }
  }
  return false;
}

interface Open {
  /** The array being filled, or the object and the key its next value goes under. */
  list?: unknown[];
  record?: Record<string, unknown>;
  key?: string | undefined;
  /** Fields set so far (an object). */
  fields: number;
}

function fail(at: number): never {
  throw new SyntaxError(`Unexpected token in JSON at position ${at}`);
}

function setKey(record: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` is an own field in JSON.parse's result too, never the prototype.
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

function numberAt(text: string, at: number): { value: unknown; end: number } {
  NUMBER.lastIndex = at;
  const match = NUMBER.exec(text);
  if (match === null) fail(at);
  const token = match[0];
  const value = Number(token);
  const integer = !/[.eE]/.test(token);
  return { value: integer && !Number.isSafeInteger(value) ? new ExactInteger(token) : value, end: at + token.length };
}

function stringAt(text: string, at: number): { value: string; end: number } {
  let quote = text.indexOf('"', at + 1);
  for (;;) {
    if (quote === -1) fail(at);
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) break; // not escaped
    quote = text.indexOf('"', quote + 1);
  }
  return { value: JSON.parse(text.slice(at, quote + 1)) as string, end: quote + 1 };
}

/** One scalar at `at` (or an opening bracket, returned as a new container). */
function valueAt(text: string, at: number): { value: unknown; end: number; opened?: Open } {
  const c = text[at];
  if (c === '{') return { value: undefined, end: at + 1, opened: { record: {}, fields: 0 } };
  if (c === '[') return { value: undefined, end: at + 1, opened: { list: [], fields: 0 } };
  if (c === '"') return stringAt(text, at);
  if (c === 't' && text.startsWith('true', at)) return { value: true, end: at + 4 };
  if (c === 'f' && text.startsWith('false', at)) return { value: false, end: at + 5 };
  if (c === 'n' && text.startsWith('null', at)) return { value: null, end: at + 4 };
  return numberAt(text, at);
}

function skip(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  return i;
}

/** The parser for texts that may hold a long integer: iterative, strict JSON, the same result as JSON.parse. */
function parseSlow(text: string): unknown {
  const stack: Open[] = [];
  let at = skip(text, 0);
  let root: unknown;
  let done = false;
  // Each turn reads one value (or a container's close), then the separator after it.
  for (;;) {
    const top = stack[stack.length - 1];
    let value: unknown;
    let complete = false;
    if (top?.record !== undefined && top.key === undefined) {
      if (text[at] === '}' && top.fields === 0) {
        at++;
        value = stack.pop()?.record;
        complete = true;
      } else {
        if (text[at] !== '"') fail(at);
        const key = stringAt(text, at);
        at = skip(text, key.end);
        if (text[at] !== ':') fail(at);
        at = skip(text, at + 1);
        top.key = key.value;
        continue;
      }
    } else if (top?.list?.length === 0 && text[at] === ']') {
      at++;
      value = stack.pop()?.list;
      complete = true;
    } else {
      const read = valueAt(text, at);
      at = skip(text, read.end);
      if (read.opened !== undefined) {
        stack.push(read.opened);
        continue;
      }
      value = read.value;
      complete = true;
    }
    // A value is complete: put it in its container, then close every container that ends here.
    while (complete) {
      at = skip(text, at);
      const parent = stack[stack.length - 1];
      if (parent === undefined) {
        root = value;
        done = true;
        break;
      }
      if (parent.list !== undefined) parent.list.push(value);
      else if (parent.record !== undefined) {
        setKey(parent.record, parent.key ?? '', value);
        parent.key = undefined;
        parent.fields++;
      }
      const close = parent.list !== undefined ? ']' : '}';
      if (text[at] === ',') {
        at = skip(text, at + 1);
        complete = false;
      } else if (text[at] === close) {
        at++;
        stack.pop();
        value = parent.list ?? parent.record;
      } else fail(at);
    }
    if (done) break;
  }
  if (skip(text, at) !== text.length) fail(at);
  return root;
}
