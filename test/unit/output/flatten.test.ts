import { describe, expect, it } from 'vitest';
import { collectColumns, exportItems, flattenData } from '../../../src/output/flatten.js';
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
    expect(keys).toEqual(['target', 'status', 'available', 'whois.registrar', 'data.status']);
    expect(rows[2]).toEqual({
      target: 'c.com',
      status: 'completed',
      available: 'false',
      'whois.registrar': 'R',
      'data.status': 'weird',
    });
  });

  it('gives printer columns that keep dotted names in the CSV header and fill gaps with empty fields', async () => {
    const memory = createMemoryIO();
    const printer = createPrinter({ io: memory.io, format: 'csv', color: false });
    const { rows, columns } = exportItems(items);
    await printer.list(rows, columns);
    expect(memory.stdout.text()).toBe(
      [
        'target,status,available,whois.registrar,data.status',
        'a.com,completed,true,,',
        'b.com,failed,,,',
        'c.com,completed,false,R,weird',
        '',
      ].join('\n'),
    );
  });
});
