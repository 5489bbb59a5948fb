/**
 * Rows in every format: `listRows` prints them all at once, `streamRows` as they come (a page at a time), keeping
 * JSON one valid array and a table whole (its widths depend on every row, so it is drawn at the end).
 */
import { chunkedWriter, csvRecord, tsvRecord, writeJson } from './encode.js';
import { fieldsOf, jsonOut, keysOf, streamJson, streamRecords, writeOut, type PrinterBase } from './printer-base.js';
import { renderRowsTable, TABLE_MAX_ROWS } from './printer-table.js';
import type { Column, ListOptions, RowStream } from './printer-types.js';

/** One record of a line format (tsv, csv, ndjson), newline included. */
function recordOf<T>(
  base: PrinterBase,
  columns: ReadonlyArray<Column<T>>,
  toJson: (row: T) => unknown,
): (row: T) => string {
  switch (base.format) {
    case 'tsv':
      return (row) => tsvRecord(fieldsOf(base, row, columns));
    case 'csv':
      return (row) => csvRecord(fieldsOf(base, row, columns));
    case 'ndjson':
      return (row) => jsonOut(base, toJson(row), false);
    default:
      throw new Error(`recordOf: ${base.format} is not a line format`);
  }
}

export async function listRows<T>(
  base: PrinterBase,
  rows: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  json?: unknown,
  listOptions?: ListOptions,
): Promise<void> {
  switch (base.format) {
    case 'table':
      await renderRowsTable(base, rows, columns, listOptions);
      return;
    case 'json':
      streamJson(base, json ?? rows, true);
      return;
    case 'ndjson': {
      const values: readonly unknown[] = Array.isArray(json) ? json : rows;
      streamRecords(base, values, (value) => jsonOut(base, value, false));
      return;
    }
    case 'csv':
      streamRecords(
        base,
        rows,
        recordOf(base, columns, (row) => row),
        csvRecord(keysOf(columns)),
      );
      return;
    case 'tsv':
      streamRecords(
        base,
        rows,
        recordOf(base, columns, (row) => row),
      );
      return;
  }
}

/**
 * Exactly JSON.stringify(all, null, 2), written row by row: valid JSON without holding every row, or even one page's
 * text. `started`: rows were written before (the array is open).
 */
function writeJsonRows<T>(base: PrinterBase, rows: readonly T[], asJson: (row: T) => unknown, started: boolean): void {
  const out = chunkedWriter((text) => writeOut(base, text));
  rows.forEach((row, index) => {
    out.write(index === 0 && !started ? '[\n  ' : ',\n  ');
    writeJson(asJson(row), true, base.redact, out.write, 0, '  ');
  });
  out.flush();
}

export function streamRows<T>(
  base: PrinterBase,
  columns: ReadonlyArray<Column<T>>,
  toJson?: (row: T) => unknown,
  listOptions?: ListOptions,
): RowStream<T> {
  const { format } = base;
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
        writeJsonRows(base, rows, asJson, started);
        started = true;
        return;
      }
      const head = format === 'csv' && !started ? csvRecord(keysOf(columns)) : '';
      started = true;
      streamRecords(base, rows, recordOf(base, columns, asJson), head);
    },
    async abort() {
      if (ended) return;
      ended = true;
      if (format === 'table' && bufferedTotal > 0)
        await renderRowsTable(base, buffered, columns, listOptions, bufferedTotal);
    },
    async end() {
      if (ended) return;
      ended = true;
      if (format === 'table') {
        await renderRowsTable(base, buffered, columns, listOptions, bufferedTotal);
        return;
      }
      if (format === 'json') {
        writeOut(base, started ? '\n]\n' : '[]\n');
        return;
      }
      // An empty CSV still gets its header, so a reader sees the columns.
      if (format === 'csv' && !started) writeOut(base, csvRecord(keysOf(columns)));
    },
  };
}
