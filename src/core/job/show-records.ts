/**
 * The ndjson records of one task's kept items for `show --job -o ndjson|json`, the same records as
 * output/flatten.ts `taskItemSlices` gives (task id first, every record with the keys any of them has, in first-seen
 * order, `null` where an item has none), made once per item and without the csv rows. A task of more than `size` items,
 * or one whose item carries a field of its own named `task`, is left to `taskItemSlices`, which holds a slice at a time.
 */
import type { Task } from '../../api/schemas.js';
import { itemRecord, taskItemSlices } from '../../output/flatten.js';
import type { KeepItem } from './filter.js';

/** Slices of records, each ready to write. */
export function* taskRecordSlices(task: Task, keep: KeepItem, size: number): Generator<Array<Record<string, unknown>>> {
  const items = task.items ?? [];
  const records = items.length <= size ? wholeTask(task, keep) : undefined;
  if (records !== undefined) {
    if (records.length > 0) yield records;
    return;
  }
  for (const slice of taskItemSlices([task], (item) => keep(item, task), size)) yield slice.records();
}

/** Every kept item's record, shaped alike; undefined when an item has a field `task` (renamed by flatten.ts). */
function wholeTask(task: Task, keep: KeepItem): Array<Record<string, unknown>> | undefined {
  const records: Array<Record<string, unknown>> = [];
  const order = new Set<string>(['task']);
  let width = 0;
  let ragged = false;
  for (const item of task.items ?? []) {
    if (!keep(item, task)) continue;
    const own = itemRecord(item);
    if (Object.hasOwn(own, 'task')) return undefined;
    const record: Record<string, unknown> = { task: task.id, ...own };
    const keys = Object.keys(record);
    if (records.length > 0 && keys.length !== width) ragged = true;
    width = keys.length;
    for (const key of keys) order.add(key);
    records.push(record);
  }
  // Records with as many keys as the union have them all, in its order (each added its keys in its own order).
  if (!ragged && order.size === width) return records;
  return records.map((record) => {
    if (Object.keys(record).length === order.size) return record;
    const full: Record<string, unknown> = {};
    for (const key of order) {
      Object.defineProperty(full, key, {
        value: Object.hasOwn(record, key) ? record[key] : null,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return full;
  });
}
