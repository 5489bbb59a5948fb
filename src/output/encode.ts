/** Turning values into the text of one cell / field / JSON document, per format. Pure functions, no I/O. */
import { neutralise, neutraliseJson, neutraliseMultiline } from './sanitize.js';

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
export const MAX_JSON_DEPTH = 512;

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
  const raw = JSON.stringify(clipDepth(value, MAX_JSON_DEPTH), null, pretty ? 2 : undefined) as string | undefined;
  return neutraliseJson(filter(raw ?? 'null'));
}

/** Indents every line after the first: used to stream a pretty JSON array element by element. */
export function indentJson(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}
