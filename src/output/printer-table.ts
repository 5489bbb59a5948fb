/**
 * The human formats of the printer: rows as a borderless table fitted to the terminal (output/fit.ts), and one
 * object (`detail`) as aligned `Label:  value` lines, or as one tsv or csv record.
 */
import { cellText, csvRecord, toSnakeKey, tsvRecord } from './encode.js';
import { humanLabel } from './labels.js';
import { formatCount } from './numbers.js';
import { humanCell, message, say, tableText, warnLine, writeErr, writeOut, type PrinterBase } from './printer-base.js';
import type { Column, DetailField, ListOptions } from './printer-types.js';
import type { CardField } from './stack.js';
import { neutralise } from '../lib/sanitize.js';
import { parseTimestamp } from '../lib/timestamp.js';
import { relativeTime } from './times.js';

/**
 * Rows drawn in a table; past this the table shows the first rows and says how to get all of them. cli-table3's layout
 * is quadratic in the rows (8,000 rows take 4 s, 150,000 overflow its stack), and a longer table is no read anyway.
 */
export const TABLE_MAX_ROWS = 1000;

/** Rows a table draws at a time (one cli-table3 layout), at the widths of the whole table. */
const TABLE_SLICE_ROWS = 100;

/** The columns shown (indexes into all columns) and each column's width. */
interface Fit {
  shown: number[];
  widths: number[];
  /** Not even the most important columns fit side by side: one `KEY: value` card per row, this wide. */
  stack: boolean;
  /** The terminal's width the fit was made for (read once); undefined off a terminal. */
  width: number | undefined;
}

type TextWidth = (text: string) => number;

/** Which columns fit the terminal, and how wide: every column at full width off a terminal or with `--wide`. */
async function fitTable<T>(
  base: PrinterBase,
  columns: ReadonlyArray<Column<T>>,
  heads: readonly string[],
  texts: ReadonlyArray<readonly string[]>,
  textWidth: TextWidth,
  list: ListOptions | undefined,
): Promise<Fit> {
  const widths = columns.map((_, i) =>
    texts.reduce((widest, cells) => Math.max(widest, textWidth(cells[i] ?? '')), textWidth(heads[i] ?? '')),
  );
  // Read once: the terminal's width now (it may have changed since the run began), for the whole fit.
  const terminalWidth = base.terminalWidth;
  if (terminalWidth === undefined || list?.wide === true) {
    return { shown: columns.map((_, i) => i), widths, stack: false, width: terminalWidth };
  }
  const [{ fitColumns }, { leastCellWidth }] = await Promise.all([import('./fit.js'), import('./width.js')]);
  const fit = fitColumns(
    columns.map((c, i) => ({
      natural: widths[i] ?? 0,
      header: textWidth(heads[i] ?? ''),
      truncate: c.truncate === true || c.wrap === true,
      // A path keeps room for `…/` and its file name: cut at its start, never into the name.
      least:
        c.wrap === true
          ? leastCellWidth(texts.map((cells) => cells[i] ?? ''))
          : c.path === true
            ? Math.max(0, ...texts.map((cells) => textWidth((cells[i] ?? '').split('/').pop() ?? '') + 2))
            : c.yieldsTo?.least,
      yieldsTo: c.yieldsTo?.rank,
      optional: list?.chosen === true ? undefined : c.optional,
      answer: c.answer,
    })),
    terminalWidth,
  );
  return { ...fit, width: terminalWidth };
}

/** Writes the rows, each drawn by `draw`, a slice at a time at the widths of the whole table, so it reads as one. */
async function writeTable<T>(
  base: PrinterBase,
  head: string[],
  rows: readonly T[],
  draw: (row: T, r: number) => string[],
  aligns: Array<'left' | 'right'>,
  textWidth: TextWidth,
): Promise<void> {
  const { renderTable } = await import('./table.js');
  // Drawn a slice of rows at a time, each slice at the widths the whole table has, so that it reads as one table
  // while cli-table3's copies of the text stay a slice's worth (1,000 rows of 60 KB values took 430 MB at once).
  const columnWidths = head.map((text) => textWidth(text));
  rows.forEach((row, r) => {
    draw(row, r).forEach((cell, k) => (columnWidths[k] = Math.max(columnWidths[k] ?? 0, textWidth(cell))));
  });
  for (let start = 0; start === 0 || start < rows.length; start += TABLE_SLICE_ROWS) {
    const slice = rows.slice(start, start + TABLE_SLICE_ROWS).map((row, r) => draw(row, start + r));
    writeOut(base, await renderTable(start === 0 ? head : [], slice, aligns, columnWidths));
  }
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

/** Rows as a table on stdout (at most TABLE_MAX_ROWS of `total`, saying so); no rows: the empty message on stderr. */
export async function renderRowsTable<T>(
  base: PrinterBase,
  allRows: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  list: ListOptions | undefined,
  total = allRows.length,
): Promise<void> {
  const { options, out, emptyCell } = base;
  const allColumns = list?.chosen === true ? columns : columns.filter((column) => column.machine !== true);
  if (total === 0) {
    const empty = list?.emptyMessage ?? 'No results.';
    if (!base.quiet && empty !== '') writeErr(base, `${message(base, empty)}\n`);
    return;
  }
  const rows = allRows.length > TABLE_MAX_ROWS ? allRows.slice(0, TABLE_MAX_ROWS) : allRows;
  const { blockWidth: textWidth, truncatePathStart, truncateText, wrapCell } = await import('./width.js');
  const heads = allColumns.map((c) => neutralise(c.header.toUpperCase()));
  const texts = rows.map((row) => allColumns.map((c) => tableText(base, c, row)));
  const fit = await fitTable(base, allColumns, heads, texts, textWidth, list);
  /** Past TABLE_MAX_ROWS: says how to get every row. */
  const cut = () => {
    if (total <= rows.length) return;
    warnLine(
      base,
      `showing the first ${formatCount(rows.length)} of ${formatCount(total)} rows; use -o tsv or -o csv to get them all`,
    );
  };
  if (fit.stack && fit.width !== undefined) {
    // Not even the most important columns fit side by side: a `KEY: value` card per row, every column in it, at the
    // width the fit was made for.
    const { cards } = await import('./stack.js');
    const fields = rows.map((row, r) => rowCard(row, texts[r] ?? [], allColumns, heads, options.color, emptyCell));
    writeOut(base, cards(fields, fit.width, { label: (text) => (options.color ? out.bold(text) : text) }));
    cut();
    return;
  }
  const head = fit.shown.map((i) => (options.color ? out.bold(heads[i] ?? '') : (heads[i] ?? '')));
  const aligns = fit.shown.map((i) => allColumns[i]?.align ?? 'left');
  const draw = (row: T, r: number): string[] =>
    fit.shown.map((i) => {
      const column = allColumns[i];
      const cell = texts[r]?.[i] ?? '';
      const width = fit.widths[i] ?? 0;
      const text = column?.wrap
        ? wrapCell(cell, width)
        : column?.path
          ? truncatePathStart(cell, width)
          : truncateText(cell, width);
      if (text === '' || column === undefined) return emptyCell;
      return options.color && column.style ? column.style(text, row) : text;
    });
  // The note on hidden columns comes first, for every table (docs/behaviour.md#column-orders): read before the rows,
  // and on a pager's first screen rather than after it.
  const { hiddenNote } = await import('./fit.js');
  const note = hiddenNote(heads.filter((_, i) => !fit.shown.includes(i)));
  if (note !== undefined && !base.quiet) writeErr(base, say(base, '', '', note));
  await writeTable(base, head, rows, draw, aligns, textWidth);
  cut();
}

/** One object as table lines (`Label:  value`, timestamps followed by their age), or one tsv or csv record. */
export function detailText(base: PrinterBase, fields: readonly DetailField[]): string {
  const { redact, options, out, emptyCell } = base;
  const values = fields.map(([, value]) => redact(cellText(value)));
  switch (base.format) {
    case 'json':
    case 'ndjson':
      throw new Error('detailText: JSON is streamed');
    case 'tsv':
      return tsvRecord(values);
    case 'csv':
      return csvRecord(fields.map(([label]) => toSnakeKey(label))) + csvRecord(values);
    case 'table': {
      const shownValues = fields.map(([label, value]) => redact(humanCell(value, label)));
      const shown = fields.map(([label, , style], i): CardField => {
        const text = neutralise(shownValues[i] ?? '');
        const ms = text === '' ? undefined : parseTimestamp(text);
        return {
          label: neutralise(humanLabel(label)),
          value: text === '' ? emptyCell : text,
          tail: ms === undefined ? undefined : `(${relativeTime(ms, base.now())})`,
          paint: options.color && style && text !== '' ? style : undefined,
        };
      });
      const bold = (label: string) => (options.color ? out.bold(label) : label);
      // On a terminal wrapped to its width; elsewhere (`-o table > file`) one line a field.
      const cardWidth = base.terminalWidth;
      if (options.card && cardWidth !== undefined) return options.card(shown, cardWidth, { label: bold });
      const width = Math.max(...shown.map((field) => field.label.length));
      const value = (field: CardField) =>
        `${field.paint ? field.paint(field.value) : field.value}${field.tail ? ` ${field.tail}` : ''}`;
      return shown
        .map((field) => `${bold(`${field.label}:`)}${' '.repeat(width - field.label.length + 2)}${value(field)}\n`)
        .join('');
    }
  }
}
