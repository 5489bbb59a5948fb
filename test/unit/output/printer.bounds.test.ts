/** Every printer output is valid JSON whatever the server sent, and bounded in rows and depth. */
import fc from 'fast-check';
import { codePointString } from '../../code-points.js';
import { describe, expect, it } from 'vitest';
import type { OutputFormat } from '../../../src/output/format.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter, TABLE_MAX_ROWS, type Column } from '../../../src/output/printer.js';

function setup(format: OutputFormat) {
  const memory = createMemoryIO();
  const printer = createPrinter({ io: memory.io, format, color: false, redact: (text) => text });
  return { printer, out: () => memory.stdout.text(), err: () => memory.stderr.text() };
}

/** Server strings rich in what terminals act on: C0, DEL, C1, bidi, lone surrogates, quotes and backslashes. */
const serverString = fc
  .array(
    fc.oneof(
      codePointString(),
      fc.constantFrom('\x1b[2J', '\u009b', '\x7f', '\u0085', '\u202e', '\u2066', '\ud800', '\udc00', '"', '\\', '\n'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const serverValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    serverString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(serverString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** What the value looks like after a JSON round trip (-0 becomes 0, `__proto__` keys stay own keys). */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const row = { id: 1 };
const columns: Array<Column<typeof row>> = [{ header: 'ID', value: (r) => r.id }];

describe('JSON output is valid whatever the server sent', () => {
  it('property: json() in json and ndjson parses back to the same value', () => {
    fc.assert(
      fc.property(serverValue, (value) => {
        for (const format of ['json', 'ndjson'] as const) {
          const { printer, out } = setup(format);
          printer.json(value);
          expect(JSON.parse(out())).toEqual(viaJson(value));
          expect(out()).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: list, stream and detail in json and ndjson parse back to the same values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(serverValue, { minLength: 1, maxLength: 4 }), async (values) => {
        const json = setup('json');
        await json.printer.list([row], columns, values);
        expect(JSON.parse(json.out())).toEqual(viaJson(values));

        const ndjson = setup('ndjson');
        await ndjson.printer.list([row], columns, values);
        expect(
          ndjson
            .out()
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line) as unknown),
        ).toEqual(viaJson(values));

        const streamed = setup('json');
        const stream = streamed.printer.stream(columns, () => values[0]);
        stream.write([row, row]);
        await stream.end();
        expect(JSON.parse(streamed.out())).toEqual(viaJson([values[0], values[0]]));

        const detail = setup('ndjson');
        detail.printer.detail([['x', 1]], values);
        expect(JSON.parse(detail.out())).toEqual(viaJson(values));
      }),
      { numRuns: 200 },
    );
  });

  it('property: a JSON line printed through line() (watch, webhook listen) stays valid and exact', () => {
    fc.assert(
      fc.property(serverValue, (value) => {
        const { printer, out } = setup('ndjson');
        printer.line(JSON.stringify({ event: 'completed', value }));
        expect(JSON.parse(out())).toEqual(viaJson({ event: 'completed', value }));
      }),
      { numRuns: 300 },
    );
  });
});

describe('bounded depth', () => {
  it('prints values nested 100,000 deep as valid JSON, cut with a marker', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const format of ['json', 'ndjson'] as const) {
      const { printer, out } = setup(format);
      printer.json({ deep });
      expect(JSON.stringify(JSON.parse(out()))).toContain('"…"');
    }
  });
});

describe('bounded tables', () => {
  const many = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i }));

  it(`draws at most ${TABLE_MAX_ROWS} rows and says how to get them all`, async () => {
    const { printer, out, err } = setup('table');
    await printer.list(many(TABLE_MAX_ROWS + 500), columns);
    const lines = out().trimEnd().split('\n');
    expect(lines).toHaveLength(TABLE_MAX_ROWS + 1);
    expect(lines.at(-1)?.trim()).toBe(String(TABLE_MAX_ROWS - 1));
    expect(err()).toBe('warning: showing the first 1,000 of 1,500 rows; use -o tsv or -o csv to get them all\n');
  });

  it('draws a table of exactly the limit with no warning', async () => {
    const { printer, out, err } = setup('table');
    await printer.list(many(TABLE_MAX_ROWS), columns);
    expect(out().trimEnd().split('\n')).toHaveLength(TABLE_MAX_ROWS + 1);
    expect(err()).toBe('');
  });

  it('streams 200,000 rows into a table without holding or spreading them', async () => {
    const { printer, out, err } = setup('table');
    const stream = printer.stream(columns);
    stream.write(many(200_000));
    await stream.end();
    expect(out().trimEnd().split('\n')).toHaveLength(TABLE_MAX_ROWS + 1);
    expect(err()).toContain('of 200,000 rows');
  });

  it('prints every row in tsv, csv and ndjson', async () => {
    for (const format of ['tsv', 'csv', 'ndjson'] as const) {
      const { printer, out } = setup(format);
      await printer.list(many(5000), columns);
      expect(out().trimEnd().split('\n')).toHaveLength(format === 'csv' ? 5001 : 5000);
    }
  });
});

describe('a long table is drawn in slices that line up as one table (bounded copies of the text)', () => {
  it('the widest row in the last slice widens the columns of the first', async () => {
    const { printer, out } = setup('table');
    // 250 rows: the name that sets the NAME column's width is in the last rows, drawn in the last slice.
    const rows = Array.from({ length: 250 }, (_, i) => ({ id: i, name: i === 249 ? 'n'.repeat(40) : `row ${i}` }));
    const columns: Array<Column<{ id: number; name: string }>> = [
      { header: 'name', value: (row) => row.name },
      { header: 'id', value: (row) => row.id, align: 'right' },
    ];
    await printer.list(rows, columns);
    const lines = out().trimEnd().split('\n');
    expect(lines).toHaveLength(251);
    // Every line is as wide as the header: a right-aligned ID column ends at the same place in every row.
    const width = lines[0]?.length ?? 0;
    expect(width).toBeGreaterThan(40);
    expect(lines.filter((line) => line.length !== width)).toEqual([]);
  });
});
