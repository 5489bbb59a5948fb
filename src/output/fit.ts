/**
 * Fitting a table to the terminal's width, like gh and kubectl: a row never wraps and no word is broken across lines.
 * In order, until the table fits: long free-text columns give up width down to a soft minimum; the least important
 * columns are dropped (the highest `optional` rank first), a name that yields to one of them cut before it goes;
 * free text shrinks further to its hard minimum. A table that still cannot fit is stacked: one `KEY: value` card per
 * row (output/stack.ts), every column in it.
 */

/** Between two columns (table.ts draws two spaces). */
const COLUMN_GAP = 2;
/** Free text keeps at least this much before optional columns are dropped. */
const SOFT_MIN = 24;
/** ... and at least this much (or its header's width) in the last resort. */
const HARD_MIN = 8;
/** The answer's free text (an error) keeps at least this much, else the rows are stacked: never a word a line. */
const ANSWER_MIN = 18;

export interface FitColumn {
  /** Widest cell or header, in terminal columns. */
  natural: number;
  /** Header width: a column never gets narrower. */
  header: number;
  /** Free text that may be cut with `…` or wrapped within its column. */
  truncate: boolean;
  /** The narrowest the column may get without breaking a word (a wrapped column: its longest word). */
  least?: number | undefined;
  /** Dropped when nothing else helps; higher ranks go first. Columns named in `--columns` have none. */
  optional?: number | undefined;
  /**
   * A name (a task's service) kept whole while the optional columns ranked after this one go, then cut with `…`, down
   * to `least`, before the column of this rank is dropped; whole again once it has gone. Needs `truncate`.
   */
  yieldsTo?: number | undefined;
  /**
   * The answer (an item's result, its error): dropped last, after other free text has shrunk to its hard minimum; as
   * free text it keeps ANSWER_MIN (the rows stack rather than squeeze it), and the last optional one is never dropped.
   */
  answer?: boolean | undefined;
}

export interface Fit {
  /** Indexes of the columns shown, in their order. */
  shown: number[];
  /** Width per column index (columns not shown: their natural width). */
  widths: number[];
  /** Nothing fits as a table: draw every column as a card per row instead. */
  stack: boolean;
}

function total(widths: readonly number[], shown: readonly number[]): number {
  return shown.reduce((sum, i) => sum + (widths[i] ?? 0), 0) + COLUMN_GAP * Math.max(0, shown.length - 1);
}

/**
 * The narrowest a column may become at this stage: free text down to `min` (never below its header or a word), the
 * answer's never below ANSWER_MIN; a name that yields only once it `gives` way, and then down to its least.
 */
function floor(column: FitColumn | undefined, min: number, gives: boolean): number {
  if (!column) return 0;
  if (!column.truncate) return column.natural;
  if (column.yieldsTo !== undefined) {
    return gives ? Math.min(column.natural, Math.max(column.header, column.least ?? 0)) : column.natural;
  }
  const least = Math.max(min, column.answer === true ? ANSWER_MIN : 0);
  return Math.min(column.natural, Math.max(least, column.header, column.least ?? 0));
}

/**
 * Shrinks the widest free-text columns one step at a time (the fairest cut) until the table fits or none can give; a
 * name that yields gives only when the next column to go is one it yields to (`rank` at most its own), or none is left.
 */
function shrink(
  columns: readonly FitColumn[],
  shown: readonly number[],
  budget: number,
  { min, rank }: { min: number; rank: number },
): number[] {
  const widths = columns.map((c) => c.natural);
  let excess = total(widths, shown) - budget;
  while (excess > 0) {
    let widest = -1;
    for (const i of shown) {
      if ((widths[i] ?? 0) <= floor(columns[i], min, (columns[i]?.yieldsTo ?? -1) >= rank)) continue;
      if (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess--;
  }
  return widths;
}

/** Optional columns (the answer's or the others), the first to drop first. */
function dropOrder(columns: readonly FitColumn[], answer: boolean): number[] {
  return columns
    .flatMap((column, i) => (column.optional !== undefined && (column.answer === true) === answer ? [i] : []))
    .sort((a, b) => (columns[b]?.optional ?? 0) - (columns[a]?.optional ?? 0));
}

export function fitColumns(columns: readonly FitColumn[], budget: number): Fit {
  let shown = columns.map((_, i) => i);
  /** The rank of the optional column to go next (a name yielding to it may give way first); 0 once none is left. */
  const rankOf = (i: number | undefined) => (i === undefined ? 0 : (columns[i]?.optional ?? 0));
  const others = dropOrder(columns, false);
  let widths = shrink(columns, shown, budget, { min: SOFT_MIN, rank: rankOf(others[0]) });
  for (const [n, drop] of others.entries()) {
    if (total(widths, shown) <= budget) return { shown, widths, stack: false };
    shown = shown.filter((i) => i !== drop);
    widths = shrink(columns, shown, budget, { min: SOFT_MIN, rank: rankOf(others[n + 1]) });
  }
  if (total(widths, shown) <= budget) return { shown, widths, stack: false };
  const last = { min: HARD_MIN, rank: 0 };
  widths = shrink(columns, shown, budget, last);
  // The answer's columns go only now, when even the shrunk text does not fit beside them; the first stays (the rows
  // stack rather than show an item without its result).
  for (const drop of dropOrder(columns, true).slice(0, -1)) {
    if (total(widths, shown) <= budget) return { shown, widths, stack: false };
    shown = shown.filter((i) => i !== drop);
    widths = shrink(columns, shown, budget, last);
  }
  return { shown, widths, stack: total(widths, shown) > budget };
}

/** The note before a table with columns left out: which, and how to see them. */
export function hiddenNote(headers: readonly string[]): string | undefined {
  if (headers.length === 0) return undefined;
  const count = headers.length === 1 ? '1 column hidden' : `${headers.length} columns hidden`;
  return `${count} (${headers.join(', ')}): --wide or -o tsv`;
}
