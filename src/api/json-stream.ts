/**
 * A large JSON answer parsed as it streams in, within bounded copies: the text of the whole body is never
 * held. A linear scanner follows strings and nesting chunk by chunk; each element of an array opened at the top levels
 * (a list's tasks, a task's items) is cut out as its own small text and parsed with JSON.parse (lib/exact-json.ts: an
 * integer past 2^53 keeps its digits) as soon as it is complete, and the rest (the envelope with a marker where each such array was) is parsed at the end. Peak memory is
 * the parsed value plus one element's text, not the body's text next to everything parsed from it.
 *
 * Nesting deeper than MAX_JSON_DEPTH, or more objects and arrays than MAX_JSON_CONTAINERS, is refused while scanning, so
 * no JSON.parse below ever recurses that deep or fills memory with millions of `{}`; the reader stops reading there.
 * No dependency: a general streaming parser would be slower in JavaScript than V8's JSON.parse on each element.
 */
import { randomBytes } from 'node:crypto';
import { ExactInteger, parseJsonExact } from '../lib/exact-json.js';
import { MAX_JSON_CONTAINERS, MAX_JSON_DEPTH } from './constants.js';
import type { JsonRefusal, ParsedJson } from './response-json.js';

const OBJECT = 0;
const ARRAY = 1;
const SPLIT = 2;

/** Elements of a split array are parsed in batches of about this many characters (one JSON.parse each). */
const BATCH_CHARS = 256 * 1024;

/** Arrays opened at this nesting depth or above (1 = inside the top-level value) have their elements parsed one by one. */
const SPLIT_DEPTH = 2;

export interface StreamedJson {
  /** Feeds the next piece of text (any split, even inside a string or an escape). */
  push: (text: string) => void;
  /** Why the text is already refused (too deep, too large, invalid): the rest of the body need not be read. */
  refused: () => JsonRefusal | undefined;
  /** The body is complete: the parsed value, or why it is not one. */
  end: () => ParsedJson & { truncated?: boolean };
}

/** `batchChars`: the batch size (tests make it tiny to cut between every element); `containerLimit`: MAX_JSON_CONTAINERS. */
export function streamJson(batchChars = BATCH_CHARS, containerLimit = MAX_JSON_CONTAINERS): StreamedJson {
  // The envelope with markers in place of split arrays: `{"<nonce>":3}` cannot come from a server that does not know
  // the nonce, so a marker found in the envelope is always ours.
  const nonce = randomBytes(9).toString('base64url');
  const arrays: unknown[][] = [];
  const envelope: string[] = [];
  /** Open containers: OBJECT, ARRAY, or SPLIT (an array whose elements are parsed in batches). */
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  /** Why the text is refused, once it is: the rest is not scanned. */
  let refusal: JsonRefusal | undefined;
  let containers = 0;
  let sawValue = false;
  /** Inside a split array: the raw text of its elements since the last batch (commas between them included). */
  let batch: string[] = [];
  let batchLength = 0;
  /** The current split array's index in `arrays` (-1 outside one), and the depth its elements live at. */
  let splitIndex = -1;
  let elementDepth = -1;
  /** A batch was cut at a comma: an element must follow before `]`. */
  let cutAtComma = false;

  /** Parses the batch's elements (`a,b,c`) in one JSON.parse and appends them to the split array. */
  const flush = (closing: boolean) => {
    const source = batch.join('');
    batch = [];
    batchLength = 0;
    if (source.trim() === '') {
      // `[]` is fine; `[1,` + `]` (a trailing comma at a cut) is not.
      if (closing && cutAtComma) refusal = 'invalid';
      return;
    }
    try {
      const values = parseJsonExact(`[${source}]`) as unknown[];
      const target = arrays[splitIndex];
      if (target) for (const value of values) target.push(value);
    } catch {
      refusal = 'invalid';
    }
  };

  function push(text: string): void {
    if (refusal !== undefined) return;
    // Where this chunk's text for the envelope (outside split arrays) or the batch (inside one) starts.
    let from = 0;
    let nextSlash = text.indexOf('\\');
    for (let i = 0; i < text.length; i++) {
      if (inString) {
        // Jump to the next quote; a quote after an odd run of backslashes is escaped.
        if (escaped) {
          escaped = false;
          continue;
        }
        const quote = text.indexOf('"', i);
        // The next backslash, looked up again only once passed: searching afresh in every string is quadratic.
        if (nextSlash !== -1 && nextSlash < i) nextSlash = text.indexOf('\\', i);
        const slash = nextSlash;
        if (slash !== -1 && (quote === -1 || slash < quote)) {
          i = slash;
          escaped = true;
          continue;
        }
        if (quote === -1) break;
        i = quote;
        inString = false;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      sawValue = true;
      const depth = stack.length;
      if (c === 0x22 /* " */) inString = true;
      else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (depth + 1 > MAX_JSON_DEPTH || ++containers > containerLimit) {
          refusal = depth + 1 > MAX_JSON_DEPTH ? 'too deep' : 'too large';
          return;
        }
        const split = c === 0x5b && splitIndex < 0 && depth >= 1 && depth <= SPLIT_DEPTH;
        stack.push(split ? SPLIT : c === 0x5b ? ARRAY : OBJECT);
        if (split) {
          // The array becomes a marker in the envelope; its elements go to `arrays`, batch by batch.
          envelope.push(text.slice(from, i), `{"${nonce}":${arrays.length}}`);
          from = i + 1;
          splitIndex = arrays.length;
          arrays.push([]);
          elementDepth = depth + 1;
          cutAtComma = false;
        }
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        const open = stack.pop();
        // A closing bracket must match what it closes: `[1,2}` is not JSON.
        if (open === undefined || (c === 0x7d) !== (open === OBJECT)) {
          refusal = 'invalid';
          return;
        }
        if (open === SPLIT) {
          batch.push(text.slice(from, i));
          flush(true);
          from = i + 1;
          splitIndex = -1;
          elementDepth = -1;
        }
      } else if (c === 0x2c /* , */ && splitIndex >= 0 && depth === elementDepth) {
        // Between two elements: parse what has gathered once it is worth a JSON.parse.
        if (batchLength + (i - from) >= batchChars) {
          batch.push(text.slice(from, i));
          flush(false);
          from = i + 1;
          cutAtComma = true;
        }
      }
    }
    const rest = text.slice(from);
    if (splitIndex >= 0) {
      batch.push(rest);
      batchLength += rest.length;
    } else envelope.push(rest);
  }

  function end(): ParsedJson & { truncated?: boolean } {
    if (refusal === 'too deep' || refusal === 'too large') return { ok: false, why: refusal };
    if (!sawValue) return { ok: false, why: 'empty' };
    if (refusal !== undefined) return { ok: false, why: 'invalid' };
    if (inString || stack.length > 0) return { ok: false, why: 'invalid', truncated: true };
    let value: unknown;
    try {
      value = parseJsonExact(envelope.join(''));
    } catch {
      return { ok: false, why: 'invalid' };
    }
    return { ok: true, value: restore(value, nonce, arrays) };
  }

  return { push, refused: () => refusal, end };
}

/** Puts the split arrays back where their markers are (only in the top levels, where they were cut out). */
function restore(value: unknown, nonce: string, arrays: unknown[][], level = 0): unknown {
  if (typeof value !== 'object' || value === null || value instanceof ExactInteger || level > SPLIT_DEPTH) return value;
  if (Array.isArray(value)) {
    const list = value as unknown[];
    for (let i = 0; i < list.length; i++) list[i] = restore(list[i], nonce, arrays, level + 1);
    return list;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === nonce) return arrays[record[nonce] as number] ?? [];
  for (const key of keys) record[key] = restore(record[key], nonce, arrays, level + 1);
  return record;
}
