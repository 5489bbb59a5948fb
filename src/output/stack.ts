/**
 * `Label:  value` lines for a terminal: `detail` screens, and the cards a table becomes when even its most important
 * columns do not fit side by side. Values are word-wrapped under their first line, never past the width, and never
 * inside a word or a `taskctl` command: a copy from the screen must be the path, target, id or command itself, so one
 * wider than the value column stands whole on a line of its own (at the line's start when only that fits) and one
 * wider than the line is left to the terminal to wrap (as `ls` lets a long name).
 */
import { longestWord, textWidth, wrapText } from './width.js';

export interface CardField {
  /** Plain label text, without its colon. */
  label: string;
  /** Plain value text; may span lines (nested results). */
  value: string;
  /** Kept whole beside the value's last line, or alone on the next (a timestamp's age: `(8m ago)`). */
  tail?: string | undefined;
  /** Colour for the value, applied to each of its lines after wrapping. */
  paint?: ((text: string) => string) | undefined;
}

export interface CardStyle {
  /** Colour for labels (bold on a colour terminal). */
  label?: (text: string) => string;
}

/**
 * A value starts this far in, on the line below its label, when the labels take more than half the width or a word
 * of the value would not fit beside them (a timestamp or a URL is not broken while a line could hold it).
 */
const NARROW_INDENT = 2;

/** A card's lines, each ending in `\n`, fitted to `width` columns (`width` undefined: nothing wrapped). */
export function card(fields: readonly CardField[], width: number | undefined, style: CardStyle = {}): string {
  const labels = fields.map((field) => `${field.label}:`);
  const pad = labels.reduce((widest, label) => Math.max(widest, textWidth(label)), 0) + 2;
  const paintLabel = style.label ?? ((text: string) => text);
  return fields
    .map((field, i) => {
      const label = labels[i] ?? '';
      const longest = longestWord([field.value, field.tail ?? '']);
      const beside = width === undefined || (pad <= width / 2 && longest <= width - pad);
      // Below its label, a word that fits the line only without the indent starts the line: indented, the terminal
      // would cut its last characters onto a line of their own (one wider than the line is cut whatever is done).
      const under = width !== undefined && longest > width - NARROW_INDENT && longest <= width ? 0 : NARROW_INDENT;
      const lines = valueLines(field, width === undefined ? undefined : width - (beside ? pad : under));
      const head = paintLabel(label);
      const first = beside ? `${head}${' '.repeat(pad - textWidth(label))}${lines[0] ?? ''}` : head;
      const indent = ' '.repeat(beside ? pad : under);
      const rest = (beside ? lines.slice(1) : lines).map((line) => `${indent}${line}`);
      return `${[first, ...rest].map((line) => line.trimEnd()).join('\n')}\n`;
    })
    .join('');
}

/** The value wrapped to `width`, painted line by line, with its tail on the last line when it fits there. */
function valueLines(field: CardField, width: number | undefined): string[] {
  const text =
    width === undefined
      ? field.value
      : wrapText(field.value, width, undefined, { keepCommands: true, cutLongWords: false });
  const lines = text.split('\n');
  const painted = field.paint ? lines.map((line) => (line === '' ? line : (field.paint?.(line) ?? line))) : lines;
  const { tail } = field;
  if (tail === undefined || tail === '') return painted;
  const last = lines[lines.length - 1] ?? '';
  if (width === undefined || textWidth(last) + 1 + textWidth(tail) <= width) {
    painted[painted.length - 1] = `${painted[painted.length - 1] ?? ''} ${tail}`;
    return painted;
  }
  return [...painted, ...wrapText(tail, width).split('\n')];
}

/** Rows as cards, a blank line between two. */
export function cards(
  rows: ReadonlyArray<readonly CardField[]>,
  width: number | undefined,
  style: CardStyle = {},
): string {
  return rows.map((fields) => card(fields, width, style)).join('\n');
}
