/** `--columns a,b,c` and `--wide`: the flags every table command shares, and the one picking rule. */
import { Option } from 'commander';
import { UsageError } from '../errors.js';
import { toSnakeKey } from './encode.js';
import type { Column } from './printer.js';

/** The name a user writes in `--columns`: the csv header. */
export function columnName<T>(column: Column<T>): string {
  return column.key ?? toSnakeKey(column.header);
}

/** Repeatable and comma-separated; `choices` (static names) are offered by shell completion and shown in help. */
export function columnsOption(choices?: readonly string[]): Option {
  const option = new Option('--columns <names>', 'only these columns, in this order (table, tsv, csv)');
  if (choices) option.choices(choices);
  // After choices(): commander keeps them for help and completion, the parser below accepts a comma list.
  return option.argParser((value: string, previous: string[] | undefined) => [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  ]);
}

export function wideOption(): Option {
  return new Option('--wide', 'every column at full width, whatever the terminal width');
}

/**
 * The columns named in `wanted`, in that order (matched case-insensitively, by csv name or header); all of them when
 * `wanted` is empty. An unknown name is exit 2 with the valid ones.
 */
export function pickColumns<T>(
  columns: ReadonlyArray<Column<T>>,
  wanted: readonly string[] | undefined,
): Array<Column<T>> {
  if (wanted === undefined || wanted.length === 0) return [...columns];
  const byName = new Map<string, Column<T>>();
  for (const column of columns) {
    byName.set(column.header.toLowerCase(), column);
    byName.set(columnName(column).toLowerCase(), column);
  }
  return wanted.map((name) => {
    const column = byName.get(name.toLowerCase());
    if (column === undefined) {
      throw new UsageError(
        `unknown column "${name}"`,
        `Valid columns: ${columns.map((c) => columnName(c)).join(', ')}.`,
      );
    }
    return column;
  });
}
