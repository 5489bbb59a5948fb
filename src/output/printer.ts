/**
 * The one way taskctl writes: data to stdout in the chosen format, talk (info/warnings/errors) to stderr
 * (STYLE.md 6). Every string printed — data and messages — is redacted, then neutralised (DESIGN.md 3, 4).
 *
 * Formats, for rows (`list`, `stream`):
 * - table:  borderless aligned columns, UPPERCASE headers, empty values shown as `-`; colour only if `color`; on a
 *           terminal, fitted to its width (output/fit.ts) unless `wide`; `time` columns as ages (`3m ago`).
 * - tsv:    no header, one record a line, fields in column order, tabs/newlines in fields become spaces.
 * - csv:    RFC 4180 with a header row of column keys; fields quoted when needed; LF line ends.
 * - json:   `json ?? rows`, pretty (2 spaces) with a final newline; `stream` emits one valid array incrementally.
 * - ndjson: one compact JSON value a line: each element of `json` when it is an array, else each row.
 * For one object (`detail`):
 * - table: aligned `Label:  value` lines, labels for people (`balance_after` → `Balance after`), timestamps
 *   followed by their age; tsv: the values on one line, tab-separated, in field order;
 *   csv: header (label keys) + one record; json: `json` pretty; ndjson: `json` compact on one line.
 */
import { palette, type ChalkInstance } from './colour.js';
import {
  cellText,
  chunkedWriter,
  csvRecord,
  jsonText,
  toSnakeKey,
  tsvRecord,
  writeJson,
  type CellValue,
} from './encode.js';
import type { OutputFormat } from './format.js';
import type { IO, OutputStream } from './io.js';
import type { Progress } from './progress.js';
import type { Redactor } from '../lib/redact.js';
import { humanLabel } from './labels.js';
import type { card, CardField } from './stack.js';
import { formatCount } from './numbers.js';
import { paintStatus } from './status-colours.js';
import { neutralise, neutraliseMultiline } from '../lib/sanitize.js';
import { parseTimestamp, relativeTime } from './times.js';

export type { CellValue } from './encode.js';

export interface Column<T> {
  /** Table header (shown uppercase). */
  header: string;
  /** Name in the CSV header. Default: `header` in lower snake case (`Created At` → `created_at`). */
  key?: string;
  value: (row: T) => CellValue;
  /** Table only. Default `left`. */
  align?: 'left' | 'right';
  /** Colour for the table cell; called only when colour is on, with the printed text. Use `printer.chalk`. */
  style?: (value: string, row: T) => string;
  /** Table only: the text a person reads instead of `value` (e.g. `7/8, 1 failed`); machine formats keep `value`. */
  display?: (row: T) => CellValue;
  /** Table only: the value is an ISO timestamp, shown as an age (`3m ago`). */
  time?: boolean;
  /** Table only: long free text, cut with `…` to fit the terminal (descriptions, results, errors). */
  truncate?: boolean;
  /**
   * Table only: text that may span lines (nested results as `key: value` lines): wrapped at word boundaries within the
   * column's fitted width, never cut. Like `truncate`, the column gives up width when the terminal is narrow.
   */
  wrap?: boolean;
  /** Table only: left out, highest rank first, when the terminal is too narrow for every column (`--wide` keeps it). */
  optional?: number;
}

/** One line of a `detail` view: label, value, and an optional table-only colour. */
export type DetailField = readonly [label: string, value: CellValue, style?: (value: string) => string];

export interface ListOptions {
  /** Table format, no rows: this message on stderr (suppressed by `quiet`). Default `No results.` */
  emptyMessage?: string;
  /** Table format: every column at full width, whatever the terminal's width (`--wide`). */
  wide?: boolean;
  /** The columns were named (`--columns`): none is dropped to fit a terminal; the rows stack as cards instead. */
  chosen?: boolean;
}

export interface RowStream<T> {
  /** Prints the rows now (tsv, csv, ndjson, json) or buffers them (table). */
  write: (rows: readonly T[]) => void;
  /** Closes the JSON array, or renders the buffered table. Call exactly once. */
  end: () => Promise<void>;
  /**
   * The command failed part-way: a table shows the rows it has; JSON is left as it is (nothing at all before the first
   * row, an unterminated array after it), so a truncated result never parses as a whole one; csv gets no header.
   */
  abort: () => Promise<void>;
}

export interface PrinterOptions {
  io: IO;
  format: OutputFormat;
  /** Colour on stdout (table format only): decide with `colorEnabled(io.stdout, env, noColorFlag)`. */
  color: boolean;
  /** Colour on stderr: decide with `colorEnabled(io.stderr, env, noColorFlag)`. Default: `color && io.stderr.isTTY`. */
  stderrColor?: boolean;
  /** `-q`: suppresses `info` and `success` (never `warn` or `error`). Default false. */
  quiet?: boolean;
  /** Applied to every printed string before neutralising. Default: identity. */
  redact?: Redactor;
  /** Forwarded to `progress()`: no spinner in CI. Default false. */
  ci?: boolean;
  /** Clock for `progress()` timestamps. Default `Date.now`. */
  now?: () => number;
  /**
   * Word-wraps messages on stderr (errors, hints, warnings, info) to this many columns: give it only when stderr is a
   * terminal (`lineBudget(io.stderr.columns)`), so scripts and logs get each message unwrapped. With `wrap`.
   */
  wrapWidth?: number;
  /** The wrapper (output/width.ts `wrapText`), handed in so that the printer loads no width tables for scripts. */
  wrap?: (text: string, width: number, indent?: string) => string;
  /** `Label:  value` lines wrapped to a width (output/stack.ts `card`), handed in when stdout is a terminal. */
  card?: typeof card;
}

/** A part of `styledLine`: coloured by status meaning, or with one chalk style (plain when stdout colour is off). */
export interface StyledPart {
  text: string;
  status?: boolean;
  style?: 'dim' | 'bold' | 'yellow' | 'red' | 'green' | 'cyan';
}

export interface Printer {
  readonly format: OutputFormat;
  readonly color: boolean;
  readonly stderrColor: boolean;
  readonly quiet: boolean;
  /** chalk at stdout's colour level (level 0 when colour is off): for `Column.style`. */
  readonly chalk: ChalkInstance;
  list: <T>(
    rows: readonly T[],
    columns: ReadonlyArray<Column<T>>,
    json?: unknown,
    options?: ListOptions,
  ) => Promise<void>;
  stream: <T>(columns: ReadonlyArray<Column<T>>, toJson?: (row: T) => unknown, options?: ListOptions) => RowStream<T>;
  detail: (fields: readonly DetailField[], json: unknown) => void;
  /** A JSON value: compact for ndjson, pretty for every other format. */
  json: (value: unknown) => void;
  /** One raw data line on stdout (e.g. `create -q` ids). */
  line: (text: string) => void;
  /**
   * One data line on stdout from parts, each redacted and neutralised on its own and then painted (a `status` part by
   * `paintStatus`, a `style` part with that chalk style), so colour survives while server text stays inert.
   */
  styledLine: (parts: ReadonlyArray<string | StyledPart>) => void;
  /** An empty line on stdout, between two human-format sections (e.g. `show`'s summary and its items table). */
  blank: () => void;
  /**
   * A task or item status coloured by meaning (completed green, failed red, processing yellow, pending dim), for
   * `Column.style`; unchanged when stdout colour is off. Expects text that is already neutralised (style input is).
   */
  paintStatus: (status: string) => string;
  info: (message: string) => void;
  /** A plain message on stderr that `-q` does not silence (an answer the person gave, e.g. declining a prompt). */
  notice: (message: string, hint?: string) => void;
  success: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string, hint?: string) => void;
  /** A progress reporter on stderr with this printer's format, colour, quiet, CI and redaction. */
  progress: () => Promise<Progress>;
  /** The same printer writing its data to `stdout` instead (output collected for a pager); talk still goes to stderr. */
  to: (stdout: OutputStream) => Printer;
}

/**
 * Rows drawn in a table; past this the table shows the first rows and says how to get all of them. cli-table3's layout
 * is quadratic in the rows (8,000 rows take 4 s, 150,000 overflow its stack), and a longer table is no read anyway.
 */
export const TABLE_MAX_ROWS = 1000;

/** Rows a table draws at a time (one cli-table3 layout), at the widths of the whole table. */
const TABLE_SLICE_ROWS = 100;

/** Fields that name things: their numbers are identifiers, never written with separators (`task 12345`). */
const IDENTIFIERS = new Set(['id', 'task', 'ids']);

/** A cell as a person reads it: numbers with thousands separators (output/numbers.ts), except identifiers. */
function humanCell(value: CellValue, name: string): string {
  return typeof value === 'number' && Number.isFinite(value) && !IDENTIFIERS.has(name.toLowerCase())
    ? formatCount(value)
    : cellText(value);
}

function columnName<T>(column: Column<T>): string {
  return column.key ?? column.header;
}

/** A table's row as a card (output/stack.ts): every column, each value in its column's colour, `empty` for none. */
function rowCard<T>(
  row: T,
  cells: readonly string[],
  columns: ReadonlyArray<Column<T>>,
  heads: readonly string[],
  colour: boolean,
  empty: string,
): CardField[] {
  return columns.map((column, i) => {
    const value = cells[i] ?? '';
    if (value === '') return { label: heads[i] ?? '', value: empty };
    const paint = colour && column.style ? (line: string) => column.style?.(line, row) ?? line : undefined;
    return { label: heads[i] ?? '', value, paint };
  });
}

/** Human formats show a missing value as a dash, so columns never look shifted. */
const EMPTY_CELL = '-';

export function createPrinter(options: PrinterOptions): Printer {
  const { io, format } = options;
  const quiet = options.quiet ?? false;
  const redact: Redactor = options.redact ?? ((text) => text);
  const stderrColor = options.stderrColor ?? (options.color && io.stderr.isTTY === true);
  // Explicit levels: chalk's own detection looks at process.stdout, which is not necessarily our stream.
  const out = palette(options.color);
  const err = palette(stderrColor);

  const oneLine = (text: string) => neutralise(redact(text));
  const message = (text: string) => neutraliseMultiline(redact(text));
  const { wrap, wrapWidth } = options;
  /** `prefix` + the message, word-wrapped on a terminal (the prefix's width counts; it is coloured afterwards). */
  const say = (prefix: string, painted: string, text: string): string => {
    const body = message(text);
    if (wrap === undefined || wrapWidth === undefined) return `${painted}${body}\n`;
    const wrapped = body
      .split('\n')
      .map((line, i) => wrap(i === 0 ? `${prefix}${line}` : line, wrapWidth))
      .join('\n');
    return `${painted}${wrapped.slice(prefix.length)}\n`;
  };
  const writeOut = (text: string) => {
    if (text !== '') io.stdout.write(text);
  };
  /** The live block on stderr while one is drawn (`progress()`): talk is written with it out of the way. */
  let live: Progress | undefined;
  const writeErr = (text: string) => {
    if (live) live.interject(() => io.stderr.write(text));
    else io.stderr.write(text);
  };
  /** Raw text per column, redacted; each format applies its own escaping. */
  const fieldsOf = <T>(row: T, columns: ReadonlyArray<Column<T>>) => columns.map((c) => redact(cellText(c.value(row))));
  const keysOf = <T>(columns: ReadonlyArray<Column<T>>) => columns.map((c) => c.key ?? toSnakeKey(c.header));
  const jsonOut = (value: unknown, pretty: boolean) => `${jsonText(value, pretty, redact)}\n`;
  /** A JSON document on stdout, written in pieces of about a MiB (never the whole text at once: issue 25). */
  const streamJson = (value: unknown, pretty: boolean) => {
    const out = chunkedWriter(writeOut);
    writeJson(value, pretty, redact, out.write);
    out.write('\n');
    out.flush();
  };
  /** Records written as they are made, a MiB at a time, instead of one string of all of them. */
  const streamRecords = <T>(rows: readonly T[], record: (row: T) => string, head = '') => {
    const out = chunkedWriter(writeOut);
    out.write(head);
    for (const row of rows) out.write(record(row));
    out.flush();
  };
  const warnLine = (text: string) => writeErr(say('warning: ', `${err.yellow('warning:')} `, text));

  const paintByStatus = (status: string): string => paintStatus(out, status);

  const now = options.now ?? (() => Date.now());
  /** The terminal's width when stdout is one; tables elsewhere (`-o table > file`) keep every column whole. */
  // One less than the columns (output/width.ts lineBudget): a row as wide as the terminal would touch its last column.
  const terminalWidth =
    io.stdout.isTTY === true && (io.stdout.columns ?? 0) > 0 ? Math.max(10, (io.stdout.columns ?? 80) - 1) : undefined;
  const emptyCell = options.color ? out.dim(EMPTY_CELL) : EMPTY_CELL;

  /** A cell's plain text as a person reads it: `display` over `value`, timestamps as ages, neutralised. */
  const tableText = <T>(column: Column<T>, row: T): string => {
    const raw = redact(humanCell(column.display ? column.display(row) : column.value(row), columnName(column)));
    const ms = column.time ? parseTimestamp(raw) : undefined;
    const text = ms === undefined ? raw : relativeTime(ms, now());
    return column.wrap ? neutraliseMultiline(text) : neutralise(text);
  };

  const renderRowsTable = async <T>(
    allRows: readonly T[],
    allColumns: ReadonlyArray<Column<T>>,
    list: ListOptions | undefined,
    total = allRows.length,
  ) => {
    if (total === 0) {
      if (!quiet) writeErr(`${message(list?.emptyMessage ?? 'No results.')}\n`);
      return;
    }
    const rows = allRows.length > TABLE_MAX_ROWS ? allRows.slice(0, TABLE_MAX_ROWS) : allRows;
    const [{ fitColumns, hiddenNote }, { blockWidth: textWidth, leastCellWidth, truncateText, wrapCell }] =
      await Promise.all([import('./fit.js'), import('./width.js')]);
    const heads = allColumns.map((c) => neutralise(c.header.toUpperCase()));
    const texts = rows.map((row) => allColumns.map((c) => tableText(c, row)));
    const widths = allColumns.map((_, i) =>
      texts.reduce((widest, cells) => Math.max(widest, textWidth(cells[i] ?? '')), textWidth(heads[i] ?? '')),
    );
    const fit =
      terminalWidth === undefined || list?.wide === true
        ? { shown: allColumns.map((_, i) => i), widths, stack: false }
        : fitColumns(
            allColumns.map((c, i) => ({
              natural: widths[i] ?? 0,
              header: textWidth(heads[i] ?? ''),
              truncate: c.truncate === true || c.wrap === true,
              least: c.wrap === true ? leastCellWidth(texts.map((cells) => cells[i] ?? '')) : undefined,
              optional: list?.chosen === true ? undefined : c.optional,
            })),
            terminalWidth,
          );
    /** Past TABLE_MAX_ROWS: says how to get every row. */
    const cut = () => {
      if (total <= rows.length) return;
      warnLine(
        `showing the first ${formatCount(rows.length)} of ${formatCount(total)} rows; use -o tsv or -o csv to get them all`,
      );
    };
    if (fit.stack) {
      // Not even the most important columns fit side by side: a `KEY: value` card per row, every column in it.
      const { cards } = await import('./stack.js');
      const fields = rows.map((row, r) => rowCard(row, texts[r] ?? [], allColumns, heads, options.color, emptyCell));
      writeOut(cards(fields, terminalWidth, { label: (text) => (options.color ? out.bold(text) : text) }));
      cut();
      return;
    }
    const { renderTable } = await import('./table.js');
    const head = fit.shown.map((i) => (options.color ? out.bold(heads[i] ?? '') : (heads[i] ?? '')));
    const aligns = fit.shown.map((i) => allColumns[i]?.align ?? 'left');
    const drawn = (row: T, r: number): string[] =>
      fit.shown.map((i) => {
        const column = allColumns[i];
        const cell = texts[r]?.[i] ?? '';
        const width = fit.widths[i] ?? 0;
        const text = column?.wrap ? wrapCell(cell, width) : truncateText(cell, width);
        if (text === '' || column === undefined) return emptyCell;
        return options.color && column.style ? column.style(text, row) : text;
      });
    if (rows.length <= TABLE_SLICE_ROWS) {
      writeOut(await renderTable(head, rows.map(drawn), aligns));
    } else {
      // Drawn a slice of rows at a time, each slice at the widths the whole table has, so that it reads as one table
      // while cli-table3's copies of the text stay a slice's worth (1,000 rows of 60 KB values took 430 MB at once).
      const columnWidths = head.map((text) => textWidth(text));
      rows.forEach((row, r) => {
        drawn(row, r).forEach((cell, k) => (columnWidths[k] = Math.max(columnWidths[k] ?? 0, textWidth(cell))));
      });
      for (let start = 0; start < rows.length; start += TABLE_SLICE_ROWS) {
        const slice = rows.slice(start, start + TABLE_SLICE_ROWS).map((row, r) => drawn(row, start + r));
        writeOut(await renderTable(start === 0 ? head : [], slice, aligns, columnWidths));
      }
    }
    const note = hiddenNote(heads.filter((_, i) => !fit.shown.includes(i)));
    if (note !== undefined && !quiet) writeErr(say('', '', note));
    cut();
  };

  /** One record of a line format (tsv, csv, ndjson), newline included. */
  const recordOf = <T>(columns: ReadonlyArray<Column<T>>, toJson: (row: T) => unknown): ((row: T) => string) => {
    switch (format) {
      case 'tsv':
        return (row) => tsvRecord(fieldsOf(row, columns));
      case 'csv':
        return (row) => csvRecord(fieldsOf(row, columns));
      case 'ndjson':
        return (row) => jsonOut(toJson(row), false);
      default:
        throw new Error(`recordOf: ${format} is not a line format`);
    }
  };

  async function list<T>(
    rows: readonly T[],
    columns: ReadonlyArray<Column<T>>,
    json?: unknown,
    listOptions?: ListOptions,
  ) {
    switch (format) {
      case 'table':
        await renderRowsTable(rows, columns, listOptions);
        return;
      case 'json':
        streamJson(json ?? rows, true);
        return;
      case 'ndjson': {
        const values: readonly unknown[] = Array.isArray(json) ? json : rows;
        streamRecords(values, (value) => jsonOut(value, false));
        return;
      }
      case 'csv':
        streamRecords(
          rows,
          recordOf(columns, (row) => row),
          csvRecord(keysOf(columns)),
        );
        return;
      case 'tsv':
        streamRecords(
          rows,
          recordOf(columns, (row) => row),
        );
        return;
    }
  }

  function stream<T>(
    columns: ReadonlyArray<Column<T>>,
    toJson?: (row: T) => unknown,
    listOptions?: ListOptions,
  ): RowStream<T> {
    const asJson = toJson ?? ((row: T): unknown => row);
    const buffered: T[] = [];
    let bufferedTotal = 0;
    let started = false;
    let ended = false;
    return {
      write(rows) {
        if (ended) throw new Error('RowStream.write after end');
        if (rows.length === 0) return;
        if (format === 'table') {
          // A table's column widths depend on every row, so it can only be drawn at the end; rows past the table's
          // limit are only counted (a loop, not push(...rows): a spread of 150,000 arguments overflows the stack).
          for (const row of rows) if (buffered.length < TABLE_MAX_ROWS) buffered.push(row);
          bufferedTotal += rows.length;
          return;
        }
        if (format === 'json') {
          // Exactly JSON.stringify(all, null, 2), written row by row: valid JSON without holding every row, or even
          // one page's text.
          const out = chunkedWriter(writeOut);
          rows.forEach((row, index) => {
            out.write(index === 0 && !started ? '[\n  ' : ',\n  ');
            writeJson(asJson(row), true, redact, out.write, 0, '  ');
          });
          out.flush();
          started = true;
          return;
        }
        const head = format === 'csv' && !started ? csvRecord(keysOf(columns)) : '';
        started = true;
        streamRecords(rows, recordOf(columns, asJson), head);
      },
      async abort() {
        if (ended) return;
        ended = true;
        if (format === 'table' && bufferedTotal > 0)
          await renderRowsTable(buffered, columns, listOptions, bufferedTotal);
      },
      async end() {
        if (ended) return;
        ended = true;
        if (format === 'table') {
          await renderRowsTable(buffered, columns, listOptions, bufferedTotal);
          return;
        }
        if (format === 'json') {
          writeOut(started ? '\n]\n' : '[]\n');
          return;
        }
        // An empty CSV still gets its header, so a reader sees the columns.
        if (format === 'csv' && !started) writeOut(csvRecord(keysOf(columns)));
      },
    };
  }

  const detailText = (fields: readonly DetailField[]): string => {
    const values = fields.map(([, value]) => redact(cellText(value)));
    const shownValues = fields.map(([label, value]) => redact(humanCell(value, label)));
    switch (format) {
      case 'json':
      case 'ndjson':
        throw new Error('detailText: JSON is streamed');
      case 'tsv':
        return tsvRecord(values);
      case 'csv':
        return csvRecord(fields.map(([label]) => toSnakeKey(label))) + csvRecord(values);
      case 'table': {
        const shown = fields.map(([label, , style], i): CardField => {
          const text = neutralise(shownValues[i] ?? '');
          const ms = text === '' ? undefined : parseTimestamp(text);
          return {
            label: neutralise(humanLabel(label)),
            value: text === '' ? emptyCell : text,
            tail: ms === undefined ? undefined : `(${relativeTime(ms, now())})`,
            paint: options.color && style && text !== '' ? style : undefined,
          };
        });
        const bold = (label: string) => (options.color ? out.bold(label) : label);
        // On a terminal wrapped to its width; elsewhere (`-o table > file`) one line a field.
        if (options.card && terminalWidth !== undefined) return options.card(shown, terminalWidth, { label: bold });
        const width = Math.max(...shown.map((field) => field.label.length));
        const value = (field: CardField) =>
          `${field.paint ? field.paint(field.value) : field.value}${field.tail ? ` ${field.tail}` : ''}`;
        return shown
          .map((field) => `${bold(`${field.label}:`)}${' '.repeat(width - field.label.length + 2)}${value(field)}\n`)
          .join('');
      }
    }
  };

  return {
    format,
    color: options.color,
    stderrColor,
    quiet,
    chalk: out,

    list,
    stream,

    detail(fields, json) {
      if (format === 'json' || format === 'ndjson') streamJson(json, format === 'json');
      else writeOut(detailText(fields));
    },

    json(value) {
      streamJson(value, format !== 'ndjson');
    },

    line(text) {
      io.stdout.write(`${oneLine(text)}\n`);
    },

    styledLine(parts) {
      const text = parts.map((part) => {
        if (typeof part === 'string') return oneLine(part);
        const inert = oneLine(part.text);
        if (part.status === true) return paintByStatus(inert);
        return part.style ? out[part.style](inert) : inert;
      });
      // On a terminal wrapped at spaces (a line the terminal wraps is cut inside a word); one line each in a pipe.
      const line = text.join('');
      io.stdout.write(`${terminalWidth === undefined || !wrap ? line : wrap(line, terminalWidth, '  ')}\n`);
    },

    blank() {
      io.stdout.write('\n');
    },

    paintStatus: paintByStatus,

    info(text) {
      if (!quiet) writeErr(say('', '', text));
    },
    notice(text, hint) {
      writeErr(`${say('', '', text)}${hint === undefined || hint === '' ? '' : say('', '', hint)}`);
    },
    success(text) {
      if (!quiet) writeErr(say('✓ ', `${err.green('✓')} `, text));
    },
    warn: warnLine,
    error(text, hint) {
      const head = say('error: ', `${err.red('error:')} `, text);
      writeErr(hint === undefined || hint === '' ? head : `${head}${say('', '', hint)}`);
    },

    async progress() {
      const { createProgress } = await import('./progress.js');
      const progress = createProgress({
        io,
        format,
        ci: options.ci ?? false,
        color: stderrColor,
        quiet,
        redact,
        clock: { now },
      });
      if (progress.mode !== 'live') return progress;
      // A warning from deep inside (a create's lost answer) never lands on the block's line.
      live = progress;
      return {
        mode: progress.mode,
        paint: progress.paint,
        clean: progress.clean,
        live: (frame) => progress.live(frame),
        refresh: () => progress.refresh(),
        log: (line) => progress.log(line),
        interject: (write) => progress.interject(write),
        lineWidth: () => progress.lineWidth(),
        stop: () => {
          if (live === progress) live = undefined;
          progress.stop();
        },
      };
    },

    to(stdout) {
      return createPrinter({ ...options, io: { ...io, stdout } });
    },
  };
}
