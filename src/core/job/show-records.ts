/**
 * The ndjson records of one task's kept items for `show --job -o ndjson|json`, the same records as
 * output/flatten.ts `taskItemSlices` gives (its `taskItemRecord` and `RecordShape`), made once per item and without
 * the csv rows. A task of more than `size` items is left to `taskItemSlices`, which holds a slice at a time.
 */
import type { Task } from '../../api/schemas.js';
import { RecordShape, taskItemRecord, taskItemSlices } from '../../output/flatten.js';
import type { KeepItem } from './filter.js';

/** Slices of records, each ready to write. */
export function* taskRecordSlices(task: Task, keep: KeepItem, size: number): Generator<Array<Record<string, unknown>>> {
  const items = task.items ?? [];
  if (items.length > size) {
    for (const slice of taskItemSlices([task], (item) => keep(item, task), size)) yield slice.records();
    return;
  }
  const records = wholeTask(task, keep);
  if (records.length > 0) yield records;
}

/** Every kept item's record, shaped alike. */
function wholeTask(task: Task, keep: KeepItem): Array<Record<string, unknown>> {
  const records: Array<Record<string, unknown>> = [];
  const widths: number[] = [];
  const shape = new RecordShape();
  let narrowest = Number.POSITIVE_INFINITY;
  for (const item of task.items ?? []) {
    if (!keep(item, task)) continue;
    const record = taskItemRecord(task.id, item);
    const width = shape.add(record);
    if (width < narrowest) narrowest = width;
    widths.push(width);
    records.push(record);
  }
  if (shape.whole(narrowest)) return records;
  return records.map((record, index) => shape.fill(record, widths[index]));
}
