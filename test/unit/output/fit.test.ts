import { describe, expect, it } from 'vitest';
import { fitColumns, hiddenNote, type FitColumn } from '../../../src/output/fit.js';
import { textWidth, truncateText } from '../../../src/output/width.js';

const col = (natural: number, extra: Partial<FitColumn> = {}): FitColumn => ({
  natural,
  header: 4,
  truncate: false,
  ...extra,
});

describe('fitColumns', () => {
  it('leaves a table that fits alone', () => {
    expect(fitColumns([col(10), col(20)], 80)).toEqual({ shown: [0, 1], widths: [10, 20], stack: false });
  });

  it('shrinks free text first, the widest first, to the budget exactly', () => {
    const fit = fitColumns([col(10), col(60, { truncate: true }), col(40, { truncate: true })], 80);
    expect(fit.shown).toEqual([0, 1, 2]);
    expect(fit.widths[0]).toBe(10);
    expect(fit.widths.reduce((a, b) => a + b, 0) + 4).toBe(80);
    expect(Math.abs((fit.widths[1] ?? 0) - (fit.widths[2] ?? 0))).toBeLessThanOrEqual(1);
  });

  it('drops optional columns (highest rank first) before cutting free text below its soft minimum', () => {
    const columns = [col(30), col(30, { truncate: true }), col(10, { optional: 1 }), col(10, { optional: 2 })];
    const fit = fitColumns(columns, 70);
    expect(fit.shown).toEqual([0, 1, 2]);
    expect(fit.widths[1]).toBe(26);
  });

  it('in the last resort cuts free text to its hard minimum, never below its header', () => {
    const fit = fitColumns([col(60), col(40, { truncate: true, header: 11 })], 75);
    expect(fit.widths[1]).toBe(13);
    const tight = fitColumns([col(70), col(40, { truncate: true, header: 11 })], 75);
    expect(tight.widths[1]).toBe(11);
  });
});

describe('fitColumns: a name that gives way', () => {
  // ID, SERVICE (yields to rank 1, cut to no less than 16), ITEMS (rank 1), COST (rank 2), FINISHED (rank 3).
  const columns = [
    col(2),
    col(25, { truncate: true, yieldsTo: 1, least: 16 }),
    col(13, { optional: 1 }),
    col(4, { optional: 2 }),
    col(8, { optional: 3 }),
  ];

  it('is kept whole while the columns ranked after the one it yields to go', () => {
    expect(fitColumns(columns, 59)).toMatchObject({ shown: [0, 1, 2, 3], widths: [2, 25, 13, 4, 8] });
    expect(fitColumns(columns, 46)).toMatchObject({ shown: [0, 1, 2], widths: [2, 25, 13, 4, 8] });
  });

  it('is cut, down to its least, before the column it yields to goes', () => {
    expect(fitColumns(columns, 40)).toMatchObject({ shown: [0, 1, 2], widths: [2, 21, 13, 4, 8], stack: false });
    expect(fitColumns(columns, 35)).toMatchObject({ shown: [0, 1, 2], widths: [2, 16, 13, 4, 8], stack: false });
  });

  it('is whole again once that column has gone, and cut in the last resort before the rows stack', () => {
    expect(fitColumns(columns, 34)).toMatchObject({ shown: [0, 1], widths: [2, 25, 13, 4, 8], stack: false });
    expect(fitColumns(columns, 20)).toMatchObject({ shown: [0, 1], widths: [2, 16, 13, 4, 8], stack: false });
    expect(fitColumns(columns, 19).stack).toBe(true);
  });
});

describe('fitColumns: dropping, then stacking', () => {
  it('drops every optional column before stacking, the highest rank first', () => {
    const columns = [col(10), col(10, { optional: 1 }), col(10, { optional: 3 }), col(10, { optional: 2 })];
    expect(fitColumns(columns, 34)).toMatchObject({ shown: [0, 1, 3], stack: false });
    expect(fitColumns(columns, 22)).toMatchObject({ shown: [0, 1], stack: false });
    expect(fitColumns(columns, 10)).toMatchObject({ shown: [0], stack: false });
  });

  it('stacks when the columns that cannot be dropped do not fit', () => {
    const fit = fitColumns([col(25), col(10), col(10, { optional: 1 })], 36);
    expect(fit.stack).toBe(true);
    expect(fit.shown).toEqual([0, 1]);
  });

  it('columns without a rank (named with --columns) are never dropped: the table stacks instead', () => {
    expect(fitColumns([col(20), col(20)], 30).stack).toBe(true);
  });

  it('a wrapped column never gets narrower than its longest word', () => {
    const error = col(40, { truncate: true, header: 5, least: 9 });
    const fit = fitColumns([col(14), col(9), error], 36);
    expect(fit).toMatchObject({ shown: [0, 1, 2], stack: false });
    expect(fit.widths[2]).toBe(9);
    expect(fitColumns([col(14), col(9), error], 35).stack).toBe(true);
  });
});

describe('hiddenNote', () => {
  it('names the hidden columns and how to see them', () => {
    expect(hiddenNote([])).toBeUndefined();
    expect(hiddenNote(['COST'])).toBe('1 column hidden (COST): --wide or -o tsv');
    expect(hiddenNote(['NAME', 'CURRENCY'])).toBe('2 columns hidden (NAME, CURRENCY): --wide or -o tsv');
  });
});

describe('truncateText', () => {
  it('cuts at a word boundary with …, within the width', () => {
    const text = 'Checks whether each domain name is available for registration.';
    const cut = truncateText(text, 30);
    expect(cut).toBe('Checks whether each domain…');
    expect(textWidth(cut)).toBeLessThanOrEqual(30);
    expect(text.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it('counts wide characters as two columns and never splits one at the edge', () => {
    expect(truncateText('日本語のドメイン名です', 10)).toBe('日本語の…'); // 8 + 1 columns: a fifth would make 11
    expect(truncateText('ab日本語', 5)).toBe('ab日…');
    expect(textWidth(truncateText('ab日本語', 4))).toBeLessThanOrEqual(4);
  });

  it('cuts a long single word mid-word rather than leave the cell empty', () => {
    expect(truncateText('averyveryverylongdomainname.com', 10)).toBe('averyvery…');
    // A later word is never shown in part: the cut is after the last whole word.
    expect(truncateText('a verylongdomainname.com', 10)).toBe('a…');
    expect(truncateText('ab cd ef', 6)).toBe('ab cd…');
    expect(truncateText('short', 10)).toBe('short');
  });
});

describe('textWidth', () => {
  it('counts the columns a terminal gives each character', async () => {
    const { textWidth } = await import('../../../src/output/width.js');
    expect(textWidth('abc')).toBe(3);
    expect(textWidth('café')).toBe(4);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('👍🏽')).toBe(2);
    expect(textWidth('例え.jp')).toBe(7);
    expect(textWidth('ＡＢ')).toBe(4); // fullwidth forms
  });
});

describe('fitColumns: the answer keeps its room', () => {
  const target = col(16);
  const available = col(9, { optional: 1, answer: true });
  const status = col(9, { optional: 5 });
  const error = col(40, { truncate: true, header: 5, least: 9, answer: true });

  it('an error of the answer is not squeezed below 18 columns: STATUS goes, then the rows stack', () => {
    const fit = fitColumns([target, status, available, error], 49);
    expect(fit).toMatchObject({ shown: [0, 2, 3], stack: false });
    expect(fit.widths[3]).toBe(20);
    // 39 columns would leave the error 10: cards instead, never the answer dropped.
    expect(fitColumns([target, status, available, error], 39)).toMatchObject({ stack: true, shown: [0, 2, 3] });
  });

  it('other free text shrinks to its hard minimum before the answer goes below 18', () => {
    const note = col(30, { truncate: true, header: 4 });
    const fit = fitColumns([note, error], 30);
    expect(fit).toMatchObject({ shown: [0, 1], stack: false });
    expect(fit.widths).toEqual([10, 18]);
  });

  it('of several answer fields the last go first, the first never', () => {
    const fields = [col(10), col(8, { optional: 1, answer: true }), col(8, { optional: 2, answer: true })];
    expect(fitColumns(fields, 20)).toMatchObject({ shown: [0, 1], stack: false });
    expect(fitColumns(fields, 12)).toMatchObject({ shown: [0, 1], stack: true });
  });
});
