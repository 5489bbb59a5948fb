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
  /** Each column's width, for a table drawn in slices (no `head` after the first); default: as wide as its cells. */
  widths?: readonly number[],
): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: [...head],
    chars: NO_BORDERS,
    // Empty style arrays: cli-table3 must not add colours of its own; the Printer decides colour.
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    colAligns: [...aligns],
    ...(widths ? { colWidths: [...widths] } : {}),
    wordWrap: false,
  });
  for (const row of rows) table.push([...row]);
  const lines = table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
  return `${lines.join('\n')}\n`;
}
