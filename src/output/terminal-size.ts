/**
 * A terminal's size, the one rule (docs/behaviour.md#output): a stream's `columns` and `rows` are read through here,
 * never directly. A terminal that reports no size (0, or nothing: a pty whose size was never set, as under
 * `script -qc` from a script, some `docker run -t`, `ssh -t` and CI ptys) is of unknown size, laid out and redrawn as
 * 80 columns and 24 rows. No dependencies: the start-up's help path reads it too.
 */

/** The width of a terminal that does not say its own (commander's default too). */
const DEFAULT_COLUMNS = 80;
/** The height of a terminal that does not say its own. */
const DEFAULT_ROWS = 24;

/** The columns a terminal reports, or undefined when it reports none (0 or missing). */
export function knownColumns(columns: number | undefined): number | undefined {
  return columns !== undefined && columns > 0 ? columns : undefined;
}

/** The rows a terminal reports, or undefined when it reports none (0 or missing): the pager is then not used. */
export function knownRows(rows: number | undefined): number | undefined {
  return rows !== undefined && rows > 0 ? rows : undefined;
}

/** The columns to lay out for: the terminal's own, else `fallback` (80). */
export function terminalColumns(columns: number | undefined, fallback = DEFAULT_COLUMNS): number {
  return knownColumns(columns) ?? fallback;
}

/** The rows to redraw within: the terminal's own, else 24. */
export function terminalRows(rows: number | undefined): number {
  return knownRows(rows) ?? DEFAULT_ROWS;
}
