/**
 * What every part of the printer shares: its streams, colours, redaction and clock (`PrinterBase`), and the small
 * writers built on them — talk on stderr (with a live block out of the way), data on stdout, cells as text.
 */
import { palette, type ChalkInstance } from './colour.js';
import { cellText, chunkedWriter, jsonText, toSnakeKey, writeJson, type CellValue } from './encode.js';
import type { OutputFormat } from './format.js';
import type { IO } from './io.js';
import type { Progress } from './progress.js';
import type { Column, PrinterOptions } from './printer-types.js';
import type { Redactor } from '../lib/redact.js';
import { formatCount } from './numbers.js';
import { neutralise, neutraliseMultiline } from '../lib/sanitize.js';
import { parseTimestamp } from '../lib/timestamp.js';
import { relativeTime } from './times.js';
import { terminalColumns } from './terminal-size.js';

export interface PrinterBase {
  readonly options: PrinterOptions;
  readonly io: IO;
  readonly format: OutputFormat;
  readonly quiet: boolean;
  readonly redact: Redactor;
  readonly stderrColor: boolean;
  /** chalk at stdout's colour level, and at stderr's. */
  readonly out: ChalkInstance;
  readonly err: ChalkInstance;
  readonly now: () => number;
  /** The clock log lines are stamped with (PrinterOptions.stampNow). */
  readonly stampNow: () => number;
  /**
   * The columns a line may use when stdout is a terminal, read at each use (a terminal resized during a long run gets
   * its final table at the width it has then); undefined elsewhere: tables (`-o table > file`) keep every column whole.
   */
  readonly terminalWidth: number | undefined;
  /** A missing value in a human format, dimmed when colour is on. */
  readonly emptyCell: string;
  /** The live block on stderr while one is drawn (`progress()`): talk is written with it out of the way. */
  live: Progress | undefined;
}

/** Human formats show a missing value as a dash, so columns never look shifted. */
const EMPTY_CELL = '-';

/** Fields that name things: their numbers are identifiers, never written with separators (`task 12345`). */
const IDENTIFIERS = new Set(['id', 'task', 'ids']);

export function printerBase(options: PrinterOptions): PrinterBase {
  const { io } = options;
  const stderrColor = options.stderrColor ?? (options.color && io.stderr.isTTY === true);
  // Explicit levels: chalk's own detection looks at process.stdout, which is not necessarily our stream.
  const out = palette(options.color);
  return {
    options,
    io,
    format: options.format,
    quiet: options.quiet ?? false,
    redact: options.redact ?? ((text) => text),
    stderrColor,
    out,
    err: palette(stderrColor),
    now: options.now ?? (() => Date.now()),
    stampNow: options.stampNow ?? (() => Date.now()),
    get terminalWidth() {
      return terminalWidthOf(io.stdout);
    },
    emptyCell: options.color ? out.dim(EMPTY_CELL) : EMPTY_CELL,
    live: undefined,
  };
}

/**
 * The columns a line may use on `stream` when it is a terminal, as wide as it is now: one less than its columns
 * (output/width.ts lineBudget: a row as wide as the terminal would touch its last column). Undefined off a terminal.
 */
function terminalWidthOf(stream: IO['stdout']): number | undefined {
  if (stream.isTTY !== true) return undefined;
  // Read once: a resize in between would give two widths. A terminal that reports no width is laid out for 80.
  return Math.max(10, terminalColumns(stream.columns) - 1);
}

/** One line of text, redacted and neutralised. */
export function oneLine(base: PrinterBase, text: string): string {
  return neutralise(base.redact(text));
}

/** A message on stderr, which may span lines: the commands it names given the run's account flags, redacted, neutralised. */
export function message(base: PrinterBase, text: string): string {
  const { hints } = base.options;
  return neutraliseMultiline(base.redact(hints ? hints(text) : text));
}

/** `prefix` + the message, word-wrapped on a terminal (the prefix's width counts; it is coloured afterwards). */
export function say(base: PrinterBase, prefix: string, painted: string, text: string): string {
  const { wrap } = base.options;
  const body = message(base, text);
  const wrapWidth = messageWidth(base);
  if (wrap === undefined || wrapWidth === undefined) return `${painted}${body}\n`;
  const wrapped = body
    .split('\n')
    .map((line, i) => wrap(i === 0 ? `${prefix}${line}` : line, wrapWidth))
    .join('\n');
  return `${painted}${wrapped.slice(prefix.length)}\n`;
}

/** The width messages are wrapped to (`PrinterOptions.wrapWidth`), read now: the terminal may have been resized. */
function messageWidth(base: PrinterBase): number | undefined {
  const { wrapWidth } = base.options;
  return typeof wrapWidth === 'function' ? wrapWidth() : wrapWidth;
}

export function writeOut(base: PrinterBase, text: string): void {
  if (text !== '') base.io.stdout.write(text);
}

export function writeErr(base: PrinterBase, text: string): void {
  if (base.live) base.live.interject(() => base.io.stderr.write(text));
  else base.io.stderr.write(text);
}

export function warnLine(base: PrinterBase, text: string): void {
  writeErr(base, say(base, 'warning: ', `${base.err.yellow('warning:')} `, text));
}

/** Raw text per column, redacted; each format applies its own escaping. */
export function fieldsOf<T>(base: PrinterBase, row: T, columns: ReadonlyArray<Column<T>>): string[] {
  return columns.map((c) => base.redact(cellText(c.value(row))));
}

export function keysOf<T>(columns: ReadonlyArray<Column<T>>): string[] {
  return columns.map((c) => c.key ?? toSnakeKey(c.header));
}

export function jsonOut(base: PrinterBase, value: unknown, pretty: boolean): string {
  return `${jsonText(value, pretty, base.redact)}\n`;
}

/** A JSON document on stdout, written in pieces of about 64 KiB (never the whole text at once). */
export function streamJson(base: PrinterBase, value: unknown, pretty: boolean): void {
  const out = chunkedWriter((text) => writeOut(base, text));
  writeJson(value, pretty, base.redact, out.write);
  out.write('\n');
  out.flush();
}

/** Records written as they are made, about 64 KiB at a time, instead of one string of all of them. */
export function streamRecords<T>(base: PrinterBase, rows: readonly T[], record: (row: T) => string, head = ''): void {
  const out = chunkedWriter((text) => writeOut(base, text));
  out.write(head);
  for (const row of rows) out.write(record(row));
  out.flush();
}

/** A cell as a person reads it: numbers with thousands separators (output/numbers.ts), except identifiers. */
export function humanCell(value: CellValue, name: string): string {
  return typeof value === 'number' && Number.isFinite(value) && !IDENTIFIERS.has(name.toLowerCase())
    ? formatCount(value)
    : cellText(value);
}

/** A cell's plain text as a person reads it: `display` over `value`, timestamps as ages, neutralised. */
export function tableText<T>(base: PrinterBase, column: Column<T>, row: T): string {
  const value = column.display ? column.display(row) : column.value(row);
  const raw = base.redact(humanCell(value, column.key ?? column.header));
  const ms = column.time ? parseTimestamp(raw) : undefined;
  const text = ms === undefined ? raw : relativeTime(ms, base.now());
  return column.wrap ? neutraliseMultiline(text) : neutralise(text);
}
