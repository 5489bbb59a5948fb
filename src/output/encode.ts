/** Turning values into the text of one cell / field / JSON document, per format. Pure functions, no I/O. */
import { ExactInteger, ExactIntegerSeen, stringifyStrict } from '../lib/exact-json.js';
import { neutralise, neutraliseJson, neutraliseMultiline } from '../lib/sanitize.js';
import { withWireId } from '../lib/wire-id.js';

export type CellValue = string | number | boolean | null | undefined;
export type TextFilter = (text: string) => string;

/** The plain text of a value; null and undefined are empty (machine formats) — human formats substitute their own. */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

/** A TSV field: one line, no tabs, so `cut -f` and `while read` always see the right columns. */
export function tsvField(text: string): string {
  return neutralise(text.replace(/[\t\r\n]/g, ' '));
}

const CSV_NEEDS_QUOTES = /[",\r\n]/;

/** An RFC 4180 field: quoted when it holds a comma, quote or line break; quotes doubled. Newlines are kept. */
export function csvField(text: string): string {
  const safe = neutraliseMultiline(text);
  return CSV_NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record, LF-terminated (every RFC 4180 reader accepts LF, and it suits `wc -l`, `grep`, `cut`). */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}

export function tsvRecord(fields: readonly string[]): string {
  return `${fields.map(tsvField).join('\t')}\n`;
}

/** `Created At` → `created_at`, `createdAt` → `created_at`, `ID` → `id`: the default CSV header for a column. */
export function toSnakeKey(header: string): string {
  return header
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

type Frame =
  | { list: readonly unknown[]; at: number; pad: string; open: number }
  | { record: Record<string, unknown>; keys: string[]; at: number; pad: string; open: number };

/** What JSON.stringify would write for a value that is not a container, or undefined where it leaves it out. */
function leafText(value: unknown): string | undefined {
  if (value instanceof ExactInteger) return value.digits;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  return JSON.stringify(value);
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !(value instanceof ExactInteger);
}

/** A value as JSON.stringify sees it: `toJSON()` applied (a Date, a wire id). */
function jsonView(value: unknown, key: string): unknown {
  if (!isContainer(value)) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(value, key) : value;
}

/**
 * JSON text of any depth, without recursion (a loop over a stack of open containers): what JSON.stringify writes,
 * with ExactInteger as its digits, `indent` per level when given, and object keys sorted when `sortKeys` (the
 * canonical form `diff` compares). Undefined for a value JSON leaves out (undefined, a function).
 */
export function encodeJson(value: unknown, options: { indent?: string; sortKeys?: boolean } = {}): string | undefined {
  const indent = options.indent ?? '';
  const colon = indent === '' ? ':' : ': ';
  const top = jsonView(value, '');
  if (!isContainer(top)) return leafText(top);
  const parts: string[] = [];
  const stack: Frame[] = [];
  const push = (container: object, pad: string): void => {
    if (Array.isArray(container)) {
      parts.push('[');
      stack.push({ list: container, at: 0, pad, open: 0 });
      return;
    }
    const record = container as Record<string, unknown>;
    const keys = Object.keys(record);
    if (options.sortKeys === true) keys.sort();
    parts.push('{');
    stack.push({ record, keys, at: 0, pad, open: 0 });
  };
  push(top, '');
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    const inner = indent === '' ? '' : `\n${frame.pad}${indent}`;
    let child: unknown;
    let found = false;
    if ('list' in frame) {
      if (frame.at < frame.list.length) {
        const index = frame.at++;
        parts.push(index === 0 ? inner : `,${inner}`);
        child = jsonView(frame.list[index], String(index));
        found = true;
        if (!isContainer(child)) parts.push(leafText(child) ?? 'null');
      }
    } else {
      while (frame.at < frame.keys.length) {
        const key = frame.keys[frame.at++] ?? '';
        child = jsonView(frame.record[key], key);
        const text = isContainer(child) ? '' : leafText(child);
        if (text === undefined) continue;
        parts.push(`${frame.open++ === 0 ? inner : `,${inner}`}${JSON.stringify(key)}${colon}${text}`);
        found = true;
        break;
      }
    }
    if (!found) {
      stack.pop();
      const empty = 'list' in frame ? frame.list.length === 0 : frame.open === 0;
      const close = 'list' in frame ? ']' : '}';
      parts.push(empty || indent === '' ? close : `\n${frame.pad}${close}`);
    } else if (isContainer(child)) push(child, frame.pad + indent);
  }
  return parts.join('');
}

/**
 * JSON.stringify, for any depth and with ExactInteger kept: the native encoder first (fast), and `encodeJson` for a
 * value it cannot write: one holding an ExactInteger, or nested deeper than its recursion reaches.
 */
export function stringifyJson(value: unknown, indent?: string): string | undefined {
  try {
    return stringifyStrict(value, indent);
  } catch (error) {
    // A stack overflow is a RangeError; anything else (a BigInt, a cycle) is not JSON data and stays an error.
    if (!(error instanceof RangeError) && !(error instanceof ExactIntegerSeen)) throw error;
  }
  return encodeJson(value, indent === undefined ? {} : { indent });
}

/** Put where a value was cut short: deeper than a depth bound (`clipDepth`). */
const TRUNCATED = '…';

/**
 * Levels of nesting printed in JSON output. JSON.stringify recurses natively and overflows the stack a few thousand
 * levels down; real results are a handful deep, so anything past this is a hostile server's and is cut with a marker.
 */
export const MAX_JSON_DEPTH = 512;

/**
 * `value` with every array or object nested deeper than `limit` levels replaced by TRUNCATED. Returns the same
 * value (no copy) when nothing is that deep, so the common case costs one walk. Recursion is bounded by `limit`.
 */
function clipDepth(value: unknown, limit: number): unknown {
  if (!isContainer(value) || !deeperThan(value, limit)) return value;
  return clipFrom(value, limit);
}

/**
 * Whether an array or object lies `limit` or more levels below `value`: the common answer, no, without a copy or a
 * key list made (a record a line of ndjson is checked this way). Recursion is bounded by `limit`.
 */
function deeperThan(value: object, limit: number): boolean {
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const inner of value as unknown[]) if (isContainer(inner) && deeperThan(inner, limit - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const inner = record[key];
    if (isContainer(inner) && deeperThan(inner, limit - 1)) return true;
  }
  return false;
}

/** `clipDepth` for a value known to reach past `limit`. */
function clipFrom(value: unknown, limit: number): unknown {
  if (!isContainer(value)) return value;
  if (limit <= 0) return TRUNCATED;
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    let copy: unknown[] | undefined;
    list.forEach((inner, index) => {
      const clipped = clipFrom(inner, limit - 1);
      if (clipped === inner) return;
      copy ??= [...list];
      copy[index] = clipped;
    });
    return copy ?? list;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const inner = record[key];
    const clipped = clipFrom(inner, limit - 1);
    if (clipped === inner) continue;
    copy ??= { ...record };
    copy[key] = clipped;
  }
  return copy ?? value;
}

/** Compact JSON of a value for one cell, cut (with TRUNCATED) below `depth` levels. Not neutralised: cells are. */
export function cellJson(value: unknown, depth: number): string {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  return stringifyJson(clipDepth(value, depth)) ?? '';
}

/**
 * JSON text, pretty (2-space indent) or compact, with `filter` (redaction) applied and terminal controls escaped the
 * JSON way (`\u009b`), so it stays identical in meaning and always parses. Nesting past MAX_JSON_DEPTH is cut.
 */
export function jsonText(value: unknown, pretty: boolean, filter: TextFilter): string {
  const shown = Array.isArray(value) ? value.map(withWireId) : withWireId(value);
  const raw = stringifyJson(clipDepth(shown, MAX_JSON_DEPTH), pretty ? '  ' : undefined);
  return neutraliseJson(filter(raw ?? 'null'));
}

/** Indents every line after the first: used to stream a pretty JSON array element by element. */
function indentJson(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/** Levels of a JSON document written piece by piece (a list, a task, its items); deeper values are one piece each. */
const STREAMED_LEVELS = 3;
/**
 * ...unless a value holds more than this many elements and fields, all levels below it counted: one item's result
 * holding two million `{}` is otherwise one string of 40 MB, copied again by indenting, redaction and neutralising.
 */
const STREAMED_SIZE = 1024;

/** Whether `value` holds more than `limit` elements and fields at any depth, counting no further than that. */
function holdsMoreThan(value: object, limit: number): boolean {
  let count = 0;
  const open: object[] = [value];
  for (let next = open.pop(); next !== undefined; next = open.pop()) {
    const inner: unknown[] = Array.isArray(next) ? next : Object.values(next);
    count += inner.length;
    if (count > limit) return true;
    for (const child of inner) if (isContainer(child)) open.push(child);
  }
  return false;
}

/**
 * Arrays, and objects holding an array (a task and its items), are written element by element in the top levels;
 * at any level, values larger than STREAMED_SIZE. The rest is written whole.
 */
function worthStreaming(value: unknown, level: number): value is object {
  if (!isContainer(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (level < STREAMED_LEVELS) {
    if (Array.isArray(value)) return true;
    if (Object.values(value).some((inner) => Array.isArray(inner) && inner.length > 0)) return true;
  }
  return holdsMoreThan(value, STREAMED_SIZE);
}

/**
 * Writes exactly `jsonText(value, pretty, filter)` (without its newline) to `write`, in pieces: the top levels element
 * by element, so a 60 MiB answer is never one string (nor the three copies redaction and neutralising make of one).
 * Each piece is a whole JSON value or punctuation, so a secret or a control character never spans two of them.
 */
export function writeJson(
  value: unknown,
  pretty: boolean,
  filter: TextFilter,
  write: (text: string) => void,
  level = 0,
  indent = '',
): void {
  const piece = (text: string) => {
    write(neutraliseJson(filter(text)));
  };
  // Clipped once, at the top: everything below is then within the bound. A task keeps the id type the server sent.
  const clipped = withWireId(level === 0 ? clipDepth(value, MAX_JSON_DEPTH) : value);
  if (!worthStreaming(clipped, level)) {
    const text = stringifyJson(clipped, pretty ? '  ' : undefined);
    piece(pretty && indent !== '' ? indentJson(text ?? 'null', indent) : (text ?? 'null'));
    return;
  }
  const inner = pretty ? `${indent}  ` : '';
  const open = pretty ? `\n${inner}` : '';
  const separator = pretty ? `,\n${inner}` : ',';
  const close = pretty ? `\n${indent}` : '';
  if (Array.isArray(clipped)) {
    const list: readonly unknown[] = clipped;
    if (list.length === 0) {
      piece('[]');
      return;
    }
    write('[');
    list.forEach((element, index) => {
      write(index === 0 ? open : separator);
      // JSON.stringify writes null for what JSON cannot hold inside an array.
      const shown =
        element === undefined || typeof element === 'function' || typeof element === 'symbol' ? null : element;
      writeJson(shown, pretty, filter, write, level + 1, inner);
    });
    write(`${close}]`);
    return;
  }
  const record = clipped as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => {
    const inside = record[key];
    return inside !== undefined && typeof inside !== 'function' && typeof inside !== 'symbol';
  });
  if (keys.length === 0) {
    piece('{}');
    return;
  }
  write('{');
  keys.forEach((key, index) => {
    write(index === 0 ? open : separator);
    piece(`${JSON.stringify(key)}:${pretty ? ' ' : ''}`);
    writeJson(record[key], pretty, filter, write, level + 1, inner);
  });
  write(`${close}}`);
}

/**
 * Collects small writes into chunks of about `size` characters before passing them on: output written piece by piece
 * stays bounded in memory without a system call per piece. Call `flush()` at the end. 64 Ki characters: joining a chunk
 * of a MiB or more made a string in V8's large-object space each time, several times the cost of joining sixteen
 * smaller ones (docs/performance.md, `show --job` against the shell); a pipe takes 64 KiB at a time anyway.
 */
export function chunkedWriter(
  sink: (text: string) => void,
  size = 1 << 16,
): { write: (text: string) => void; flush: () => void } {
  let parts: string[] = [];
  let length = 0;
  const flush = () => {
    if (length === 0) return;
    const text = parts.join('');
    parts = [];
    length = 0;
    sink(text);
  };
  return {
    write(text) {
      if (text === '') return;
      parts.push(text);
      length += text.length;
      if (length >= size) flush();
    },
    flush,
  };
}
