/**
 * output/table.ts: a cell of many lines (a result's list, one element a line) is laid out as cli-table3 lays out a
 * multi-line cell, each of its lines beside the other cells' lines, and costs the same per line as a cell of one: handed
 * to cli-table3 whole, each of its lines drawn re-measured the whole cell (an 80-column `show` of one item whose result
 * listed 2,000 e-mail addresses ran for minutes).
 */
import { expect, it } from 'vitest';
import { renderTable } from '../../../src/output/table.js';

it('a cell of several lines: its lines one under another, the other cells on its first line, columns aligned', async () => {
  const text = await renderTable(
    ['TARGET', 'EMAILS', 'N'],
    [
      ['a.com', 'x@a.com\ny@a.com\nz@a.com', '3'],
      ['b.com', 'w@b.com', '10'],
    ],
    ['left', 'left', 'right'],
    [6, 7, 2],
  );
  expect(text).toBe(
    [
      'TARGET  EMAILS    N',
      'a.com   x@a.com   3',
      '        y@a.com',
      '        z@a.com',
      'b.com   w@b.com  10',
      '',
    ].join('\n'),
  );
});

it('a cell of 3,000 lines is laid out line by line, every line kept', async () => {
  const lines = Array.from({ length: 3_000 }, (_, i) => `user${i}@example.com`);
  const text = await renderTable(['TARGET', 'EMAILS'], [['fb.com/page', lines.join('\n')]], ['left', 'left'], [11, 20]);
  const out = text.trimEnd().split('\n');
  expect(out).toHaveLength(3_001);
  expect(out[1]).toBe('fb.com/page  user0@example.com');
  expect(out.at(-1)).toBe(`             user2999@example.com`);
});

it('past 500 rows, drawn a slice at a time at the widths given: a right-aligned column lines up across slices', async () => {
  const rows = Array.from({ length: 1_200 }, (_, i) => [`t${i}`, String(i === 1_199 ? 123_456_789 : i)]);
  const out = (await renderTable(['TARGET', 'N'], rows, ['left', 'right'], [6, 9])).trimEnd().split('\n');
  expect(out).toHaveLength(1_201);
  expect(new Set(out.map((line) => line.length))).toEqual(new Set([out[0]!.length]));
  expect(out[1]).toBe('t0              0');
  expect(out.at(-1)).toBe('t1199   123456789');
});
