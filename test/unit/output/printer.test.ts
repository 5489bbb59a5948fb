import { beforeAll, describe, expect, it } from 'vitest';
import { loadChalk } from '../../../src/output/colour.js';
import type { OutputFormat } from '../../../src/output/format.js';
import { createMemoryIO, type MemoryIOOptions } from '../../../src/output/memory-io.js';
import { createPrinter, type Column, type PrinterOptions } from '../../../src/output/printer.js';
import { createRedactor } from '../../../src/lib/redact.js';

// Colour is asked for here: chalk loads as a run that colours loads it (output/run-printer.ts).
beforeAll(loadChalk);

const ESC = '\x1b';

interface Task {
  id: number;
  status: string;
  name: string | null;
}

const tasks: Task[] = [
  { id: 7, status: 'completed', name: 'alpha' },
  { id: 1234, status: 'processing', name: null },
];

const columns: Array<Column<Task>> = [
  { header: 'ID', value: (t) => t.id, align: 'right' },
  { header: 'Status', value: (t) => t.status },
  { header: 'Task Name', value: (t) => t.name },
];

function setup(format: OutputFormat, options: Partial<PrinterOptions> = {}, ioOptions: MemoryIOOptions = {}) {
  const memory = createMemoryIO(ioOptions);
  const printer = createPrinter({ io: memory.io, format, color: false, ...options });
  return { printer, out: () => memory.stdout.text(), err: () => memory.stderr.text() };
}

/** Minimal RFC 4180 reader, to prove the CSV round-trips rather than matching our own quoting. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',' || c === '\n') {
      record.push(field);
      field = '';
      if (c === '\n') {
        records.push(record);
        record = [];
      }
    } else field += c;
  }
  return records;
}

describe('list', () => {
  it('table: borderless, uppercase headers, aligned, dash for empty, no escape codes without colour', async () => {
    const { printer, out } = setup('table');
    await printer.list(tasks, columns);
    expect(out()).toBe(
      ['  ID  STATUS      TASK NAME', '   7  completed   alpha', '1234  processing  -', ''].join('\n'),
    );
    expect(out()).not.toContain(ESC);
  });

  it('table with colour: bold headers and column styles, same text once codes are stripped', async () => {
    const { printer, out } = setup('table', { color: true });
    const styled = columns.map((c) =>
      c.header === 'Status' ? { ...c, style: (v: string) => printer.chalk.green(v) } : c,
    );
    await printer.list(tasks, styled);
    expect(out()).toContain(`${ESC}[1mSTATUS${ESC}[22m`);
    expect(out()).toContain(`${ESC}[32mcompleted${ESC}[39m`);

    expect(out().replace(/\x1b\[\d+m/g, '')).toBe(
      ['  ID  STATUS      TASK NAME', '   7  completed   alpha', '1234  processing  -', ''].join('\n'),
    );
  });

  it('table with no rows: nothing on stdout, the empty message on stderr (not when quiet)', async () => {
    const loud = setup('table');
    await loud.printer.list([], columns, undefined, { emptyMessage: 'No tasks found.' });
    expect([loud.out(), loud.err()]).toEqual(['', 'No tasks found.\n']);
    const quiet = setup('table', { quiet: true });
    await quiet.printer.list([], columns);
    expect([quiet.out(), quiet.err()]).toEqual(['', '']);
  });

  it('tsv: no header, tab-separated, empty for null, tabs and newlines in fields become spaces', async () => {
    const { printer, out } = setup('tsv', { color: true });
    await printer.list([...tasks, { id: 9, status: 'failed', name: 'a\tb\nc\r\nd' }], columns);
    expect(out()).toBe('7\tcompleted\talpha\n1234\tprocessing\t\n9\tfailed\ta b c  d\n');
  });

  it('csv: header of snake-case keys (or explicit keys), RFC 4180 quoting that round-trips', async () => {
    const { printer, out } = setup('csv');
    const tricky = [
      { id: 1, status: 'ok', name: 'a,b' },
      { id: 2, status: 'ok', name: 'say "hi"' },
      { id: 3, status: 'ok', name: 'two\nlines' },
      { id: 4, status: 'ok', name: 'plain' },
    ];
    const keyed = columns.map((c) => (c.header === 'ID' ? { ...c, key: 'task_id' } : c));
    await printer.list(tricky, keyed);
    expect(out()).toBe('task_id,status,task_name\n1,ok,"a,b"\n2,ok,"say ""hi"""\n3,ok,"two\nlines"\n4,ok,plain\n');
    expect(parseCsv(out())).toEqual([
      ['task_id', 'status', 'task_name'],
      ['1', 'ok', 'a,b'],
      ['2', 'ok', 'say "hi"'],
      ['3', 'ok', 'two\nlines'],
      ['4', 'ok', 'plain'],
    ]);
  });

  it('csv with no rows still prints the header', async () => {
    const { printer, out } = setup('csv');
    await printer.list([], columns);
    expect(out()).toBe('id,status,task_name\n');
  });

  it('json: pretty `json` when given, else the rows', async () => {
    const a = setup('json');
    await a.printer.list(tasks, columns, { data: tasks.map((t) => t.id) });
    expect(a.out()).toBe(`${JSON.stringify({ data: [7, 1234] }, null, 2)}\n`);
    const b = setup('json');
    await b.printer.list(tasks, columns);
    expect(b.out()).toBe(`${JSON.stringify(tasks, null, 2)}\n`);
    const c = setup('json');
    await c.printer.list([], columns);
    expect(c.out()).toBe('[]\n');
  });

  it('ndjson: one compact object a line, from the json array when given', async () => {
    const a = setup('ndjson');
    await a.printer.list(tasks, columns);
    expect(a.out()).toBe(`${JSON.stringify(tasks[0])}\n${JSON.stringify(tasks[1])}\n`);
    const b = setup('ndjson');
    await b.printer.list(tasks, columns, [{ x: 1 }, { x: 2 }]);
    expect(b.out()).toBe('{"x":1}\n{"x":2}\n');
  });
});

describe('stream', () => {
  const pages = [tasks, [{ id: 5, status: 'pending', name: 'p' }]];
  const all = pages.flat();

  async function streamed(format: OutputFormat, toJson?: (t: Task) => unknown) {
    const { printer, out } = setup(format);
    const stream = printer.stream(columns, toJson);
    const seen: string[] = [];
    for (const page of pages) {
      stream.write(page);
      seen.push(out());
    }
    await stream.end();
    return { seen, final: out() };
  }

  it('tsv prints each page as it arrives', async () => {
    const { seen, final } = await streamed('tsv');
    expect(seen[0]).toBe('7\tcompleted\talpha\n1234\tprocessing\t\n');
    expect(final).toBe(`${seen[0]}5\tpending\tp\n`);
  });

  it('csv prints the header once, then pages', async () => {
    const { seen, final } = await streamed('csv');
    expect(seen[0]).toBe('id,status,task_name\n7,completed,alpha\n1234,processing,\n');
    expect(final).toBe(`${seen[0]}5,pending,p\n`);
  });

  it('ndjson prints each row through toJson as it arrives', async () => {
    const { seen, final } = await streamed('ndjson', (t) => ({ id: t.id }));
    expect(seen[0]).toBe('{"id":7}\n{"id":1234}\n');
    expect(final).toBe('{"id":7}\n{"id":1234}\n{"id":5}\n');
  });

  it('json streams one valid array, identical to JSON.stringify of all rows', async () => {
    const { seen, final } = await streamed('json');
    expect(seen[0]?.startsWith('[\n  {')).toBe(true);
    expect(final).toBe(`${JSON.stringify(all, null, 2)}\n`);
    expect(JSON.parse(final)).toEqual(all);
  });

  it('json with no rows is an empty array; csv with no rows is the header', async () => {
    const a = setup('json');
    const s = a.printer.stream(columns);
    s.write([]);
    await s.end();
    expect(a.out()).toBe('[]\n');
    const b = setup('csv');
    await b.printer.stream(columns).end();
    expect(b.out()).toBe('id,status,task_name\n');
  });

  it('table buffers until end, then prints one aligned table', async () => {
    const { seen, final } = await streamed('table');
    expect(seen).toEqual(['', '']);
    expect(final).toBe(
      ['  ID  STATUS      TASK NAME', '   7  completed   alpha', '1234  processing  -', '   5  pending     p', ''].join(
        '\n',
      ),
    );
  });
});

describe('detail', () => {
  const fields = [
    ['ID', 42],
    ['Status', 'completed'],
    ['Completed At', null],
  ] as const;
  const json = { id: 42, status: 'completed', completed_at: null };

  it('table: aligned label/value lines, dash for empty', () => {
    const { printer, out } = setup('table');
    printer.detail(fields, json);
    expect(out()).toBe('ID:            42\nStatus:        completed\nCompleted At:  -\n');
  });

  it('tsv: the values on one line in field order', () => {
    const { printer, out } = setup('tsv');
    printer.detail(fields, json);
    expect(out()).toBe('42\tcompleted\t\n');
  });

  it('csv: header and one record', () => {
    const { printer, out } = setup('csv');
    printer.detail(fields, json);
    expect(out()).toBe('id,status,completed_at\n42,completed,\n');
  });

  it('json pretty, ndjson compact', () => {
    const a = setup('json');
    a.printer.detail(fields, json);
    expect(a.out()).toBe(`${JSON.stringify(json, null, 2)}\n`);
    const b = setup('ndjson');
    b.printer.detail(fields, json);
    expect(b.out()).toBe(`${JSON.stringify(json)}\n`);
  });

  it('applies a field style only with colour', () => {
    const styled = [['Status', 'failed', (v: string) => `<${v}>`]] as const;
    const plain = setup('table');
    plain.printer.detail(styled, {});
    expect(plain.out()).toBe('Status:  failed\n');
    const coloured = setup('table', { color: true });
    coloured.printer.detail(styled, {});
    expect(coloured.out()).toContain('<failed>');
  });
});

describe('json and line', () => {
  it('json is pretty except for ndjson', () => {
    const a = setup('table');
    a.printer.json({ a: [1] });
    expect(a.out()).toBe('{\n  "a": [\n    1\n  ]\n}\n');
    const b = setup('ndjson');
    b.printer.json({ a: [1] });
    expect(b.out()).toBe('{"a":[1]}\n');
  });

  it('line writes one raw data line to stdout, even when quiet', () => {
    const { printer, out, err } = setup('table', { quiet: true });
    printer.line('12345');
    expect([out(), err()]).toEqual(['12345\n', '']);
  });
});

describe('talk on stderr', () => {
  it('info/success/warn/error go to stderr only, plain without colour', () => {
    const { printer, out, err } = setup('table');
    printer.info('waiting');
    printer.success('created task 42');
    printer.warn('config file was world-readable');
    printer.error('task 42 not found', 'Run `taskctl list` to see your tasks.');
    printer.error('no hint');
    expect(out()).toBe('');
    expect(err()).toBe(
      'waiting\n✓ created task 42\nwarning: config file was world-readable\nerror: task 42 not found\nRun `taskctl list` to see your tasks.\nerror: no hint\n',
    );
  });

  it('quiet suppresses info and success, never warn or error', () => {
    const { printer, err } = setup('table', { quiet: true });
    printer.info('i');
    printer.success('s');
    printer.warn('w');
    printer.error('e');
    expect(err()).toBe('warning: w\nerror: e\n');
  });

  it('stderr colour is decided separately from stdout colour', () => {
    const a = setup('table', { color: false, stderrColor: true });
    a.printer.error('boom');
    a.printer.warn('hm');
    a.printer.success('ok');
    expect(a.err()).toBe(
      `${ESC}[31merror:${ESC}[39m boom\n${ESC}[33mwarning:${ESC}[39m hm\n${ESC}[32m✓${ESC}[39m ok\n`,
    );
    const b = setup('table', { color: true, stderrColor: false });
    b.printer.error('boom');
    expect(b.err()).toBe('error: boom\n');
  });

  it('stderr colour defaults to stdout colour on a TTY stderr only', () => {
    const tty = setup('table', { color: true }, { stderrTTY: true });
    tty.printer.error('x');
    expect(tty.err()).toContain(ESC);
    const pipe = setup('table', { color: true }, { stderrTTY: false });
    pipe.printer.error('x');
    expect(pipe.err()).not.toContain(ESC);
  });

  it('messages keep their line breaks but lose escape sequences', () => {
    const { printer, err } = setup('table');
    printer.error('server said:\n\x1b[2Jgone', 'hint \x1b]0;title\x07');
    expect(err()).toBe('error: server said:\n\\x1b[2Jgone\nhint \\x1b]0;title\\x07\n');
  });
});

describe('neutralising data', () => {
  const evil: Task = { id: 1, status: 'completed\x1b[2J', name: 'evil\u202etxt.exe\u009b' };

  it.each(['table', 'tsv', 'csv', 'json', 'ndjson'] as const)(
    '%s output contains no terminal controls',
    async (format) => {
      const { printer, out } = setup(format, { color: false });
      await printer.list([evil], columns);
      printer.detail([['Name', evil.name]], evil);
      printer.line(evil.status);
      expect(out()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    },
  );

  it('json stays lossless: escaped controls parse back to the original string', async () => {
    const { printer, out } = setup('json');
    await printer.list([evil], columns);
    expect(JSON.parse(out())).toEqual([evil]);
  });
});

describe('redaction', () => {
  const key = 'sk_live_supersecret';
  const leaky: Task = { id: 1, status: 'ok', name: `echo ${key}` };

  it.each(['table', 'tsv', 'csv', 'json', 'ndjson'] as const)('%s data never shows the key', async (format) => {
    const { printer, out } = setup(format, { redact: createRedactor([key]) });
    await printer.list([leaky], columns);
    const stream = printer.stream(columns);
    stream.write([leaky]);
    await stream.end();
    printer.detail([['Name', leaky.name]], leaky);
    printer.json(leaky);
    printer.line(key);
    expect(out()).not.toContain(key);
    expect(out()).toContain('[REDACTED]');
  });

  it('messages and hints never show the key', () => {
    const { printer, err } = setup('table', { redact: createRedactor([key]) });
    printer.info(key);
    printer.success(key);
    printer.warn(key);
    printer.error(`bad key ${key}`, `hint ${key}`);
    expect(err()).not.toContain(key);
    expect(err().match(/\[REDACTED\]/g)).toHaveLength(5);
  });
});

describe('paintStatus and blank', () => {
  it('colours statuses by meaning only when stdout colour is on', () => {
    const plain = setup('table').printer;
    expect(plain.paintStatus('failed')).toBe('failed');
    const coloured = setup('table', { color: true }).printer;
    expect(coloured.paintStatus('completed')).toBe(`${ESC}[32mcompleted${ESC}[39m`);
    expect(coloured.paintStatus('failed')).toBe(`${ESC}[31mfailed${ESC}[39m`);
    expect(coloured.paintStatus('processing')).toBe(`${ESC}[33mprocessing${ESC}[39m`);
    expect(coloured.paintStatus('mystery')).toBe('mystery');
  });

  it('with the task, by its tone: a completed task (or webhook event) with failed items is yellow', () => {
    const { printer, out } = setup('table', { color: true });
    const partial = { status: 'completed', total_items: 2, completed_items: 1, failed_items: 1 };
    expect(printer.paintStatus('completed', partial)).toBe(`${ESC}[33mcompleted${ESC}[39m`);
    expect(printer.paintStatus('timed_out')).toBe(`${ESC}[31mtimed_out${ESC}[39m`);
    printer.styledLine(['at ', { text: 'completed', status: partial }]);
    expect(out()).toBe(`at ${ESC}[33mcompleted${ESC}[39m\n`);
  });

  it('blank writes an empty line to stdout', () => {
    const { printer, out, err } = setup('table');
    printer.blank();
    expect([out(), err()]).toEqual(['\n', '']);
  });
});
