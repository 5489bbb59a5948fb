/** A `show -o json` export read item by item, whatever the chunking: a task, a list of tasks, a list of records. */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { JsonItemScanner } from '../../../../src/core/diff/json-items.js';

function scan(text: string, chunk = text.length) {
  const seen: unknown[] = [];
  const scanner = new JsonItemScanner('x.json', {
    record: (record, line) => seen.push(['record', record, line]),
    taskItem: (item, task, line) => seen.push(['item', item, task, line]),
  });
  for (let at = 0; at < text.length; at += chunk) scanner.push(text.slice(at, at + chunk));
  scanner.end();
  return seen;
}

const task = {
  id: 7,
  service: 'domain_check_availability',
  note: 'a } and a ] and "items": [ in a string',
  items: [
    { target: 'a.com', status: 'completed', data: { available: true, list: [1, { b: '}' }] } },
    { target: 'b.com', status: 'failed', data: null, error: 'x\\"]' },
  ],
  cost: 2,
};

describe('JsonItemScanner', () => {
  it('a task (indented, as show prints it): each item with the task id and service, cut at any chunk size', () => {
    const text = JSON.stringify(task, null, 2);
    const expected = scan(text);
    expect(expected).toEqual([
      ['item', task.items[0], { id: 7, service: 'domain_check_availability' }, 6],
      ['item', task.items[1], { id: 7, service: 'domain_check_availability' }, 19],
    ]);
    for (const size of [1, 2, 3, 7, 64]) expect(scan(text, size)).toEqual(expected);
  });

  it('a list of tasks, and a list of item records', () => {
    const other = { ...task, id: 8, items: [{ target: 'c.com', status: 'completed', data: {} }] };
    const tasks = scan(JSON.stringify([task, other]));
    expect(tasks.map((entry) => (entry as [string, { target: string }, { id: number }])[2].id)).toEqual([7, 7, 8]);
    const records = [
      { task: 7, target: 'a.com', status: 'completed', available: true, error: null },
      { task: 7, target: 'b.com', status: 'failed', available: null, error: 'x' },
    ];
    expect(scan(JSON.stringify(records, null, 2), 5).map((entry) => (entry as unknown[]).slice(0, 2))).toEqual(
      records.map((record) => ['record', record]),
    );
  });

  it('a document cut short, or not JSON, is exit 3 naming the file and line', () => {
    expect(() => scan('[{"target": "a"')).toThrow(InputError);
    expect(() => scan('[{"target": "a"')).toThrow(/^x\.json:1: /);
    expect(() => scan('[\n{"target": "a", }]')).toThrow('x.json:2: invalid JSON');
  });

  it.each([
    ['a string', '["a.com", "b.com"]', 'x.json:1: element 1 of the list is a string, not an item (a JSON object)'],
    ['a number', '[\n  {"target": "a"},\n  -2\n]', 'x.json:3: element 2 of the list is a number, not an item'],
    ['null', '[null]', 'x.json:1: element 1 of the list is null, not an item'],
    ['true', '[{"target": "a"}, true]', 'x.json:1: element 2 of the list is true, not an item'],
    ['a list (an export wrapped once more)', '[[{"target": "a"}]]', 'x.json:1: element 1 of the list is a list'],
    [
      "a string among a task's items",
      '{"id": 7, "items": [{"target": "a"}, "b"]}',
      'x.json:1: item 2 of task 7 is a string',
    ],
    [
      "a list among a task's items",
      '{"id": 7, "items": [\n[{"target": "a"}]]}',
      'x.json:2: item 1 of task 7 is a list',
    ],
    [
      'a number among the items of a task in a list',
      '[{"id": 7, "items": []}, {"id": 8, "items": [3]}]',
      'x.json:1: item 1 of task 8 is a number',
    ],
  ])(
    'an element that is not an object (%s) is exit 3 naming the file, the line and the element, at any chunk size',
    (_, text, message) => {
      for (const size of [1, 3, text.length]) {
        let error: unknown;
        try {
          scan(text, size);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(InputError);
        expect((error as Error).message).toContain(message);
      }
    },
  );

  it('a document that is a lone string, number or literal is not an export', () => {
    for (const text of ['"a.com"', '42', 'null'])
      expect(() => scan(text)).toThrow(/^x\.json:1: expected a JSON array or object/);
  });

  it('an empty list, and a task with no items, are read as no items (an export of nothing)', () => {
    expect(scan('[]')).toEqual([]);
    expect(scan('{"id": 7, "items": []}')).toEqual([]);
  });

  it('a task whose "items" key is spelled with an escape: its items all the same, and one that is no object refused', () => {
    const text = '{"id": 7, "service": "s", "item\\u0073": [{"target": "a"}]}';
    expect(scan(text)).toEqual([['item', { target: 'a' }, { id: 7, service: 's' }, 1]]);
    expect(() => scan('{"id": 7, "item\\u0073": [{"target": "a"}, 5]}')).toThrow(
      'x.json:1: item 2 of task 7 is a number, not a JSON object',
    );
  });
});

describe("JsonItemScanner: a task's total_items, before or after its items", () => {
  function ends(text: string, chunk = text.length) {
    const seen: unknown[] = [];
    const scanner = new JsonItemScanner('x.json', {
      record: () => undefined,
      taskItem: () => undefined,
      taskEnd: (head, listed, line) => seen.push([head.id, head.total_items, listed, line]),
    });
    for (let at = 0; at < text.length; at += chunk) scanner.push(text.slice(at, at + chunk));
    scanner.end();
    return seen;
  }
  const item = { target: 'a.com', status: 'completed', data: { list: [1, { b: '}' }] } };

  it('reads total_items written before the items, or after them (the object read to its end), at any chunk size', () => {
    const before = JSON.stringify({ id: 1, service: 's', total_items: 5, items: [item] }, null, 2);
    const after = JSON.stringify([
      { id: 1, service: 's', items: [item], total_items: 5, meta: { x: [1] } },
      { id: 2, items: [], total_items: 0 },
    ]);
    for (const size of [1, 3, 64]) {
      expect(ends(before, size)).toEqual([[1, 5, 1, 1]]);
      expect(ends(after, size)).toEqual([
        [1, 5, 1, 1],
        [2, 0, 0, 1],
      ]);
    }
  });

  it('no total_items: null (nothing to check); a task with its items key escaped is read whole', () => {
    expect(ends(JSON.stringify({ id: 3, items: [item] }))).toEqual([[3, null, 1, 1]]);
    expect(ends('{"id":4,"item\\u0073":[{"target":"a"}],"total_items":2}')).toEqual([[4, 2, 1, 1]]);
  });
});
