/** `taskctl show` in-process: the server's data kept in machine output, fixed columns, any result shape. */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, type RunResult } from '../run-in-process.js';

interface ItemFixture {
  target: string;
  status: string;
  data?: unknown;
  error?: string | null;
  [extra: string]: unknown;
}

function taskBody(items: ItemFixture[] | undefined, extra: Record<string, unknown> = {}) {
  return {
    success: true,
    data: {
      id: 42,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: items?.length ?? 3,
      cost: items?.length ?? 3,
      created_at: '2025-01-15T11:00:00Z',
      completed_at: '2025-01-15T11:01:00Z',
      ...(items === undefined ? {} : { items }),
      ...extra,
    },
  };
}

async function show(items: ItemFixture[] | undefined, args: string[], extra: Record<string, unknown> = {}) {
  const api = mockApi();
  api.reply('GET', '/tasks/42', 200, taskBody(items, extra));
  return runTaskctl(['show', '42', ...args], { api });
}

const lines = (result: RunResult) => result.stdout.split('\n').filter((line) => line !== '');
const ndjson = (result: RunResult) => lines(result).map((line) => JSON.parse(line) as Record<string, unknown>);

const DOMAINS: ItemFixture[] = [
  { target: 'free.com', status: 'completed', data: { available: true } },
  { target: 'taken.com', status: 'completed', data: { available: false } },
  { target: 'also-free.org', status: 'completed', data: { available: true } },
  { target: 'bad.com', status: 'failed', data: null, error: 'lookup failed' },
];

describe('show -o ndjson keeps the server data and JSON types', () => {
  it('select(.available) returns exactly the available domains (false stays false)', async () => {
    const result = await show(DOMAINS, ['-o', 'ndjson']);
    expect(result.code).toBe(0);
    const records = ndjson(result);
    expect(records.filter((r) => r.available).map((r) => r.target)).toEqual(['free.com', 'also-free.org']);
    expect(records[1]).toMatchObject({ target: 'taken.com', status: 'completed', available: false, error: null });
    expect(records[3]).toMatchObject({ target: 'bad.com', status: 'failed', error: 'lookup failed' });
  });

  it('keeps lists, objects, numbers and unknown item fields as they came', async () => {
    const items: ItemFixture[] = [
      {
        target: 'a.com',
        status: 'completed',
        duration_ms: 12,
        data: { emails: ['x@a.com', 'y@a.com'], whois: { registrar: 'R', years: 3 }, score: 0.5, note: null },
      },
    ];
    const [record] = ndjson(await show(items, ['-o', 'ndjson']));
    expect(record).toEqual({
      task: 42,
      target: 'a.com',
      status: 'completed',
      emails: ['x@a.com', 'y@a.com'],
      whois: { registrar: 'R', years: 3 },
      score: 0.5,
      note: null,
      error: null,
      duration_ms: 12,
    });
  });
});

describe('show -o json keeps unknown fields', () => {
  it('prints the task and its items with fields the client does not know', async () => {
    const items = [{ target: 'a.com', status: 'completed', data: { available: true, extra: [1] }, shard: 'eu-1' }];
    const result = await show(items, ['-o', 'json'], { region: 'eu', labels: { team: 'x' } });
    expect(result.code).toBe(0);
    const task = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(task).toMatchObject({ id: 42, region: 'eu', labels: { team: 'x' } });
    expect(task.items).toEqual(items);
  });
});

describe('show accepts result data of any JSON shape', () => {
  const SHAPES: ItemFixture[] = [
    { target: 'array.com', status: 'completed', data: [1, 'two', { three: 3 }] },
    { target: 'string.com', status: 'completed', data: 'plain text' },
    { target: 'number.com', status: 'completed', data: 7 },
    { target: 'null.com', status: 'completed', data: null },
    { target: 'object.com', status: 'completed', data: { a: { b: { c: true } } } },
  ];

  it('exits 0 in every format', async () => {
    for (const format of ['table', 'csv', 'tsv', 'json', 'ndjson']) {
      const result = await show(SHAPES, ['-o', format]);
      expect({ format, code: result.code, stderr: result.stderr }).toEqual({ format, code: 0, stderr: '' });
    }
  });

  it('flattens objects and puts anything else as compact JSON in one `data` cell', async () => {
    const result = await show(SHAPES, ['-o', 'csv']);
    expect(result.stdout).toBe(
      [
        'task,target,status,data,a.b.c,error',
        '42,array.com,completed,"[1,""two"",{""three"":3}]",,',
        '42,string.com,completed,"""plain text""",,',
        '42,number.com,completed,7,,',
        '42,null.com,completed,,,',
        '42,object.com,completed,,true,',
        '',
      ].join('\n'),
    );
  });

  it('keeps non-object data as `data` in ndjson', async () => {
    const records = ndjson(await show(SHAPES, ['-o', 'ndjson']));
    // One shape for every row: an item without `data` has it as null.
    expect(records.map((r) => r.data)).toEqual([[1, 'two', { three: 3 }], 'plain text', 7, null, null]);
    expect(records[4]).toMatchObject({ a: { b: { c: true } } });
  });
});

describe('show -o csv|tsv: one fixed column set whatever the filters', () => {
  const MIXED: ItemFixture[] = [
    { target: 'a.com', status: 'completed', data: { available: true } },
    { target: 'b.com', status: 'failed', data: null, error: 'boom' },
    { target: 'c.com', status: 'completed', data: { available: false, price: 10 } },
  ];

  it('has the same columns, error last, with and without --items-status', async () => {
    const all = await show(MIXED, ['-o', 'tsv']);
    const failed = await show(MIXED, ['-o', 'tsv', '--items-status', 'failed']);
    const completed = await show(MIXED, ['-o', 'tsv', '--items-status', 'completed']);
    expect(lines(all)).toEqual([
      '42\ta.com\tcompleted\ttrue\t\t',
      '42\tb.com\tfailed\t\t\tboom',
      '42\tc.com\tcompleted\tfalse\t10\t',
    ]);
    expect(lines(failed)).toEqual(['42\tb.com\tfailed\t\t\tboom']);
    expect(lines(completed)).toEqual(['42\ta.com\tcompleted\ttrue\t\t', '42\tc.com\tcompleted\tfalse\t10\t']);
  });

  it('csv always has the error column in its header', async () => {
    const result = await show(
      MIXED.filter((item) => item.status === 'completed'),
      ['-o', 'csv'],
    );
    expect(lines(result)[0]).toBe('task,target,status,available,price,error');
  });

  it('prefixes data keys that would collide with the fixed columns', async () => {
    const items = [{ target: 'a.com', status: 'completed', data: { status: 'x', error: 'y', target: 'z' } }];
    const result = await show(items, ['-o', 'csv']);
    expect(lines(result)).toEqual([
      'task,target,status,data.status,data.error,data.target,error',
      '42,a.com,completed,x,y,z,',
    ]);
  });
});

describe('show --items-status failed means "did not complete"', () => {
  const ODD: ItemFixture[] = [
    { target: 'ok.com', status: 'completed', data: { available: true } },
    { target: 'err.com', status: 'error', data: null },
    { target: 'skip.com', status: 'skipped', data: null },
    { target: 'odd.com', status: 'mystery', data: null },
    { target: 'bad.com', status: 'failed', data: null },
  ];

  it('lists items with status error, skipped, failed or unknown', async () => {
    const result = await show(ODD, ['-o', 'tsv', '--items-status', 'failed']);
    expect(result.code).toBe(0);
    expect(lines(result).map((line) => line.split('\t')[1])).toEqual(['err.com', 'skip.com', 'odd.com', 'bad.com']);
    const completed = await show(ODD, ['-o', 'tsv', '--items-status', 'completed']);
    expect(lines(completed).map((line) => line.split('\t')[1])).toEqual(['ok.com']);
  });

  it('leaves items still going out of both filters while the task runs', async () => {
    const running: ItemFixture[] = [
      { target: 'done.com', status: 'completed', data: { available: true } },
      { target: 'wip.com', status: 'processing', data: null },
      { target: 'err.com', status: 'error', data: null },
    ];
    const extra = { status: 'processing', completed_at: null };
    const failed = await show(running, ['-o', 'tsv', '--items-status', 'failed'], extra);
    expect(lines(failed).map((line) => line.split('\t')[1])).toEqual(['err.com']);
    const completed = await show(running, ['-o', 'tsv', '--items-status', 'completed'], extra);
    expect(lines(completed).map((line) => line.split('\t')[1])).toEqual(['done.com']);
  });

  it('says so on a terminal when no item matches', async () => {
    const result = await show(DOMAINS.slice(0, 2), ['-o', 'table', '--items-status', 'failed']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Items:\s+2 \(2 completed, 0 failed\)/);
    expect(result.stdout).not.toContain('TARGET');
    expect(result.stderr).toBe('no items failed to complete\n');
  });

  it('counts them as failed in the summary, whatever failed_items says', async () => {
    const result = await show(ODD, ['-o', 'table'], { completed_items: 1, failed_items: 1 });
    expect(result.stdout).toMatch(/Items:\s+5 \(1 completed, 4 failed\)/);
  });
});

describe('show of a task without items', () => {
  it('prints the summary and a note, exit 0', async () => {
    const result = await show(undefined, ['-o', 'table']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ID:\s+42$/m);
    expect(result.stderr).toContain('the service sent no item results for task 42');
  });

  it('prints no rows in csv (header only), tsv and ndjson', async () => {
    const csv = await show(undefined, ['-o', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe('task,target,status,error\n');
    expect(csv.stderr).toContain('the service sent no item results for task 42');
    for (const format of ['tsv', 'ndjson']) {
      const result = await show(undefined, ['-o', format]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
    }
  });
});

describe('show: bounded work on hostile data', () => {
  // 40 levels: past the flattener's bounds (16 dotted + 16 in a cell), within any sane wire depth cap. Much deeper
  // values (5,000, 100,000) are printed by the output unit tests (flatten, printer), which need no HTTP round trip.
  it('cuts data nested 40 deep with a marker in a terminal table, and keeps it whole in csv, tsv and JSON', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { n: deep };
    const items = [{ target: 'deep.com', status: 'completed', data: deep }];
    for (const format of ['table', 'csv', 'tsv', 'json', 'ndjson']) {
      const result = await show(items, ['-o', format]);
      expect({ format, code: result.code, stderr: result.stderr }).toEqual({ format, code: 0, stderr: '' });
      if (format === 'table') expect(result.stdout).toContain('…');
      else {
        expect(result.stdout).toContain('bottom');
        expect(result.stdout).not.toContain('…');
      }
      if (format === 'json' || format === 'ndjson')
        expect(() => JSON.parse(format === 'json' ? result.stdout : (lines(result)[0] ?? ''))).not.toThrow();
    }
  });
});

describe('show keeps integers past 2^53 by their digits (a double would round 9007199254740993 to ...992)', () => {
  /** The answer's text, written by hand: JSON.stringify of a number cannot hold these digits. */
  const answer = (items: string[]) => {
    const head = JSON.stringify(taskBody(undefined, { total_items: items.length, cost: items.length })).slice(0, -2);
    return `${head},"items":[${items.join(',')}]}}`;
  };
  const BIG =
    '{"target":"a.com","status":"completed","data":{"n":9007199254740993,"deep":[-12345678901234567891],"s":"90071992547409931","f":9007199254740993.5}}';

  it.each([
    ['a small answer, parsed whole', 0, ['json', 'ndjson', 'csv', 'table']],
    ['an answer past 1 MiB, parsed as it streams', 4_000, ['json', 'csv']],
  ])('in every format: %s', async (_, padding, formats) => {
    const pad = Array.from(
      { length: padding },
      (__, i) => `{"target":"p${i}.com","status":"completed","data":{"note":"${'x'.repeat(300)}"}}`,
    );
    const text = answer([BIG, ...pad]);
    for (const format of formats) {
      const api = mockApi();
      api.reply('GET', '/tasks/42', 200, text);
      const result = await runTaskctl(['show', '42', '-o', format], { api });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('9007199254740993');
      expect(result.stdout).toContain('-12345678901234567891');
      expect(result.stdout).not.toContain('9007199254740992');
      // Inside a string the digits are text; written with a fraction the number is a double, as JSON.parse reads it.
      expect(result.stdout).toContain('90071992547409931');
      if (format === 'json' || format === 'ndjson') expect(result.stdout).toMatch(/"f": ?9007199254740994/);
    }
  });
});
