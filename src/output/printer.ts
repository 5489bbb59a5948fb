/**
 * The one way taskctl writes: data to stdout in the chosen format, talk (info/warnings/errors) to stderr
 * (docs/architecture.md#conventions). Every string printed — data and messages — is redacted, then neutralised
 * (docs/behaviour.md#output).
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
import { paintStatus } from './status-colours.js';
import {
  oneLine,
  printerBase,
  say,
  streamJson,
  warnLine,
  writeErr,
  writeOut,
  type PrinterBase,
} from './printer-base.js';
import { listRows, streamRows } from './printer-rows.js';
import { detailText } from './printer-table.js';
import type { Progress } from './progress.js';
import type { TaskStateFields } from '../lib/task-state.js';
import type { Printer, PrinterOptions } from './printer-types.js';

export type { Column, DetailField, Printer, PrinterOptions, RowStream, StyledPart } from './printer-types.js';
export { TABLE_MAX_ROWS } from './printer-table.js';

/** A progress reporter on stderr; while its live block is drawn, the printer's talk is written with it out of the way. */
async function liveProgress(base: PrinterBase): Promise<Progress> {
  const { createProgress } = await import('./progress.js');
  const { io, format, options, stderrColor, quiet, redact, stampNow } = base;
  const progress = createProgress({
    io,
    format,
    ...(options.redraw !== undefined && { redraw: options.redraw }),
    color: stderrColor,
    quiet,
    redact,
    clock: { now: stampNow },
  });
  if (progress.mode !== 'live') return progress;
  // A warning from deep inside (a create's lost answer) never lands on the block's line.
  base.live = progress;
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
      if (base.live === progress) base.live = undefined;
      progress.stop();
    },
  };
}

/** Where a `styledLine` too wide for the terminal goes on, under its start. */
export const WRAPPED_INDENT = '  ';

export function createPrinter(options: PrinterOptions): Printer {
  const base = printerBase(options);
  const { io, format, quiet, out, err } = base;
  const { wrap } = options;
  const paintByStatus = (status: string, task?: TaskStateFields): string => paintStatus(out, status, task);
  return {
    format,
    color: options.color,
    stderrColor: base.stderrColor,
    quiet,
    get lineWidth() {
      return base.terminalWidth;
    },
    chalk: out,

    list: (rows, columns, json, listOptions) => listRows(base, rows, columns, json, listOptions),
    stream: (columns, toJson, listOptions) => streamRows(base, columns, toJson, listOptions),

    detail(fields, json) {
      if (format === 'json' || format === 'ndjson') streamJson(base, json, format === 'json');
      else writeOut(base, detailText(base, fields));
    },

    json(value) {
      streamJson(base, value, format !== 'ndjson');
    },

    line(text) {
      io.stdout.write(`${oneLine(base, text)}\n`);
    },

    styledLine(parts) {
      const width = base.terminalWidth;
      const text = parts.map((part) => {
        if (typeof part === 'string') return oneLine(base, part);
        if (part.lineBreak === true && width !== undefined) return `\n${WRAPPED_INDENT}`;
        const inert = oneLine(base, part.text);
        if (part.status === true) return paintByStatus(inert);
        if (part.status) return paintByStatus(inert, part.status);
        return part.style ? out[part.style](inert) : inert;
      });
      // On a terminal wrapped at spaces (a line the terminal wraps is cut inside a word); one line each in a pipe.
      const line = text.join('');
      io.stdout.write(`${width === undefined || !wrap ? line : wrap(line, width, WRAPPED_INDENT)}\n`);
    },

    blank() {
      io.stdout.write('\n');
    },

    paintStatus: paintByStatus,

    info(text) {
      if (!quiet) writeErr(base, say(base, '', '', text));
    },
    notice(text, hint) {
      writeErr(base, `${say(base, '', '', text)}${hint === undefined || hint === '' ? '' : say(base, '', '', hint)}`);
    },
    success(text) {
      if (!quiet) writeErr(base, say(base, '✓ ', `${err.green('✓')} `, text));
    },
    warn: (text) => warnLine(base, text),
    error(text, hint) {
      const head = say(base, 'error: ', `${err.red('error:')} `, text);
      writeErr(base, hint === undefined || hint === '' ? head : `${head}${say(base, '', '', hint)}`);
    },

    progress: () => liveProgress(base),
    drawingLive: () => base.live !== undefined,

    to(stdout, stderr = io.stderr) {
      return createPrinter({ ...options, io: { ...io, stdout, stderr } });
    },
  };
}
