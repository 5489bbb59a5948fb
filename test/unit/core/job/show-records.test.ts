/** core/job/show-records.ts: the same ndjson records as output/flatten.ts gives, made once per item. */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { taskRecordSlices } from '../../../../src/core/job/show-records.js';
import { taskItemSlices, type ItemLike } from '../../../../src/output/flatten.js';

const task = (items: object[]): Task => ({ id: 7, items }) as unknown as Task;

/** The records as flatten.ts makes them, and as show-records.ts does, each written as ndjson. */
function both(subject: Task, keep: (item: ItemLike) => boolean = () => true, size = 10_000) {
  const lines = (records: Array<Record<string, unknown>>) => records.map((record) => JSON.stringify(record));
  const expected = [...taskItemSlices([subject], keep, size)].flatMap((slice) => lines(slice.records()));
  const got = [...taskRecordSlices(subject, (item) => keep(item), size)].flatMap(lines);
  return { expected, got };
}

describe('taskRecordSlices', () => {
  it('items of one shape: the task id first, the data fields, error', () => {
    const { expected, got } = both(
      task([
        { target: 'a.com', status: 'completed', data: { available: true }, error: null },
        { target: 'b.com', status: 'failed', data: null, error: 'boom' },
      ]),
    );
    expect(got).toEqual(expected);
    expect(got[1]).toBe('{"task":7,"target":"b.com","status":"failed","available":null,"error":"boom"}');
  });

  it('items of other shapes: every record gets every key, in first-seen order, null where it had none', () => {
    const items = [
      { target: 'a.com', status: 'completed', data: { available: true }, error: null },
      { target: 'b.com', status: 'completed', data: { registrar: 'X', available: false }, error: null, extra: 1 },
      { target: 'c.com', status: 'completed', data: [1, 2], error: null },
      { target: 'd.com', status: 'completed', data: { target: 'renamed', error: 'data' }, error: null },
      JSON.parse('{"target":"e.com","status":"completed","data":{"__proto__":{"x":1}},"error":null}') as object,
    ];
    const { expected, got } = both(task(items));
    expect(got).toEqual(expected);
    expect(Object.keys(JSON.parse(got[0] ?? '{}') as object)).toContain('registrar');
  });

  it('an item with a field of its own named `task`, a filter, and a task larger than a slice: as flatten.ts', () => {
    const renamed = task([{ target: 'a.com', status: 'completed', data: null, error: null, task: 'mine' }]);
    expect(both(renamed).got).toEqual(both(renamed).expected);
    const many = task(
      Array.from({ length: 25 }, (_, i) => ({
        target: `t${i}.com`,
        status: i % 3 ? 'completed' : 'failed',
        error: null,
      })),
    );
    const failed = (item: ItemLike) => item.status === 'failed';
    expect(both(many, failed, 10).got).toEqual(both(many, failed, 10).expected);
    expect(both(many, () => true, 10).got).toHaveLength(25);
    expect([...taskRecordSlices(task([]), () => true, 10)]).toEqual([]);
  });
});
