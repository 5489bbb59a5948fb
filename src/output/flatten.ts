/**
 * Item results as flat records for `show -o csv|tsv` exports (DESIGN.md 3): columns `target`, `status`, then the
 * `data` fields flattened. Result shapes differ per service and are mostly unspecified, so nothing here assumes one.
 */
import type { Column } from './printer.js';

export type FlatRecord = Record<string, string>;

type Scalar = string | number | boolean | null | undefined;

function isScalar(value: unknown): value is Scalar {
  return value === null || value === undefined || ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
}

function scalarText(value: Scalar | bigint): string {
  return value === null || value === undefined ? '' : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Scalars joined with `;` read well in a spreadsheet; JSON only when `;` would be ambiguous or items are objects. */
function arrayText(values: readonly unknown[]): string {
  if (values.every((v) => isScalar(v) && !(typeof v === 'string' && v.includes(';')))) {
    return values.map((v) => scalarText(v as Scalar)).join(';');
  }
  return JSON.stringify(values);
}

/**
 * `{available: true, whois: {registrar: "X"}, emails: ["a", "b"], records: [{...}]}` →
 * `{available: "true", "whois.registrar": "X", emails: "a;b", records: "[{...}]"}`.
 * An empty nested object keeps its key with an empty value, so the column still appears.
 */
export function flattenData(data: Record<string, unknown> | null | undefined): FlatRecord {
  const out: FlatRecord = {};
  const visit = (value: unknown, key: string) => {
    if (Array.isArray(value)) out[key] = arrayText(value);
    else if (isPlainObject(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) out[key] = '';
      for (const [name, inner] of entries) visit(inner, key === '' ? name : `${key}.${name}`);
    } else if (isScalar(value)) out[key] = scalarText(value);
    else out[key] = JSON.stringify(value) ?? '';
  };
  if (data) for (const [name, value] of Object.entries(data)) visit(value, name);
  return out;
}

/** The union of the records' keys, in first-seen order: stable columns for rows with differing shapes. */
export function collectColumns(rows: readonly FlatRecord[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

export interface ItemLike {
  target: string;
  status: string;
  data?: Record<string, unknown> | null | undefined;
  error?: string | null | undefined;
}

export interface ItemExport {
  /** `target`, `status`, then data fields (a data field named `target` or `status` becomes `data.target`). */
  keys: string[];
  rows: FlatRecord[];
  /** Printer columns over `rows`, with `key` = header = the field name (no snake-casing of dotted names). */
  columns: Column<FlatRecord>[];
}

/** Flat records and columns for `show -o csv|tsv|ndjson`: target, status, the data fields, then `error` if any. */
export function exportItems(items: readonly ItemLike[]): ItemExport {
  const rows = items.map((item) => {
    const record: FlatRecord = { target: item.target, status: item.status };
    for (const [key, value] of Object.entries(flattenData(item.data))) {
      record[key === 'target' || key === 'status' ? `data.${key}` : key] = value;
    }
    // Not in the spec, but a failed item's reason is the first thing a user wants to see.
    if (item.error) record[record.error === undefined ? 'error' : 'item.error'] = item.error;
    return record;
  });
  const keys = collectColumns([{ target: '', status: '' }, ...rows]);
  const columns = keys.map((key): Column<FlatRecord> => ({ header: key, key, value: (row) => row[key] ?? '' }));
  return { keys, rows, columns };
}
