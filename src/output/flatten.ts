/**
 * Item results as records for `show -o csv|tsv|ndjson` (docs/behaviour.md#output). Result shapes differ per service and are mostly
 * unspecified (docs/openapi.json shows only `{available}`), so nothing here assumes one: `data` may be any JSON value.
 *
 * - csv/tsv (`FlatRecord`): `task` (the task's id), `target`, `status`, the data fields flattened (nested keys dotted, lists of scalars joined
 *   with `;`, other lists as compact JSON; data that is not an object is compact JSON in a `data` column), `error`.
 *   The data columns are the union of the keys over *all* the tasks' items in first-seen order, so a filter never
 *   moves a column; `error` is always last.
 * - ndjson (`taskItemRecord`): the same names, with the server's JSON values as they came (`false` stays `false`, lists
 *   stay lists), plus every other field the item carried.
 *
 * Work is linear in the items and bounded in depth: keys are dotted at most FLATTEN_DEPTH levels down; below that the
 * rest is compact JSON in one cell, whole: cut with a `…` marker only past MAX_JSON_DEPTH levels, as `-o json` is
 * (an answer of the service holds at most 256). A terminal's readable text stops at CELL_JSON_DEPTH.
 */
import { errorText } from '../lib/item-error.js';
import { ExactInteger } from '../lib/exact-json.js';
import { cellJson, MAX_JSON_DEPTH } from './encode.js';
import { formatCount } from './numbers.js';
import type { Column } from './printer.js';

export type FlatRecord = Record<string, string>;

/** A row's data as a person reads it on a terminal (multi-line `key: value` text), by column; not a csv field. */
const HUMAN = Symbol('human');
type HumanRow = FlatRecord & { [HUMAN]?: Record<string, string> };

/**
 * A result value as a person reads it (no raw JSON in a terminal table): scalars as text; a list one element
 * a line; an object as `key: value` pairs (on its own lines at the top, `key: value, key: value` inside a list),
 * nested values in parentheses. Bounded like the rest: below CELL_JSON_DEPTH levels the rest is `…`.
 */
export function humanValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return '';
  if (isScalar(value)) return scalarText(value);
  if (depth >= CELL_JSON_DEPTH) return '…';
  if (Array.isArray(value)) return shownLines(value, (element) => inline(element, depth + 1));
  if (isPlainObject(value)) return shownLines(Object.keys(value), (key) => `${key}: ${inline(value[key], depth + 1)}`);
  return cellJson(value, CELL_JSON_DEPTH); // not JSON data (a bigint, a function): never reached from a response
}

/**
 * What a terminal's cell shows of a list or an object: its first CELL_LINES elements (or keys), one a line, then how
 * many more and where to see them all. A person reads a few; a result's list of 2,000,000 elements made a table of as
 * many lines (minutes, and memory past the bound). csv, tsv, json and ndjson keep every element.
 */
function shownLines<T>(elements: readonly T[], line: (element: T) => string): string {
  return shownParts(elements, line, '\n');
}

function shownParts<T>(elements: readonly T[], part: (element: T) => string, apart: string): string {
  const shown = elements.slice(0, CELL_LINES).map(part);
  const more = elements.length - shown.length;
  if (more > 0) shown.push(`… ${formatCount(more)} more (-o json shows all)`);
  return shown.join(apart);
}

/** The elements (or keys) of a list (or an object) a terminal's cell shows. */
const CELL_LINES = 50;

/** One line: `a: 1, b: 2`, lists as `x; y`, nested values in parentheses. */
function inline(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '-';
  if (isScalar(value)) return scalarText(value);
  if (depth >= CELL_JSON_DEPTH) return '…';
  const nested = (inner: unknown) => (isScalar(inner) ? inline(inner, depth + 1) : `(${inline(inner, depth + 1)})`);
  if (Array.isArray(value)) return shownParts(value, nested, '; ');
  if (isPlainObject(value)) return shownParts(Object.keys(value), (key) => `${key}: ${nested(value[key])}`, ', ');
  return cellJson(value, CELL_JSON_DEPTH);
}

/** A row's readable text for a column: its own human field (never one found on a prototype), else the flat field. */
function humanField(row: HumanRow, key: string): string {
  const human = row[HUMAN];
  return human !== undefined && Object.hasOwn(human, key) ? (human[key] ?? '') : field(row, key);
}

/**
 * The data fields of an item as people read them, keyed like the flattened columns that hold them: every list (at the
 * top or inside an object) and every value written as JSON in its flat cell gets its readable form; scalars read the
 * same in both.
 */
function humanFields(data: unknown): Record<string, string> | undefined {
  if (!isPlainObject(data)) return undefined;
  const out: Record<string, string> = {};
  walkData(data, (key, value, cut) => {
    if (cut || Array.isArray(value)) setField(out, key, humanValue(value));
  });
  return out;
}

/** Levels of dotted keys (`a.b.c`) before the rest of a value is written as JSON in one cell. */
export const FLATTEN_DEPTH = 16;
/** Levels of nesting a terminal's readable cell shows before it is cut with `…` (csv and tsv cells are whole). */
const CELL_JSON_DEPTH = 16;

/** Column names of the item itself: a data field with one of these names is written as `data.<name>`. */
const RESERVED = new Set(['task', 'target', 'status', 'error', 'data']);

type Scalar = string | number | boolean | ExactInteger | null | undefined;

function isScalar(value: unknown): value is Scalar {
  return (
    value === null ||
    value === undefined ||
    ['string', 'number', 'boolean'].includes(typeof value) ||
    value instanceof ExactInteger
  );
}

function scalarText(value: Scalar): string {
  if (value instanceof ExactInteger) return value.digits;
  return value === null || value === undefined ? '' : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ExactInteger);
}

/** Scalars joined with `;` read well in a spreadsheet; JSON only when `;` would be ambiguous or items are objects. */
function arrayText(values: readonly unknown[]): string {
  if (values.every((v) => isScalar(v) && !(typeof v === 'string' && v.includes(';')))) {
    return values.map((v) => scalarText(v as Scalar)).join(';');
  }
  return cellJson(values, MAX_JSON_DEPTH);
}

function dataKey(name: string): string {
  return RESERVED.has(name) ? `data.${name}` : name;
}

/**
 * Sets an own field, whatever its name: a plain assignment of `__proto__` (a key a server may send) would replace the
 * object's prototype instead and drop the field.
 */
function setField<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value; // the common case stays a plain (fast) assignment
}

/**
 * `{available: true, whois: {registrar: "X"}, emails: ["a", "b"], records: [{...}]}` →
 * `{available: "true", "whois.registrar": "X", emails: "a;b", records: "[{...}]"}`; `[1, 2]` or `"text"` →
 * `{data: "[1,2]"}` / `{data: "\"text\""}`; null → `{}`. An empty nested object keeps its key with an empty value.
 */
export function flattenData(data: unknown): FlatRecord {
  const out: FlatRecord = {};
  if (data === null || data === undefined) return out;
  if (!isPlainObject(data)) {
    out.data = cellJson(data, MAX_JSON_DEPTH);
    return out;
  }
  walkData(data, (key, value, cut) => setField(out, key, cut ? cellJson(value, MAX_JSON_DEPTH) : flatText(value)));
  return out;
}

/**
 * Each field of an object's data by its flattened key (`whois.registrar`), the one walk both forms take: a scalar, a
 * list, an empty object, or (`cut`) an object FLATTEN_DEPTH levels down, whose rest is one cell.
 */
function walkData(data: Record<string, unknown>, each: (key: string, value: unknown, cut: boolean) => void): void {
  const visit = (value: unknown, key: string, depth: number) => {
    if (!isPlainObject(value) || depth >= FLATTEN_DEPTH) {
      each(key, value, isPlainObject(value));
      return;
    }
    const names = Object.keys(value);
    if (names.length === 0) each(key, value, false);
    for (const name of names) visit(value[name], `${key}.${name}`, depth + 1);
  };
  for (const name of Object.keys(data)) visit(data[name], dataKey(name), 1);
}

/** A field's csv/tsv text: scalars as text, lists by `arrayText`, an empty object empty, anything else compact JSON. */
function flatText(value: unknown): string {
  if (Array.isArray(value)) return arrayText(value);
  if (isPlainObject(value)) return '';
  return isScalar(value) ? scalarText(value) : cellJson(value, MAX_JSON_DEPTH);
}

export interface ItemLike {
  target: string;
  status: string;
  data?: unknown;
  /** Any JSON value (the contract does not name it): read through `errorText`. */
  error?: unknown;
}

/** One item's csv/tsv record: target, status, its data fields, error (its text, lib/item-error.ts; empty when none). */
function flattenItem(item: ItemLike): FlatRecord {
  return { target: item.target, status: item.status, ...flattenData(item.data), error: errorText(item.error) ?? '' };
}

/**
 * One item's ndjson object: target, status, the data fields with their JSON values (non-object data as `data`),
 * `error` (null when none), then every other field the server sent (`item.<name>` if the name is taken).
 */
export function itemRecord(item: ItemLike): Record<string, unknown> {
  const { target, status, data, error, ...rest } = item as ItemLike & Record<string, unknown>;
  const out: Record<string, unknown> = { target, status };
  if (isPlainObject(data)) for (const name of Object.keys(data)) setField(out, dataKey(name), data[name]);
  else if (data !== null && data !== undefined) out.data = data;
  out.error = error ?? null;
  for (const name of Object.keys(rest)) setField(out, Object.hasOwn(out, name) ? `item.${name}` : name, rest[name]);
  return out;
}

/** A record's own field, or '' (a data field named `toString` must not find Object.prototype's in a row without it). */
function field(row: FlatRecord, key: string): string {
  return Object.hasOwn(row, key) ? (row[key] ?? '') : '';
}

/** The union of the records' keys, in first-seen order: stable columns for rows with differing shapes. */
export function collectColumns(rows: readonly FlatRecord[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

export interface ItemExport {
  /** The csv header: `target`, `status`, the data columns, `error`. */
  keys: string[];
  /** csv/tsv/table rows of the kept items. */
  rows: FlatRecord[];
  /** Printer columns over `rows`, with `key` = header = the field name (no snake-casing of dotted names). */
  columns: Array<Column<FlatRecord>>;
  /** ndjson objects of the kept items. */
  records: Array<Record<string, unknown>>;
}

/**
 * Rows and columns for `show`: the columns come from every item of the task (`all`), the rows only from those `keep`
 * accepts, so `--items-status` never changes the column set.
 */
export function exportItems(all: readonly ItemLike[], keep: (item: ItemLike) => boolean = () => true): ItemExport {
  const flat = all.map(flattenItem);
  const dataKeys = collectColumns(flat).filter((key) => key !== 'target' && key !== 'status' && key !== 'error');
  const keys = ['target', 'status', ...dataKeys, 'error'];
  const rows: FlatRecord[] = [];
  const records: Array<Record<string, unknown>> = [];
  all.forEach((item, index) => {
    const row = flat[index];
    if (row === undefined || !keep(item)) return;
    rows.push(row);
    records.push(itemRecord(item));
  });
  const columns = keys.map((key): Column<FlatRecord> => ({ header: key, key, value: (row) => field(row, key) }));
  return { keys, rows, columns, records };
}

/** A task as `show` exports it: its id and items. */
export interface TaskItemsLike {
  id: number;
  items?: readonly ItemLike[] | undefined;
}

/** The fields an item record gives a place of its own; any other field the server sent follows them. */
const ITEM_FIELDS = new Set(['target', 'status', 'data', 'error']);

/**
 * One item's ndjson object with its task's id first: `itemRecord`'s fields after it, the item's own field `task`
 * (if it has one) as `item.task`. The one place such a record is made (`show`, `show --job`); an item with nothing
 * beyond target, status, data and error, the common case, is made in one object, without `itemRecord`'s copies.
 */
export function taskItemRecord(taskId: number, item: ItemLike): Record<string, unknown> {
  for (const name in item) if (!ITEM_FIELDS.has(name) && Object.hasOwn(item, name)) return renamedRecord(taskId, item);
  const out: Record<string, unknown> = { task: taskId, target: item.target, status: item.status };
  const data = item.data;
  if (isPlainObject(data)) for (const name of Object.keys(data)) setField(out, dataKey(name), data[name]);
  else if (data !== null && data !== undefined) out.data = data;
  out.error = item.error ?? null;
  return out;
}

/** `itemRecord` behind the task id, its `task` renamed: an item with fields of its own beyond the four. */
function renamedRecord(taskId: number, item: ItemLike): Record<string, unknown> {
  const out: Record<string, unknown> = { task: taskId };
  const record = itemRecord(item);
  for (const name of Object.keys(record)) setField(out, name === 'task' ? 'item.task' : name, record[name]);
  return out;
}

/**
 * ndjson rows of one command share one shape: every record gets every field any record has, in first-seen order,
 * `null` where its item had none, so a reader (jq, a typed loader) never meets a missing key. `add` each record
 * first (it says how many keys the record has), then `fill` each: a record with as many keys as the union is its own.
 */
export class RecordShape {
  private readonly order = new Set<string>();
  /** The keys of the record added last: records of one shape in a row add their keys once. */
  private last: readonly string[] = [];

  add(record: Record<string, unknown>): number {
    const keys = Object.keys(record);
    if (!sameKeys(keys, this.last)) {
      for (const key of keys) this.order.add(key);
      this.last = keys;
    }
    return keys.length;
  }

  /** Whether a record of `width` keys already has every one. */
  whole(width: number): boolean {
    return width === this.order.size;
  }

  fill(record: Record<string, unknown>, width = Object.keys(record).length): Record<string, unknown> {
    if (this.whole(width)) return record;
    const full: Record<string, unknown> = {};
    for (const key of this.order) setField(full, key, Object.hasOwn(record, key) ? record[key] : null);
    return full;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `show <id...>`: every task's items in one export, a `task` column first; the data columns are the union
 * over all the tasks' items (first-seen order), so the columns are the same whatever the ids and the filter.
 */
export function exportTaskItems(
  tasks: readonly TaskItemsLike[],
  keep: (item: ItemLike, task: TaskItemsLike) => boolean = () => true,
): ItemExport {
  const rows: FlatRecord[] = [];
  const records: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  const shape = new RecordShape();
  for (const task of tasks) {
    for (const item of task.items ?? []) {
      const flat = flattenItem(item);
      for (const key of Object.keys(flat)) seen.add(key);
      if (!keep(item, task)) continue;
      const row: HumanRow = { task: String(task.id), ...flat };
      const human = humanFields(item.data);
      if (human) row[HUMAN] = human;
      rows.push(row);
      const record = taskItemRecord(task.id, item);
      shape.add(record);
      records.push(record);
    }
  }
  const dataKeys = [...seen].filter((key) => key !== 'target' && key !== 'status' && key !== 'error');
  const keys = ['task', 'target', 'status', ...dataKeys, 'error'];
  return { keys, rows, columns: taskItemColumns(keys), records: records.map((record) => shape.fill(record)) };
}

/** The export's columns (`task`, `target`, `status`, the data fields in first-seen order, `error`): a pass that keeps nothing. */
export function taskItemKeys(tasks: readonly TaskItemsLike[]): string[] {
  const seen = new Set<string>();
  for (const task of tasks)
    for (const item of task.items ?? []) for (const key of Object.keys(flattenItem(item))) seen.add(key);
  const dataKeys = [...seen].filter((key) => key !== 'target' && key !== 'status' && key !== 'error');
  return ['task', 'target', 'status', ...dataKeys, 'error'];
}

/**
 * The kept items' rows and ndjson records, `size` items at a time, with the same columns and record shape as
 * `exportTaskItems`: a 1,000,000-item task is printed slice by slice instead of as one array of rows and another of
 * records. The record shape (every key of every kept record, in first-seen order) takes a first pass.
 */
export function* taskItemSlices(
  tasks: readonly TaskItemsLike[],
  keep: (item: ItemLike, task: TaskItemsLike) => boolean,
  size: number,
): Generator<{ rows: FlatRecord[]; records: () => Array<Record<string, unknown>> }> {
  const shape = new RecordShape();
  for (const task of tasks)
    for (const item of task.items ?? []) if (keep(item, task)) shape.add(taskItemRecord(task.id, item));
  for (const task of tasks) {
    let rows: FlatRecord[] = [];
    let items: ItemLike[] = [];
    const slice = () => {
      const kept = items;
      return { rows, records: () => kept.map((item) => shape.fill(taskItemRecord(task.id, item))) };
    };
    for (const item of task.items ?? []) {
      if (!keep(item, task)) continue;
      const row: HumanRow = { task: String(task.id), ...flattenItem(item) };
      const human = humanFields(item.data);
      if (human) row[HUMAN] = human;
      rows.push(row);
      items.push(item);
      if (rows.length >= size) {
        yield slice();
        rows = [];
        items = [];
      }
    }
    if (rows.length > 0) yield slice();
  }
}

/**
 * Printer columns over the export's rows. On a narrow terminal the result fields after the first are left out first, the
 * last first (the note names them); task, target, status, the first result field and error stay, or the rows stack
 * (docs/behaviour.md#column-orders). STATUS stays: a failed item with no error text would otherwise read like a
 * completed one with no data. Results and errors wrap within their column (never cut, never squeezed to a word a line:
 * the rows stack first); ids, targets and statuses stay whole.
 */
export function taskItemColumns(keys: readonly string[]): Array<Column<FlatRecord>> {
  const fixed = new Set(['task', 'target', 'status']);
  return keys.map((key, index): Column<FlatRecord> => ({
    header: key,
    key,
    value: (row) => field(row, key),
    ...(fixed.has(key) ? {} : { wrap: true, display: (row: HumanRow) => humanField(row, key) }),
    ...(fixed.has(key) ? {} : key === 'error' ? { answer: true } : { optional: index, answer: true }),
    ...(key === 'task' ? { align: 'right' as const } : {}),
  }));
}
