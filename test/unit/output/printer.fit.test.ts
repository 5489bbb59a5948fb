/** Tables fitted to the terminal, ages, people's labels. */
import { describe, expect, it } from 'vitest';
import { createMemoryIO } from '../../../src/output/memory-io.js';
import { createPrinter, type Column } from '../../../src/output/printer.js';
import type { OutputFormat } from '../../../src/output/format.js';
import { card } from '../../../src/output/stack.js';
import { textWidth, wrapText } from '../../../src/output/width.js';
import { T0 } from '../../clock.js';

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
  const printer = createPrinter({ io: memory.io, format, color: false, now: () => T0, ...(tty && { card }) });
  return { printer, out: () => memory.stdout.text(), err: () => memory.stderr.text() };
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

  it('says which columns it left out, and how to see them', async () => {
    const narrow = setup('table', 60);
    await narrow.printer.list(rows, columns);
    expect(narrow.err()).toBe('1 column hidden (EXTRA): --wide or -o tsv\n');
    const wide = setup('table', 100);
    await wide.printer.list(rows, columns);
    expect(wide.err()).toBe('');
  });

  it('stacks the rows as KEY: value cards, every column, when even the kept columns do not fit', async () => {
    const { printer, out, err } = setup('table', 40);
    await printer.list(rows, columns);
    const text = out();
    expect(widest(text)).toBeLessThan(40);
    expect(text).toMatch(/^NAME: +domain_check_availability$/m);
    expect(text).toMatch(/^CREATED: +3m ago$/m);
    expect(text).toMatch(/^EXTRA: +optional-column-value$/m);
    // The whole description, wrapped at spaces under its first line: nothing cut in a card.
    expect(text.replace(/\n +/g, ' ')).toContain(rows[0]?.note);
    expect(text).toContain('\n\nNAME:');
    expect(err()).toBe('');
  });

  it('a terminal resized between the fit and the cards: the cards keep the width the fit read', async () => {
    const memory = createMemoryIO({ stdoutTTY: true, columns: 40 });
    let reads = 0;
    // 40 columns when the fit reads them, 200 at every later look: the window widened meanwhile.
    Object.defineProperty(memory.io.stdout, 'columns', { get: () => (reads++ === 0 ? 40 : 200) });
    const printer = createPrinter({ io: memory.io, format: 'table', color: false, now: () => T0, card });
    await printer.list(rows, columns);
    const text = memory.stdout.text();
    expect(text).toMatch(/^NAME: +domain_check_availability$/m);
    expect(widest(text)).toBeLessThan(40);
  });

  it('never drops a column named with --columns: the rows stack instead', async () => {
    const { printer, out, err } = setup('table', 60);
    await printer.list(rows, columns, undefined, { chosen: true });
    expect(out()).toMatch(/^EXTRA: +optional-column-value$/m);
    expect(err()).toBe('');
  });

  it('a wrapped column keeps its words whole: the table stacks before it would break one', async () => {
    const wrapped: Array<Column<Row>> = [
      { header: 'Name', value: (r) => r.name },
      { header: 'Note', value: (r) => r.note, wrap: true },
    ];
    const { printer, out } = setup('table', 40);
    await printer.list([{ ...rows[1]!, note: 'Simulated item failure (item starts with "fail-")' }], wrapped);
    expect(out()).toBe(
      'NAME          NOTE\nemail_verify  Simulated item failure\n              (item starts with\n              "fail-")\n',
    );
    const tight = setup('table', 20);
    await tight.printer.list([{ ...rows[1]!, note: 'Simulated item failure' }], wrapped);
    expect(tight.out()).toMatch(/^NOTE: +Simulated\n +item failure$/m);
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

  it('wrap a value to the terminal under its first line, the age of a timestamp kept whole', () => {
    const { printer, out } = setup('table', 40);
    printer.detail([...fields, ['note', 'Checks whether each domain name is available for registration.']], json);
    expect(widest(out())).toBeLessThan(40);
    // The labels leave 21 columns beside them, too few for the timestamp: it alone goes under its label.
    expect(out()).toContain('Created:\n  2025-01-15T11:57:00.000Z (3m ago)\n');
    expect(out()).toContain('Note:             Checks whether each\n                  domain name is\n');
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
    // The words a line keeps keep their spacing: only the break drops it.
    expect(out().replace(/\n {2}/g, ' ')).toContain('40/40 done, 0 failed  (duplicate, not handed on again)');
    expect(out()).toMatch(/^2026-11-25T18:04:00.750Z {2}completed {2}task 1 /);
  });

  it('stay one line each when stdout is not a terminal', () => {
    const { printer, out } = setup('table', 80, false);
    printer.styledLine(parts);
    expect(out().split('\n')).toHaveLength(2);
  });

  it('break where a part says (lineBreak) at a terminal, the rest indented; in a pipe the part is its text', () => {
    const broken = ['2026-11-25T18:04:00Z  task 1234567890', { text: '  ', lineBreak: true as const }, 'email_verify'];
    const memory = createMemoryIO({ stdoutTTY: true, stderrTTY: true, columns: 50 });
    const printer = createPrinter({ io: memory.io, format: 'table', color: false, wrap: wrapText, wrapWidth: 49 });
    printer.styledLine(broken);
    expect(memory.stdout.text()).toBe('2026-11-25T18:04:00Z  task 1234567890\n  email_verify\n');
    const piped = setup('table', 50, false);
    piped.printer.styledLine(broken);
    expect(piped.out()).toBe('2026-11-25T18:04:00Z  task 1234567890  email_verify\n');
  });
});
