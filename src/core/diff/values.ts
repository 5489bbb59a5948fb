/**
 * What `taskctl diff` compares: each item reduced to its target, its task and its fields. Values are compared as
 * canonical JSON (keys sorted, arrays in order), or, when either side is a csv file, as the text csv prints
 * (output/flatten.ts, the same flattening as `show -o csv`). null, an absent field and an empty csv cell are all
 * "no value": the field is left out.
 */
import { errorText } from '../../lib/item-error.js';
import { encodeJson } from '../../output/encode.js';
import { flattenData, itemRecord, type ItemLike } from '../../output/flatten.js';
import { parseJsonExact } from '../../lib/exact-json.js';

/** `json`: values as canonical JSON; `csv`: values as the text of a csv cell. */
export type CompareMode = 'json' | 'csv';

/** Fields of an item record that are not compared by default: what names it, and the error text. */
export const NOT_RESULT_FIELDS: ReadonlySet<string> = new Set(['target', 'task', 'error']);

export interface DiffItem {
  target: string;
  /** The task the item came from, when the side knows it. */
  task: number | null;
  /** Field → its JSON value (json mode) or its csv text (csv mode); a field with no value is absent or null. */
  fields: Record<string, unknown>;
}

/**
 * JSON with every object's keys sorted, at any depth: two values are equal exactly when these texts are. Numbers are
 * written as JSON.stringify writes a double (1e3 and 1000 are `1000`, -0 is `0`); an ExactInteger by its digits.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  return encodeJson(value, { sortKeys: true }) ?? 'null';
}

/** Sets a field whatever its name (`__proto__` included), skipping "no value". */
function setValue(fields: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (key === '__proto__')
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  else fields[key] = value;
}

function taskOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return null;
}

/**
 * An item record as `show -o ndjson` writes it (`task`, `target`, `status`, the result fields, `error`, other
 * fields), reduced to a DiffItem. In csv mode the result fields are flattened as `show -o csv` flattens `data`.
 * `task`: the item's task when the record does not say; `seen` collects the field names (those with no value too).
 * In json mode the record becomes the item's fields (it is taken over, not copied).
 */
export function fromRecord(
  record: Record<string, unknown>,
  mode: CompareMode,
  task?: number | null,
  seen?: Set<string>,
): DiffItem {
  const target = String(record.target);
  const owner = task === undefined ? taskOf(record.task) : task;
  if (mode === 'json') {
    // The record itself is the fields (no copy): its target and task are left out of its JSON as undefined.
    for (const key of Object.keys(record)) if (key !== 'target' && key !== 'task') seen?.add(key);
    record.target = undefined;
    if (Object.hasOwn(record, 'task')) record.task = undefined;
    return { target, task: owner, fields: record };
  }
  const fields: Record<string, unknown> = {};
  const item: DiffItem = { target, task: owner, fields };
  const put = (key: string, value: unknown) => {
    seen?.add(key);
    setValue(fields, key, value);
  };
  const data: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (!NOT_RESULT_FIELDS.has(key) && key !== 'status') data[key] = record[key];
  put('status', csvText(record.status));
  for (const [key, text] of Object.entries(flattenData(data))) put(key, text === '' ? undefined : text);
  put('error', csvText(errorText(record.error)));
  return item;
}

/** A task's item (from the API or a json export) as a DiffItem: the same fields as its ndjson record. */
export function fromTaskItem(item: ItemLike, task: number | null, mode: CompareMode, seen?: Set<string>): DiffItem {
  return fromRecord(itemRecord(item), mode, task, seen);
}

function csvText(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}

/** A row of a csv export (`task`, `target`, `status`, flattened data, `error`) by its header; empty cells are no value. */
export function fromCsvRow(header: readonly string[], cells: readonly string[], targetAt: number): DiffItem {
  const fields: Record<string, unknown> = {};
  let task: number | null = null;
  header.forEach((name, index) => {
    if (index === targetAt) return;
    const cell = cells[index];
    if (name === 'task') task = taskOf(cell);
    else setValue(fields, name, cell === undefined || cell === '' ? undefined : cell);
  });
  return { target: cells[targetAt] ?? '', task, fields };
}

/** A field's value as compared: its canonical JSON (csv text is a JSON string); undefined for no value. */
export function comparable(fields: Record<string, unknown>, field: string): string | undefined {
  const value = Object.hasOwn(fields, field) ? fields[field] : undefined;
  return value === undefined || value === null ? undefined : canonicalJson(value);
}

/**
 * A compared value as a script reads it: the JSON value itself (booleans stay booleans; csv text stays text), null
 * for no value.
 */
export function valueOf(text: string | undefined): unknown {
  return text === undefined ? null : parseJsonExact(text);
}
