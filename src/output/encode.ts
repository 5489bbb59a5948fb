/** Turning values into the text of one cell / field / JSON document, per format. Pure functions, no I/O. */
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

/** Put where a value was cut short: deeper than a depth bound (`clipDepth`). */
const TRUNCATED = '…';

/**
 * Levels of nesting printed in JSON output. JSON.stringify recurses natively and overflows the stack a few thousand
 * levels down; real results are a handful deep, so anything past this is a hostile server's and is cut with a marker.
 */
const MAX_JSON_DEPTH = 512;

/**
 * `value` with every array or object nested deeper than `limit` levels replaced by TRUNCATED. Returns the same
 * value (no copy) when nothing is that deep, so the common case costs one walk. Recursion is bounded by `limit`.
 */
function clipDepth(value: unknown, limit: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (limit <= 0) return TRUNCATED;
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    let copy: unknown[] | undefined;
    list.forEach((inner, index) => {
      const clipped = clipDepth(inner, limit - 1);
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
    const clipped = clipDepth(inner, limit - 1);
    if (clipped === inner) continue;
    copy ??= { ...record };
    copy[key] = clipped;
  }
  return copy ?? value;
}

/** Compact JSON of a value for one cell, cut (with TRUNCATED) below `depth` levels. Not neutralised: cells are. */
export function cellJson(value: unknown, depth: number): string {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  const text = JSON.stringify(clipDepth(value, depth)) as string | undefined;
  return text ?? '';
}

/**
 * JSON text, pretty (2-space indent) or compact, with `filter` (redaction) applied and terminal controls escaped the
 * JSON way (`\u009b`), so it stays identical in meaning and always parses. Nesting past MAX_JSON_DEPTH is cut.
 */
export function jsonText(value: unknown, pretty: boolean, filter: TextFilter): string {
  const shown = Array.isArray(value) ? value.map(withWireId) : withWireId(value);
  const raw = JSON.stringify(clipDepth(shown, MAX_JSON_DEPTH), null, pretty ? 2 : undefined) as string | undefined;
  return neutraliseJson(filter(raw ?? 'null'));
}

/** Indents every line after the first: used to stream a pretty JSON array element by element. */
function indentJson(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/** Levels of a JSON document written piece by piece (a list, a task, its items); deeper values are one piece each. */
const STREAMED_LEVELS = 3;

/** Arrays, and objects holding an array (a task and its items), are written element by element; the rest whole. */
function worthStreaming(value: unknown, level: number): value is object {
  if (typeof value !== 'object' || value === null || level >= STREAMED_LEVELS) return false;
  if (Array.isArray(value)) return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  return Object.values(value).some((inner) => Array.isArray(inner) && inner.length > 0);
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
    const text = JSON.stringify(clipped, null, pretty ? 2 : undefined) as string | undefined;
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
 * stays bounded in memory without a system call per piece. Call `flush()` at the end.
 */
export function chunkedWriter(
  sink: (text: string) => void,
  size = 1 << 20,
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
