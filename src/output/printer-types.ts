/** The printer's types: columns, rows, options and the Printer itself (output/printer.ts builds one). */
import type { ChalkInstance } from './colour.js';
import type { CellValue } from './encode.js';
import type { OutputFormat } from './format.js';
import type { IO, OutputStream } from './io.js';
import type { Progress } from './progress.js';
import type { Redactor } from '../lib/redact.js';
import type { card } from './stack.js';
import type { TaskStateFields } from '../lib/task-state.js';

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
  /** Table only, with `truncate`: a file path, cut at its start (`…/jobs/j-x.jsonl`), never in its middle. */
  path?: boolean;
  /**
   * Table only, with `truncate`: a name kept whole while the optional columns ranked after `rank` go, then cut with
   * `…` (to no less than `least` columns) before the column of that rank goes: a task's SERVICE gives way to its ITEMS.
   */
  yieldsTo?: { rank: number; least: number };
  /**
   * Table only: text that may span lines (nested results as `key: value` lines): wrapped at word boundaries within the
   * column's fitted width, never cut. Like `truncate`, the column gives up width when the terminal is narrow.
   */
  wrap?: boolean;
  /**
   * Machine formats only (tsv, csv): a table leaves it out unless `--columns` names it, as another cell shows it to
   * people (ITEMS `7/8, 1 failed` holds `completed_items` and `failed_items`).
   */
  machine?: boolean;
  /** Table only: left out, highest rank first, when the terminal is too narrow for every column (`--wide` keeps it). */
  optional?: number;
  /**
   * Table only: the answer (an item's result, its error). With `optional`, left out only after every other optional
   * column is and the free text has shrunk to its least, so it outlives the times, and the last such column
   * never (the rows stack instead); as free text it keeps about 18 columns before the rows stack.
   */
  answer?: boolean;
}

/** One line of a `detail` view: label, value, and an optional table-only colour. */
export type DetailField = readonly [label: string, value: CellValue, style?: (value: string) => string];

export interface ListOptions {
  /**
   * Table format, no rows: this message on stderr (suppressed by `quiet`). Default `No results.`; '' for none (a
   * summary after the table says it).
   */
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
  /**
   * Forwarded to `progress()`: whether stderr may be redrawn in place (io.ts `canRedraw`: not in CI, not TERM=dumb).
   * Default: stderr is a terminal.
   */
  redraw?: boolean;
  /** The clock ages (`3m ago`) are told on: the service's, which stamped what they age. Default `Date.now`. */
  now?: () => number;
  /**
   * The clock `progress()` stamps its log lines with: this machine's, so a CI log lines up with the runner's own
   * stamps (docs/behaviour.md#the-services-clock). Default `Date.now`.
   */
  stampNow?: () => number;
  /**
   * Word-wraps messages on stderr (errors, hints, warnings, info) to this many columns: give it only when stderr is a
   * terminal (`lineBudget(io.stderr.columns)`), so scripts and logs get each message unwrapped. With `wrap`. A function
   * is read at each message, so a terminal resized during a run gets its later messages at its new width.
   */
  wrapWidth?: number | (() => number);
  /** The wrapper (output/width.ts `wrapText`), handed in so that the printer loads no width tables for scripts. */
  wrap?: (text: string, width: number, indent?: string) => string;
  /** `Label:  value` lines wrapped to a width (output/stack.ts `card`), handed in when stdout is a terminal. */
  card?: typeof card;
  /**
   * Applied to every message on stderr before redaction, never to data: the run's account flags put into each
   * `taskctl <command>` it names (output/hint-globals.ts). Default: identity.
   */
  hints?: ((text: string) => string) | undefined;
}

/** A part of `styledLine`: coloured by status meaning, or with one chalk style (plain when stdout colour is off). */
export interface StyledPart {
  text: string;
  /** Coloured as a status: by the task's tone when a task is given (its counts matter), else by the word. */
  status?: boolean | TaskStateFields;
  style?: 'dim' | 'bold' | 'yellow' | 'red' | 'green' | 'cyan';
  /**
   * At a terminal, the line is broken here and goes on under it, indented as a wrapped line is (`styledLine`), instead
   * of showing `text`: a line that cannot fit breaks where its writer chose, not at whichever space the width reaches.
   */
  lineBreak?: true;
}

export interface Printer {
  readonly format: OutputFormat;
  readonly color: boolean;
  readonly stderrColor: boolean;
  readonly quiet: boolean;
  /**
   * The columns a line on stdout may use when stdout is a terminal (one less than its width), else undefined: what a
   * line of its own is fitted to (the event lines of `watch` and `webhook listen`, output/event-line.ts). Read at each
   * use: the terminal's width as it is now.
   */
  readonly lineWidth: number | undefined;
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
   * A task or item status coloured by its tone (lib/task-state.ts; with the task, a completed one with failed items is
   * yellow), for `Column.style`; unchanged when stdout colour is off. Expects text that is already neutralised.
   */
  paintStatus: (status: string, task?: TaskStateFields) => string;
  info: (message: string) => void;
  /** A plain message on stderr that `-q` does not silence (an answer the person gave, e.g. declining a prompt). */
  notice: (message: string, hint?: string) => void;
  success: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string, hint?: string) => void;
  /** A progress reporter on stderr with this printer's format, colour, quiet, CI and redaction. */
  progress: () => Promise<Progress>;
  /** Whether a live block of `progress()` is drawn now (it says what it waits for itself). */
  drawingLive: () => boolean;
  /** The same printer writing its data to `stdout` instead (output collected for a pager); talk to `stderr` if given. */
  to: (stdout: OutputStream, stderr?: OutputStream) => Printer;
}
