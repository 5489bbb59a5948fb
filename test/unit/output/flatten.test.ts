import { describe, expect, it } from 'vitest';
import {
  collectColumns,
  exportItems,
  exportTaskItems,
  FLATTEN_DEPTH,
  flattenData,
  itemRecord,
  RecordShape,
  taskItemRecord,
} from '../../../src/output/flatten.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter } from '../../../src/output/printer.js';

describe('flattenData', () => {
  it('turns scalars into text and null into empty', () => {
    expect(flattenData({ available: true, price: 12.5, note: 'x', missing: null })).toEqual({
      available: 'true',
      price: '12.5',
      note: 'x',
      missing: '',
    });
  });

  it('is empty for null or undefined data', () => {
    expect(flattenData(null)).toEqual({});
    expect(flattenData(undefined)).toEqual({});
  });

  it('uses dotted keys for nested objects, keeping empty objects as empty columns', () => {
    expect(flattenData({ whois: { registrar: 'R', dates: { created: '2001' } }, meta: {} })).toEqual({
      'whois.registrar': 'R',
      'whois.dates.created': '2001',
      meta: '',
    });
  });

  it('joins arrays of scalars with ; and JSON-encodes arrays of objects', () => {
    expect(
      flattenData({ emails: ['a@x.com', 'b@x.com'], phones: [], records: [{ year: 2020 }, { year: 2021 }] }),
    ).toEqual({
      emails: 'a@x.com;b@x.com',
      phones: '',
      records: '[{"year":2020},{"year":2021}]',
    });
  });

  it('falls back to JSON when a scalar contains ; so the join stays unambiguous', () => {
    expect(flattenData({ notes: ['a;b', 'c'] })).toEqual({ notes: '["a;b","c"]' });
  });
});

describe('collectColumns', () => {
  it('returns the union of keys in first-seen order', () => {
    expect(collectColumns([{ a: '1', b: '2' }, { c: '3', a: '4' }, {}, { d: '5', b: '6' }])).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect(collectColumns([])).toEqual([]);
  });
});

describe('exportItems', () => {
  const items = [
    { target: 'a.com', status: 'completed', data: { available: true } },
    { target: 'b.com', status: 'failed', data: null },
    { target: 'c.com', status: 'completed', data: { available: false, whois: { registrar: 'R' }, status: 'weird' } },
  ];

  it('puts target and status first, then data fields; a colliding data key is prefixed', () => {
    const { keys, rows } = exportItems(items);
    expect(keys).toEqual(['target', 'status', 'available', 'whois.registrar', 'data.status', 'error']);
    expect(rows[2]).toEqual({
      target: 'c.com',
      status: 'completed',
      available: 'false',
      'whois.registrar': 'R',
      'data.status': 'weird',
      error: '',
    });
  });

  it('keeps a data field named __proto__ as a field in csv and ndjson (a plain assignment would drop it)', () => {
    const data = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const item = { target: 'a.com', status: 'completed', data };
    const { keys, records } = exportItems([item]);
    expect(keys).toEqual(['target', 'status', '__proto__.polluted', 'x', 'error']);
    expect(JSON.stringify(records[0])).toBe(
      '{"target":"a.com","status":"completed","__proto__":{"polluted":true},"x":1,"error":null}',
    );
    expect(Object.getPrototypeOf(records[0])).toBe(Object.prototype);
  });

  it("fills a gap with an empty field even when the field's name is one of Object.prototype's", async () => {
    const odd: Array<{ target: string; status: string; data: Record<string, unknown> }> = [
      { target: 'a.com', status: 'completed', data: { toString: 'x', constructor: 'y', valueOf: 1 } },
      { target: 'b.com', status: 'completed', data: {} },
    ];
    for (const { columns, rows } of [exportItems(odd), exportTaskItems([{ id: 1, items: odd }])]) {
      const memory = createMemoryIO();
      const printer = createPrinter({ io: memory.io, format: 'csv', color: false });
      await printer.list(rows, columns);
      expect(memory.stdout.text()).not.toContain('function');
      expect(memory.stdout.text()).toMatch(/b\.com,completed,,,,\n$/);
    }
  });

  it('gives printer columns that keep dotted names in the CSV header and fill gaps with empty fields', async () => {
    const memory = createMemoryIO();
    const printer = createPrinter({ io: memory.io, format: 'csv', color: false });
    const { rows, columns } = exportItems(items);
    await printer.list(rows, columns);
    expect(memory.stdout.text()).toBe(
      [
        'target,status,available,whois.registrar,data.status,error',
        'a.com,completed,true,,,',
        'b.com,failed,,,,',
        'c.com,completed,false,R,weird,',
        '',
      ].join('\n'),
    );
  });
});

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { n: value };
  return value;
}

describe('bounded depth', () => {
  it('dots keys FLATTEN_DEPTH levels down, then writes the whole rest as compact JSON in one cell, never cut', () => {
    // 200 levels: well within the 256 an answer of the service may have (docs/behaviour.md#bounded-answers).
    const flat = flattenData(nested(200));
    const [key, value] = Object.entries(flat)[0] ?? ['', ''];
    expect(key).toBe(Array.from({ length: FLATTEN_DEPTH }, () => 'n').join('.'));
    const rest = 200 - FLATTEN_DEPTH;
    expect(value).toBe(`${'{"n":'.repeat(rest)}"bottom"${'}'.repeat(rest)}`);
    expect(flattenData([nested(200)]).data).toBe(JSON.stringify([nested(200)]));
    expect(flattenData({ list: [nested(200)] }).list).toBe(JSON.stringify([nested(200)]));
  });

  it('flattens data nested 5,000 and 100,000 deep without overflowing the stack', () => {
    for (const depth of [5_000, 100_000]) {
      expect(Object.values(flattenData(nested(depth)))[0]).toContain('…');
      expect(Object.values(flattenData([nested(depth)]))[0]).toContain('…');
    }
  });

  it('keeps shallow data whole', () => {
    expect(flattenData(nested(3))).toEqual({ 'n.n.n': 'bottom' });
  });
});

describe('data of any shape', () => {
  it('puts non-object data in a `data` cell as compact JSON', () => {
    expect(flattenData([1, { a: 2 }])).toEqual({ data: '[1,{"a":2}]' });
    expect(flattenData('text')).toEqual({ data: '"text"' });
    expect(flattenData(0)).toEqual({ data: '0' });
    expect(flattenData(false)).toEqual({ data: 'false' });
  });
});

describe('itemRecord (ndjson)', () => {
  it('lifts data fields with their JSON values, then error, then unknown item fields', () => {
    expect(
      itemRecord({
        target: 't',
        status: 'completed',
        data: { available: false, list: [1], error: 'e' },
        extra: 1,
      } as never),
    ).toEqual({
      target: 't',
      status: 'completed',
      available: false,
      list: [1],
      'data.error': 'e',
      error: null,
      extra: 1,
    });
  });

  it('renames an unknown item field that clashes with a data field', () => {
    expect(itemRecord({ target: 't', status: 's', data: { shard: 1 }, shard: 2 } as never)).toEqual({
      target: 't',
      status: 's',
      shard: 1,
      error: null,
      'item.shard': 2,
    });
  });
});

describe('taskItemRecord (ndjson with the task id)', () => {
  /** The rule as documented: itemRecord's fields behind the task id, the item's own `task` as `item.task`. */
  const byRule = (taskId: number, item: object) => {
    const out: Record<string, unknown> = { task: taskId };
    for (const [name, value] of Object.entries(itemRecord(item as never))) {
      Object.defineProperty(out, name === 'task' ? 'item.task' : name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  const items: object[] = [
    { target: 'a.com', status: 'completed', data: { available: true } },
    { target: 'b.com', status: 'failed', data: null, error: 'boom' },
    { target: 'c.com', status: 'completed', data: [1, 2] },
    { target: 'd.com', status: 'completed', data: { task: 1, target: 2, error: 3, data: 4, 'item.task': 5 } },
    { target: 'e.com', status: 'completed', data: { x: 1 }, task: 'mine', 'item.task': 'also mine' },
    { target: 'f.com', status: 'completed', data: { x: 1 }, x: 2, error: null },
    JSON.parse('{"target":"g.com","status":"completed","data":{"__proto__":{"y":1}},"error":null}') as object,
    JSON.parse('{"target":"h.com","status":"completed","data":null,"__proto__":{"z":1}}') as object,
    Object.assign(Object.create({ inherited: 1 }) as object, { target: 'i.com', status: 'completed' }),
  ];

  it('makes the documented record, field for field and in order, for items of every kind', () => {
    for (const item of items) {
      const record = taskItemRecord(7, item as never);
      expect(JSON.stringify(record)).toBe(JSON.stringify(byRule(7, item)));
      expect(Object.keys(record)).toEqual(Object.keys(byRule(7, item)));
    }
    expect(taskItemRecord(7, items[4] as never)).toMatchObject({ task: 7, 'item.task': 'also mine' });
  });

  it('RecordShape: every record gets the union of keys in first-seen order; a record with all of them stays as it is', () => {
    const shape = new RecordShape();
    const records = [{ a: 1 }, { a: 2 }, { b: 3, a: 4 }, { c: 5 }];
    const widths = records.map((record) => shape.add(record));
    expect(widths).toEqual([1, 1, 2, 1]);
    expect(shape.whole(3)).toBe(true);
    const filled = records.map((record, index) => shape.fill(record, widths[index]));
    expect(filled.map((record) => JSON.stringify(record))).toEqual([
      '{"a":1,"b":null,"c":null}',
      '{"a":2,"b":null,"c":null}',
      '{"a":4,"b":3,"c":null}',
      '{"a":null,"b":null,"c":5}',
    ]);
    const own = { c: 1, b: 2, a: 3 };
    expect(shape.fill(own)).toBe(own);
  });
});

describe('exportItems with a filter', () => {
  it('keeps the columns of every item while keeping only some rows', () => {
    const all = [
      { target: 'a', status: 'completed', data: { x: 1 } },
      { target: 'b', status: 'failed', data: null, error: 'boom' },
    ];
    const failedOnly = exportItems(all, (item) => item.status === 'failed');
    expect(failedOnly.keys).toEqual(['target', 'status', 'x', 'error']);
    expect(failedOnly.rows).toEqual([{ target: 'b', status: 'failed', error: 'boom' }]);
    expect(failedOnly.records).toEqual([{ target: 'b', status: 'failed', error: 'boom' }]);
  });
});

describe('results as people read them (no raw JSON in a terminal table)', () => {
  it('lists one element a line, objects as key: value pairs, nested values in parentheses', async () => {
    const { humanValue } = await import('../../../src/output/flatten.js');
    expect(
      humanValue([
        { date: '2005-02-24', registrar: 'Tucows' },
        { date: '2008-09-20', tags: ['a', 'b'], owner: { name: 'X' } },
      ]),
    ).toBe('date: 2005-02-24, registrar: Tucows\ndate: 2008-09-20, tags: (a; b), owner: (name: X)');
    expect(humanValue(['a@x.com', 'b@x.com'])).toBe('a@x.com\nb@x.com');
    expect(humanValue({ a: 1, b: null })).toBe('a: 1\nb: -');
    expect(humanValue(true)).toBe('true');
  });
});

describe('ndjson rows of one shape', () => {
  it('every item record has every field, null where its item had none, in first-seen order', async () => {
    const { exportTaskItems } = await import('../../../src/output/flatten.js');
    const { records } = exportTaskItems([
      {
        id: 1,
        items: [
          { target: 'a.com', status: 'completed', data: { available: true } },
          { target: 'b.com', status: 'failed', error: 'timeout', retries: 2 } as { target: string; status: string },
        ],
      },
    ]);
    expect(records.map((record) => Object.keys(record))).toEqual([
      ['task', 'target', 'status', 'available', 'error', 'retries'],
      ['task', 'target', 'status', 'available', 'error', 'retries'],
    ]);
    expect(records[1]).toMatchObject({ available: null, error: 'timeout', retries: 2 });
    expect(records[0]).toMatchObject({ available: true, error: null, retries: null });
  });
});

describe('a terminal cell of a long list or object', () => {
  it('shows its first 50 elements or keys, then how many more and where to see them all', async () => {
    const { humanValue } = await import('../../../src/output/flatten.js');
    const list = Array.from({ length: 2_000_120 }, (_, i) => `u${i}@x.com`);
    const lines = humanValue(list).split('\n');
    expect(lines).toHaveLength(51);
    expect(lines[49]).toBe('u49@x.com');
    expect(lines[50]).toBe('… 2,000,070 more (-o json shows all)');
    const object = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i]));
    expect(humanValue(object).split('\n').at(-1)).toBe('… 10 more (-o json shows all)');
    // Inside a line, a list is cut the same way.
    const inner = humanValue([Array.from({ length: 52 }, (_, i) => i)]);
    expect(inner).toMatch(/; 49; … 2 more \(-o json shows all\)$/);
  });
});
