/** Borderless, `kubectl`/`gh`-style tables. cli-table3 is loaded here only, on first use (docs/architecture.md#conventions). */

export type Align = 'left' | 'right';

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  // Two spaces between columns: readable, and still splits on whitespace for a quick `awk`.
  middle: '  ',
} as const;

/**
 * Renders a table: `head` and `rows` hold final cell text (already neutralised, possibly coloured — cli-table3
 * measures width without ANSI codes). Returns lines joined by `\n`, with trailing padding trimmed, plus a final `\n`.
 */
export async function renderTable(
  head: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  aligns: readonly Align[],
  /**
   * Each column's width, its widest line's (the caller measures the whole table, so that a table drawn in slices, with
   * no `head` after the first, reads as one).
   */
  widths: readonly number[],
): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const lines = rows.flatMap(lineRows);
  // cli-table3 lays a table out in time that grows with the square of its rows: the lines are given it SLICE_ROWS at a
  // time (a few rows of many lines each are as many rows to it).
  const out: string[] = [];
  for (let start = 0; start === 0 || start < lines.length; start += SLICE_ROWS) {
    const table = new Table({
      head: start === 0 ? [...head] : [],
      chars: NO_BORDERS,
      // Empty style arrays: cli-table3 must not add colours of its own; the Printer decides colour.
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
      colAligns: [...aligns],
      colWidths: [...widths],
      wordWrap: false,
    });
    for (const line of lines.slice(start, start + SLICE_ROWS)) table.push(line);
    const text = table.toString();
    if (text !== '') out.push(...text.split('\n').map((line) => line.trimEnd()));
  }
  return `${out.join('\n')}\n`;
}

/** The rows of one table cli-table3 is given at a time. */
const SLICE_ROWS = 500;

/**
 * A row whose cells hold several lines, as rows of one line each: cli-table3 draws a multi-line cell as these, its
 * lines one under another at the top of the row, the other cells blank below theirs, but measures the whole cell again
 * for each line it draws (a debug label cut from it), which made a cell of n lines cost n³ (a result's list of 2,000
 * e-mail addresses: minutes of CPU, deaf to SIGTERM). Coloured text holds no style across a line break (chalk closes
 * and reopens it at each), so each line stands alone.
 */
function lineRows(row: readonly string[]): string[][] {
  if (!row.some((cell) => cell.includes('\n'))) return [[...row]];
  const cells = row.map((cell) => cell.split('\n'));
  const height = Math.max(...cells.map((lines) => lines.length));
  return Array.from({ length: height }, (_, line) => cells.map((lines) => lines[line] ?? ''));
}
