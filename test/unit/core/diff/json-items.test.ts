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
});
