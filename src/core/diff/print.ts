/**
 * What `taskctl diff` prints. For people: the summary first ("37 of 10,000 items changed: 12 became available, …"),
 * then a table of item, field, before and after: at most the printer's table rows, sorted by item. For scripts: one
 * record per change (target, field, before, after, the task ids, added/removed/changed) streamed in ndjson, csv, tsv or json as the walk
 * finds them (in the sort's order, by a hash of the target), values with their JSON types. `-q`: nothing.
 */
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { humanValue } from '../../output/flatten.js';
import { TABLE_MAX_ROWS, type Column, type Printer, type RowStream } from '../../output/printer.js';
import type { Change, DiffTally } from './compare.js';
import { valueOf, type CompareMode } from './values.js';

interface ChangeRow {
  change: Change;
  mode: CompareMode;
}

/** Rows handed to the printer at a time. */
const BATCH = 1_000;

function before(row: ChangeRow): unknown {
  return valueOf(row.change.before);
}
function after(row: ChangeRow): unknown {
  return valueOf(row.change.after);
}

/** A value in a csv/tsv cell: text as it is, other JSON values as their compact JSON (`true`, `3`, `["a"]`). */
function cell(text: string | undefined): string {
  if (text === undefined) return '';
  return text.startsWith('"') ? (JSON.parse(text) as string) : text;
}

/** A value for people: added and removed items say so; nested values as `key: value` lines. */
function shown(row: ChangeRow, side: 'before' | 'after'): string {
  const { kind } = row.change;
  if (kind !== undefined) return (kind === 'added') === (side === 'after') ? 'present' : 'absent';
  return humanValue(side === 'before' ? before(row) : after(row));
}

/** `added`, `removed` (an item on one side only) or `changed` (a field's value): said even where no task id tells it. */
function changeWord(row: ChangeRow): 'added' | 'removed' | 'changed' {
  return row.change.kind ?? 'changed';
}

const MACHINE_COLUMNS: ReadonlyArray<Column<ChangeRow>> = [
  { header: 'target', value: (row) => row.change.target },
  { header: 'field', value: (row) => row.change.field },
  { header: 'before', value: (row) => cell(row.change.before) },
  { header: 'after', value: (row) => cell(row.change.after) },
  { header: 'before_task', value: (row) => row.change.beforeTask },
  { header: 'after_task', value: (row) => row.change.afterTask },
  { header: 'change', value: changeWord },
];

const TABLE_COLUMNS: ReadonlyArray<Column<ChangeRow>> = [
  { header: 'item', value: (row) => row.change.target },
  { header: 'field', value: (row) => row.change.field },
  { header: 'before', value: (row) => shown(row, 'before'), wrap: true },
  { header: 'after', value: (row) => shown(row, 'after'), wrap: true },
];

function record(row: ChangeRow): Record<string, unknown> {
  const { change } = row;
  return {
    target: change.target,
    field: change.field,
    before: before(row),
    after: after(row),
    before_task: change.beforeTask,
    after_task: change.afterTask,
    change: changeWord(row),
  };
}

/** Changes written as they come, a batch at a time (for people: the first rows kept); `end` closes the output. */
export class ChangeOutput {
  private readonly out: RowStream<ChangeRow> | undefined;
  private batch: ChangeRow[] = [];
  /** For people: the rows the table shows, and how many changes there were. */
  private readonly table: ChangeRow[] = [];
  private changes = 0;

  /** `fit`: the summary wrapped to the terminal it is shown on (output/width.ts), unchanged for a pipe. */
  constructor(
    private readonly printer: Printer,
    private readonly mode: CompareMode,
    private readonly fit: (text: string) => string = (text) => text,
    /** `-q` alone (an explicit format wins over it: docs/behaviour.md#quiet): nothing is printed. */
    private readonly silent = printer.quiet,
  ) {
    if (!silent && printer.format !== 'table') this.out = printer.stream(MACHINE_COLUMNS, record);
  }

  readonly write = (change: Change): void => {
    if (this.silent) return;
    this.changes++;
    if (this.out === undefined) {
      if (this.table.length < TABLE_MAX_ROWS) this.table.push({ change, mode: this.mode });
      return;
    }
    this.batch.push({ change, mode: this.mode });
    if (this.batch.length >= BATCH) this.flush();
  };

  /** Ends the output: for people the summary comes first, then the table. */
  async end(tally: DiffTally): Promise<void> {
    if (this.silent) return;
    if (this.out !== undefined) {
      this.flush();
      await this.out.end();
      return;
    }
    if (tally.changed === 0) return;
    for (const line of this.fit(summaryText(tally)).split('\n')) this.printer.line(line);
    this.printer.blank();
    const rows = this.table.sort((x, y) => compareText(x.change.target, y.change.target));
    await this.printer.list(rows, TABLE_COLUMNS);
    if (this.changes > rows.length)
      this.printer.warn(
        `showing ${formatCount(rows.length)} of ${formatCount(this.changes)} changes; use -o csv or -o ndjson to get them all`,
      );
  }

  /** Stops part-way (an error or Ctrl-C): what was written stays as it is. */
  async abort(): Promise<void> {
    this.batch = [];
    await this.out?.abort();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    this.out?.write(this.batch);
    this.batch = [];
  }
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `un` + a one-word field (`available` → `unavailable`), else `not` + the field. */
function negated(field: string): string {
  return /^[a-z]+$/.test(field) ? `un${field}` : `not ${field}`;
}

/** "37 of 10,000 items changed: 12 became available, 3 became unavailable, 2 added, 1 removed, 5 changed status". */
export function summaryText(tally: DiffTally): string {
  const parts: Array<[count: number, text: string]> = [];
  for (const [field, flip] of tally.flips) {
    if (flip.up > 0) parts.push([flip.up, `${formatCount(flip.up)} became ${field}`]);
    if (flip.down > 0) parts.push([flip.down, `${formatCount(flip.down)} became ${negated(field)}`]);
  }
  parts.sort((x, y) => y[0] - x[0]);
  const rest: string[] = [];
  if (tally.added > 0) rest.push(`${formatCount(tally.added)} added`);
  if (tally.removed > 0) rest.push(`${formatCount(tally.removed)} removed`);
  const fields = [...tally.fieldChanges].sort((x, y) => y[1] - x[1]);
  for (const [field, count] of fields) rest.push(`${formatCount(count)} changed ${field}`);
  const all = [...parts.map(([, text]) => text), ...rest];
  return `${formatCount(tally.changed)} of ${counted(tally.items, 'item')} changed: ${all.join(', ')}`;
}
