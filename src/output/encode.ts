/** Turning values into the text of one cell / field / JSON document, per format. Pure functions, no I/O. */
import { neutralise, neutraliseMultiline } from './sanitize.js';

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

// JSON.stringify escapes C0 controls but not DEL, C1 or bidi controls; escaping them keeps the JSON identical in
// meaning while making it inert on a terminal. They can only occur inside strings, so \uXXXX is always valid there.
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const JSON_UNSAFE_TEST = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** JSON text, pretty (2-space indent) or compact, with `filter` (redaction) applied and terminal controls escaped. */
export function jsonText(value: unknown, pretty: boolean, filter: TextFilter): string {
  const raw = JSON.stringify(value, null, pretty ? 2 : undefined) ?? 'null';
  const text = filter(raw);
  return JSON_UNSAFE_TEST.test(text)
    ? text.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}

/** Indents every line after the first: used to stream a pretty JSON array element by element. */
export function indentJson(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}
