/**
 * Fitting a table to the terminal's width, like gh and kubectl: a row never wraps and no word is broken
 * across lines. In order, until the table fits: long free-text columns (`truncate`) give up width down to a soft
 * minimum; `optional` columns are dropped, the highest rank first; free text shrinks further to its hard minimum. Cut
 * text ends in `…`, at a word boundary when one is near. A table that still cannot fit is drawn as it is.
 */

/** Between two columns (table.ts draws two spaces). */
const COLUMN_GAP = 2;
/** Free text keeps at least this much before optional columns are dropped. */
const SOFT_MIN = 24;
/** ... and at least this much (or its header's width) in the last resort. */
const HARD_MIN = 8;

export interface FitColumn {
  /** Widest cell or header, in terminal columns. */
  natural: number;
  /** Header width: a column never gets narrower. */
  header: number;
  /** Free text that may be cut with `…`. */
  truncate: boolean;
  /** Dropped when nothing else helps; higher ranks go first. */
  optional?: number | undefined;
}

export interface Fit {
  /** Indexes of the columns shown, in their order. */
  shown: number[];
  /** Width per column index (columns not shown: their natural width). */
  widths: number[];
}

function total(widths: readonly number[], shown: readonly number[]): number {
  return shown.reduce((sum, i) => sum + (widths[i] ?? 0), 0) + COLUMN_GAP * Math.max(0, shown.length - 1);
}

/** Shrinks the widest free-text columns one step at a time (the fairest cut) until the table fits or none can give. */
function shrink(columns: readonly FitColumn[], shown: readonly number[], budget: number, min: number): number[] {
  const widths = columns.map((c) => c.natural);
  let excess = total(widths, shown) - budget;
  const floor = (i: number) => Math.min(columns[i]?.natural ?? 0, Math.max(min, columns[i]?.header ?? 0));
  while (excess > 0) {
    let widest = -1;
    for (const i of shown) {
      if (!columns[i]?.truncate || (widths[i] ?? 0) <= floor(i)) continue;
      if (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess--;
  }
  return widths;
}

export function fitColumns(columns: readonly FitColumn[], budget: number): Fit {
  let shown = columns.map((_, i) => i);
  let widths = shrink(columns, shown, budget, SOFT_MIN);
  const dropOrder = shown
    .filter((i) => columns[i]?.optional !== undefined)
    .sort((a, b) => (columns[b]?.optional ?? 0) - (columns[a]?.optional ?? 0));
  for (const drop of dropOrder) {
    if (total(widths, shown) <= budget) return { shown, widths };
    shown = shown.filter((i) => i !== drop);
    widths = shrink(columns, shown, budget, SOFT_MIN);
  }
  if (total(widths, shown) <= budget) return { shown, widths };
  return { shown, widths: shrink(columns, shown, budget, HARD_MIN) };
}
