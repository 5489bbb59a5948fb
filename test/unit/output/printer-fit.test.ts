/** Tables fitted to the terminal, ages, people's labels. */
import { describe, expect, it } from 'vitest';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter, type Column } from '../../../src/output/printer.js';
import type { OutputFormat } from '../../../src/output/format.js';
import { textWidth, wrapText } from '../../../src/output/width.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

interface Row {
  name: string;
  created: string;
  note: string;
  extra: string;
}

const rows: Row[] = [
  {
    name: 'domain_check_availability',
    created: '2025-01-15T11:57:00.000Z',
    note: 'Checks whether each domain name is available for registration, and much more text besides.',
    extra: 'optional-column-value',
  },
  { name: 'email_verify', created: '2025-01-15T09:00:00.000Z', note: 'Short.', extra: 'x' },
];

const columns: Array<Column<Row>> = [
  { header: 'Name', value: (r) => r.name },
  { header: 'Created', value: (r) => r.created, time: true },
  { header: 'Description', value: (r) => r.note, truncate: true },
  { header: 'Extra', value: (r) => r.extra, optional: 1 },
];

function setup(format: OutputFormat, columnsWide?: number, tty = true) {
  const memory = createMemoryIO({ stdoutTTY: tty, columns: columnsWide });
  const printer = createPrinter({ io: memory.io, format, color: false, now: () => NOW });
  return { printer, out: () => memory.stdout.text() };
}

const widest = (text: string) => Math.max(...text.split('\n').map((line) => textWidth(line)));

describe('tables fitted to the terminal', () => {
  it('at 80 columns: no line wider than the terminal, free text cut at a word with …, headers whole', async () => {
    const { printer, out } = setup('table', 80);
    await printer.list(rows, columns);
    expect(widest(out())).toBeLessThanOrEqual(80);
    expect(out()).toContain('DESCRIPTION');
    expect(out()).toMatch(/Checks whether each domain[a-z ]*…/);
    expect(out()).not.toMatch(/[a-z]…\S/);
    expect(out()).toContain('3m ago');
    expect(out()).toContain('3h ago');
  });

  it('counts CJK text as two columns a character, as the terminal draws it', async () => {
    const cjk: Row[] = [
      { ...rows[1]!, note: '各ドメイン名が登録可能かどうかを確認します。さらに多くの説明文がここに続きます。' },
      { ...rows[1]!, name: '例え.jp', note: 'Short.' },
    ];
    const { printer, out } = setup('table', 80);
    await printer.list(cjk, columns);
    // Independent of the code under test: a Han, Hiragana or Katakana character or CJK punctuation is two columns.
    const columnsOf = (line: string) =>
      Array.from(line).reduce(
        (sum, c) => sum + (/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u3000-\u303f]/u.test(c) ? 2 : 1),
        0,
      );
    const lines = out().trimEnd().split('\n');
    expect(Math.max(...lines.map(columnsOf))).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/各ドメイン.*…/);
    // Columns line up: the DESCRIPTION header and each row's description start at the same column.
    const starts = lines.map((line) => columnsOf(line.slice(0, line.search(/DESCRIPTION|各|Short/))));
    expect(new Set(starts).size).toBe(1);
  });

  it('drops optional columns only when cutting free text is not enough', async () => {
    const wide = setup('table', 100);
    await wide.printer.list(rows, columns);
    expect(wide.out()).toContain('EXTRA');
    const narrow = setup('table', 60);
    await narrow.printer.list(rows, columns);
    expect(narrow.out()).not.toContain('EXTRA');
    expect(widest(narrow.out())).toBeLessThanOrEqual(60);
  });

  it('--wide and a table that is not on a terminal keep every column whole', async () => {
    const wide = setup('table', 60);
    await wide.printer.list(rows, columns, undefined, { wide: true });
    expect(wide.out()).toContain(rows[0]?.note);
    expect(wide.out()).toContain('EXTRA');
    const piped = setup('table', 60, false);
    await piped.printer.list(rows, columns);
    expect(piped.out()).toContain(rows[0]?.note);
  });

  it('machine formats keep ISO times and whole text', async () => {
    for (const format of ['csv', 'tsv'] as const) {
      const { printer, out } = setup(format, 40);
      await printer.list(rows, columns);
      expect(out()).toContain('2025-01-15T11:57:00.000Z');
      expect(out()).toContain(rows[0]?.note);
      expect(out()).toContain('optional-column-value');
    }
  });

  it('display replaces the value in a table only', async () => {
    const shown: Array<Column<Row>> = [{ header: 'N', value: (r) => r.name, display: (r) => r.name.length }];
    const table = setup('table', 80);
    await table.printer.list(rows, shown);
    expect(table.out()).toBe('N\n25\n12\n');
    const tsv = setup('tsv', 80);
    await tsv.printer.list(rows, shown);
    expect(tsv.out()).toBe('domain_check_availability\nemail_verify\n');
  });
});

describe('key/value screens', () => {
  const fields = [
    ['base_url_source', 'env TASKCTL_BASE_URL'],
    ['price_per_item', 2],
    ['balance_after', 98],
    ['created', '2025-01-15T11:57:00.000Z'],
  ] as const;
  const json = { base_url_source: 'env TASKCTL_BASE_URL', price_per_item: 2, balance_after: 98 };

  it('label fields for people on a terminal, timestamps with their age', () => {
    const { printer, out } = setup('table', 80);
    printer.detail(fields, json);
    expect(out()).toContain('Base URL source:  env TASKCTL_BASE_URL\n');
    expect(out()).toContain('Price per item:   2\n');
    expect(out()).toContain('Balance after:    98\n');
    expect(out()).toContain('Created:          2025-01-15T11:57:00.000Z (3m ago)\n');
  });

  it('keep the machine keys in csv and json, and plain values in tsv', () => {
    const csv = setup('csv');
    csv.printer.detail(fields, json);
    expect(csv.out().split('\n')[0]).toBe('base_url_source,price_per_item,balance_after,created');
    const tsv = setup('tsv');
    tsv.printer.detail(fields, json);
    expect(tsv.out()).toBe('env TASKCTL_BASE_URL\t2\t98\t2025-01-15T11:57:00.000Z\n');
    const out = setup('json');
    out.printer.detail(fields, json);
    expect(JSON.parse(out.out())).toEqual(json);
  });
});

describe('the width budget (off by one)', () => {
  it('a table never touches the last column: fitted to one less than the terminal', async () => {
    const note: Array<Column<{ text: string }>> = [{ header: 'Note', value: (r) => r.text, truncate: true }];
    const { printer, out } = setup('table', 40);
    await printer.list([{ text: 'x'.repeat(40) }], note);
    expect(widest(out())).toBe(39);
  });
});

describe('styled lines (webhook listen) on a terminal', () => {
  const parts = [
    '2026-11-25T18:04:00.750Z  ',
    { text: 'completed', status: true },
    '  task 1 domain_check_availability 40/40 done, 0 failed',
    { text: '  (duplicate, not handed on again)', style: 'dim' as const },
  ];

  it('wrap at spaces within the width, the continuation indented', () => {
    const memory = createMemoryIO({ stdoutTTY: true, stderrTTY: true, columns: 80 });
    const printer = createPrinter({ io: memory.io, format: 'table', color: false, wrap: wrapText, wrapWidth: 79 });
    const out = () => memory.stdout.text();
    printer.styledLine(parts);
    expect(widest(out())).toBeLessThanOrEqual(79);
    expect(out()).toMatch(/\n {2}\S/);
    expect(out().replace(/\n {2}/g, ' ')).toContain('40/40 done, 0 failed (duplicate, not handed on again)');
  });

  it('stay one line each when stdout is not a terminal', () => {
    const { printer, out } = setup('table', 80, false);
    printer.styledLine(parts);
    expect(out().split('\n')).toHaveLength(2);
  });
});
