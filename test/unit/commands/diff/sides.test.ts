/** `taskctl diff A B` in process: tasks through a mocked API, files on disk, a journal, exit codes 0 / 15 / 2 / 3. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_LIMITS } from '../../../../src/core/diff/sort.js';
import type { InputStream } from '../../../../src/output/io.js';
import { writeJournal } from '../../core/job/fixture.js';
import { mockApi, runTaskctl, T0, type MockApi } from '../run-in-process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-cmd-'));
  dirs.push(dir);
  return dir;
}
function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

interface Item {
  target: string;
  status: string;
  data: unknown;
  error?: string;
}
const avail = (target: string, available: boolean): Item => ({ target, status: 'completed', data: { available } });

function taskBody(id: number, items: Item[], service = 'domain_check_availability') {
  return {
    success: true,
    data: {
      id,
      service,
      status: 'completed',
      total_items: items.length,
      cost: items.length,
      created_at: new Date(T0 - 600_000).toISOString(),
      completed_at: new Date(T0 - 540_000).toISOString(),
      items,
    },
  };
}

function replyTask(api: MockApi, id: number, items: Item[], service?: string) {
  api.reply('GET', `/tasks/${id}`, 200, taskBody(id, items, service));
}

interface Rec {
  target: string;
}
const ndjson = (records: object[]) => records.map((record) => `${JSON.stringify(record)}\n`).join('');
const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);

describe('diff of two tasks', () => {
  it('the same items in one service: exit 0, nothing printed', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', true), avail('b.com', false)]);
    replyTask(api, 2, [avail('b.com', false), avail('a.com', true)]);
    const result = await runTaskctl(['diff', '1', '2'], { api });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('integers past 2^53 in the results compare by their digits, as the service wrote them', async () => {
    const api = mockApi();
    // Written by hand: JSON.stringify of a number cannot hold these digits.
    const body = (id: number, n: string) =>
      JSON.stringify(taskBody(id, [avail('a.com', true)])).replace('"available":true', `"available":true,"n":${n}`);
    api.reply('GET', '/tasks/1', 200, body(1, '9007199254740993'));
    api.reply('GET', '/tasks/2', 200, body(2, '9007199254740992'));
    const result = await runTaskctl(['diff', '1', '2', '-o', 'ndjson'], { api });
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout).toContain('"field":"n","before":9007199254740993,"after":9007199254740992');
  });

  it('changes: exit 15, one ndjson record per change with JSON types and both task ids', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', true), avail('b.com', false), avail('gone.com', true)]);
    replyTask(api, 2, [avail('a.com', true), avail('b.com', true), avail('new.com', false)]);
    const result = await runTaskctl(['diff', '1', '2', '-o', 'ndjson'], { api });
    expect(result.code, result.stderr).toBe(15);
    const byTarget = (x: unknown, y: unknown) => ((x as Rec).target < (y as Rec).target ? -1 : 1);
    expect(lines(result.stdout).sort(byTarget)).toEqual([
      {
        target: 'b.com',
        field: 'available',
        before: false,
        after: true,
        before_task: 1,
        after_task: 2,
        change: 'changed',
      },
      {
        target: 'gone.com',
        field: 'item',
        before: null,
        after: null,
        before_task: 1,
        after_task: null,
        change: 'removed',
      },
      {
        target: 'new.com',
        field: 'item',
        before: null,
        after: null,
        before_task: null,
        after_task: 2,
        change: 'added',
      },
    ]);
    expect(api.calls).toEqual(['GET /tasks/1', 'GET /tasks/2']);
  });

  it('for people: the summary first, then a table of item, field, before, after', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', false), avail('b.com', true), avail('c.com', false)]);
    replyTask(api, 2, [avail('a.com', true), avail('b.com', false), avail('c.com', false)]);
    const result = await runTaskctl(['diff', '1', '2', '-o', 'table'], { api });
    expect(result.code).toBe(15);
    expect(result.stdout).toContain('2 of 3 items changed: 1 became available, 1 became unavailable\n\n');
    expect(result.stdout.indexOf('changed:')).toBeLessThan(result.stdout.indexOf('ITEM'));
    expect(result.stdout).toMatch(/ITEM\s+FIELD\s+BEFORE\s+AFTER/);
    expect(result.stdout).toMatch(/a\.com\s+available\s+false\s+true/);
  });

  it('a csv side names boolean flips as a JSON side does: its "true" and "false" are the booleans show -o csv wrote', async () => {
    const csv = file('r1.csv', 'task,target,status,available\n1,a.com,completed,false\n1,b.com,completed,true\n');
    const after = file(
      'r2.ndjson',
      ndjson([
        { task: 1, target: 'a.com', status: 'completed', available: true },
        { task: 1, target: 'b.com', status: 'completed', available: false },
      ]),
    );
    const result = await runTaskctl(['diff', csv, after, '-o', 'table']);
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout).toContain('2 of 2 items changed: 1 became available, 1 became unavailable\n');
  });

  it('a task still running: its items without a result are compared as they are, and stderr says so (exit 15)', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', true), avail('b.com', false), avail('c.com', true)]);
    const running = taskBody(2, [
      avail('a.com', true),
      { target: 'b.com', status: 'processing', data: null },
      { target: 'c.com', status: 'pending', data: null },
    ]);
    api.reply('GET', '/tasks/2', 200, {
      ...running,
      data: { ...running.data, status: 'processing', completed_at: null },
    });
    const result = await runTaskctl(['diff', '1', '2', '-o', 'tsv'], { api });
    // As for a job not finished: the comparison of what there is (its exit code), with a word on stderr.
    expect(result.code, result.stderr).toBe(15);
    expect(result.stderr).toBe(
      'warning: task 2 is still processing: 2 of its 3 items have no result yet, so they may show as changes (wait for it first: taskctl wait 2)\n',
    );
  });

  it('-q alone prints nothing: the exit code answers', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', false)]);
    replyTask(api, 2, [avail('a.com', true)]);
    expect(await runTaskctl(['diff', '1', '2', '-q'], { api })).toEqual({
      code: 15,
      stdout: '',
      stderr: '',
    });
  });

  it('two services: exit 2', async () => {
    const api = mockApi();
    replyTask(api, 1, [avail('a.com', false)]);
    replyTask(api, 2, [avail('a.com', true)], 'domain_whois_history');
    const result = await runTaskctl(['diff', '1', '2'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('different services: domain_check_availability (task 1) and domain_whois_history');
  });

  it('a task that does not exist keeps its exit code (5)', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/9', 404, { success: false, error: { code: 'not_found', message: 'Task 9 not found' } });
    const result = await runTaskctl(['diff', '9', file('x.ndjson', ndjson([{ target: 'a' }]))], { api });
    expect(result.code).toBe(5);
  });
});

describe('a side whose item results cannot be read', () => {
  const withoutItems = (id: number, items: Item[], listed?: number) => {
    const body = taskBody(id, items);
    const { items: all, ...rest } = body.data;
    return { ...body, data: listed === undefined ? rest : { ...rest, items: all.slice(0, listed) } };
  };

  it('a task sent without its items, or with fewer than it has: exit 8 with one line, never "the same"', async () => {
    const items = [avail('a.com', true), avail('b.com', false)];
    for (const listed of [undefined, 1]) {
      const api = mockApi();
      replyTask(api, 1, items.slice(0, 1));
      api.reply('GET', '/tasks/2', 200, withoutItems(2, items, listed));
      const result = await runTaskctl(['diff', '1', '2'], { api });
      expect(result.code, result.stderr).toBe(8);
      expect(result.stdout).toBe('');
      const [line, hint, more] = result.stderr.trim().split('\n');
      expect(line).toMatch(
        listed === undefined
          ? /^error: the service sent no item results for task 2: diff cannot tell whether the two sides are the same$/
          : /^error: task 2 lists 1 of its 2 items: diff cannot tell whether the two sides are the same$/,
      );
      expect(hint).toContain('taskctl show 2');
      expect(more).toBeUndefined();
    }
  });

  it('an export listing fewer items than its total_items: exit 8 as for the task by id, json and ndjson', async () => {
    const task = { id: 1, service: 's', status: 'completed', items: [avail('a.com', true)], total_items: 5 };
    for (const [name, text] of [
      ['p.json', JSON.stringify(task, null, 2)],
      ['p.ndjson', `${JSON.stringify(task)}\n`],
    ] as const) {
      const path = file(name, text);
      const result = await runTaskctl(['diff', path, path]);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^error: .*p\.(nd)?json:1: task 1 lists 1 of its 5 items: diff cannot tell whether the two sides are the same\n/,
      );
    }
  });

  it('a journal whose tasks come without items: exit 8, not 0', async () => {
    const journal = writeJournal({ items: 1, chunkSize: 1, tasks: [11] });
    const api = mockApi();
    api.reply('GET', '/tasks/11', 200, withoutItems(11, [avail('a.com', true)]));
    const other = file('x.ndjson', ndjson([{ target: 'a.com', status: 'completed', available: false }]));
    const result = await runTaskctl(['diff', journal, other], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain('no item results for task 11');
  });
});

describe('diff of files', () => {
  it('a file against itself: exit 0, nothing printed; ./42 is a file', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, '42'),
      ndjson([{ task: 1, target: 'a', status: 'completed', available: true, error: null }]),
    );
    const result = await runTaskctl(['diff', join(dir, '42'), join(dir, '42')]);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('csv against ndjson: compared as the text csv prints; csv out', async () => {
    const csv = file(
      'a.csv',
      'task,target,status,available,error\n1,a.com,completed,true,\n1,b.com,completed,false,\n',
    );
    const nd = file(
      'b.ndjson',
      ndjson([
        { task: 2, target: 'a.com', status: 'completed', available: true, error: null },
        { task: 2, target: 'b.com', status: 'completed', available: true, error: null },
      ]),
    );
    const result = await runTaskctl(['diff', csv, nd, '-o', 'csv']);
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout).toBe(
      'target,field,before,after,before_task,after_task,change\nb.com,available,false,true,1,2,changed\n',
    );
  });

  it('sides with no task ids: an item added or removed still says which, in every machine format', async () => {
    const row = (target: string) => ({ target, status: 'completed', available: true });
    const x = file('x.ndjson', ndjson([row('a.com'), row('gone.com')]));
    const y = file('y.ndjson', ndjson([row('a.com'), row('new.com')]));
    const tsv = await runTaskctl(['diff', x, y, '-o', 'tsv']);
    expect(tsv.code, tsv.stderr).toBe(15);
    expect(tsv.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'gone.com\titem\t\t\t\t\tremoved',
      'new.com\titem\t\t\t\t\tadded',
    ]);
    const records = lines((await runTaskctl(['diff', x, y, '-o', 'ndjson'])).stdout) as Array<Record<string, unknown>>;
    expect(records.map(({ target, change }) => `${String(target)} ${String(change)}`).sort()).toEqual([
      'gone.com removed',
      'new.com added',
    ]);
  });

  it('a json export (one task, as show -o json prints it) against the same items in ndjson: exit 0', async () => {
    const json = file(
      'a.json',
      JSON.stringify(taskBody(4, [avail('a.com', true), avail('b.com', false)]).data, null, 2),
    );
    const nd = file(
      'b.ndjson',
      ndjson([
        { task: 5, target: 'b.com', status: 'completed', available: false, error: null },
        { task: 5, target: 'a.com', status: 'completed', available: true, error: null },
      ]),
    );
    expect(await runTaskctl(['diff', json, nd])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it("no result field in common (another service, a renamed field): exit 2 naming each side's, before any output", async () => {
    const dom = file('dom.ndjson', ndjson([{ target: 'x1', status: 'completed', available: true, error: null }]));
    const whois = file('whois.ndjson', ndjson([{ target: 'x1', status: 'completed', records: 3, error: null }]));
    for (const format of ['table', 'csv']) {
      const result = await runTaskctl(['diff', dom, whois, '-o', format]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        `error: no result field in common: ${dom} has available, ${whois} has records`,
        'Pass --fields status to compare only the statuses, or --fields naming the fields to compare.',
      ]);
    }
    expect(await runTaskctl(['diff', dom, whois, '--fields', 'status'])).toEqual({ code: 0, stdout: '', stderr: '' });
    // A side with no result field at all (every item failed) is a change of status, compared as before.
    const failed = file('failed.ndjson', ndjson([{ target: 'x1', status: 'failed', error: 'timeout' }]));
    expect((await runTaskctl(['diff', dom, failed, '-q'])).code).toBe(15);
  });

  it('--fields status,available where every item of both sides failed (two nights of one outage): statuses compared', async () => {
    const night = (error: string, status = 'failed') =>
      ndjson([
        { target: 'x1', status: 'failed', error },
        { target: 'x2', status, error },
      ]);
    const a = file('a.ndjson', night('timeout'));
    const warning = 'warning: no field "available" on either side (neither has results): not compared\n';
    const same = await runTaskctl(['diff', a, file('b.ndjson', night('refused')), '--fields', 'status,available']);
    expect(same).toEqual({ code: 0, stdout: '', stderr: warning });
    const other = file('c.ndjson', night('timeout', 'cancelled'));
    const changed = await runTaskctl(['diff', a, other, '--fields', 'status,available', '-o', 'tsv']);
    expect(changed).toEqual({ code: 15, stdout: 'x2\tstatus\tfailed\tcancelled\t\t\tchanged\n', stderr: warning });
  });

  it('stdin is -', async () => {
    const a = file('a.ndjson', ndjson([{ target: 'a', status: 'failed' }]));
    const result = await runTaskctl(['diff', a, '-', '-o', 'tsv'], {
      stdin: ndjson([{ target: 'a', status: 'completed' }]),
    });
    expect(result.code).toBe(15);
    expect(result.stdout).toBe('a\tstatus\tfailed\tcompleted\t\t\tchanged\n');
  });

  it('one stream on both sides (`- /dev/stdin`, `/dev/fd/3 /proc/self/fd/3`) is exit 2 before reading: each side would get part of it', async () => {
    for (const [a, b] of [
      ['-', '/dev/stdin'],
      ['/dev/fd/0', '-'],
      [`/proc/${process.pid}/fd/0`, '/dev/stdin'],
      ['/dev/fd/3', '/proc/self/fd/3'],
    ] as const) {
      const result = await runTaskctl(['diff', a, b], { stdin: ndjson([{ target: 'a', status: 'completed' }]) });
      expect(result.code, `${a} ${b}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/^error: (stdin \(-\) can be only one side|\S+ and \S+ are one stream)/);
    }
  });

  it('the key on stdin (--api-key-file -) and a side read from it: exit 2 before reading, as create refuses', async () => {
    const a = file('a.ndjson', ndjson([{ target: 'a', status: 'failed' }]));
    for (const side of ['-', '/dev/stdin']) {
      const result = await runTaskctl(['--api-key-file', '-', 'diff', a, side], { stdin: 'sk_pasted_secret_1234\n' });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^error: stdin cannot carry both the API key/);
    }
  });

  it('tsv is exit 3 with a hint to export ndjson or csv', async () => {
    const result = await runTaskctl(['diff', file('a.tsv', '1\ta.com\tcompleted\ttrue\t\n'), file('b.tsv', 'x\n')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('looks like a tsv export');
    expect(result.stderr).toContain('-o ndjson');
  });

  it('no target field or column: exit 3 naming the file and the line', async () => {
    const nd = file('a.ndjson', ndjson([{ target: 'a' }, { name: 'b' }]));
    const ok = file('ok.ndjson', ndjson([{ target: 'a' }]));
    const result = await runTaskctl(['diff', ok, nd]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${nd}:2: no "target" field`);
    const csv = file('a.csv', 'task,name\n1,a\n');
    const second = await runTaskctl(['diff', csv, ok]);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`${csv}:1: no "target" column`);
  });

  it('a json list of targets, numbers or nulls is no export: exit 3 naming the file and the line, never "the same"', async () => {
    const a = file('t1.json', '["a.com","b.com"]\n');
    const b = file('t2.json', '["c.com"]\n');
    const result = await runTaskctl(['diff', a, b]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${a}:1: element 1 of the list is a string, not an item (a JSON object)`);
    for (const text of ['[1,2]', '[null,"x",5,true]']) {
      const side = file('n.json', `${text}\n`);
      const again = await runTaskctl(['diff', side, side]);
      expect(again.code, text).toBe(3);
      expect(again.stderr, text).toContain(`${side}:1: element 1 of the list is`);
    }
  });

  it('an export wrapped in one more list is refused (exit 3), not read as every item removed (15)', async () => {
    const good = file('good.json', '[{"target":"a.com","status":"completed","available":true}]\n');
    const wrapped = file('wrapped.json', '[[{"target":"a.com","status":"completed","available":false}]]\n');
    const result = await runTaskctl(['diff', good, wrapped]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${wrapped}:1: element 1 of the list is a list`);
  });

  it('an ndjson file of scalars is named as ndjson (a line that is no object), not as a csv without a header', async () => {
    const junk = file('junk.ndjson', '1\n"x"\nnull\n');
    const result = await runTaskctl(['diff', junk, junk]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${junk}:1: expected a JSON object`);
    expect(result.stderr).not.toContain('csv header');
    const strings = file('s.ndjson', '"a.com"\n"b.com"\n');
    const second = await runTaskctl(['diff', strings, strings]);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`${strings}:1: expected a JSON object`);
  });

  it('a task on an ndjson line whose items hold a null or a string: exit 3 naming the line, never a crash', async () => {
    const side = file(
      't.ndjson',
      '{"id":7,"items":[{"target":"a.com"}]}\n{"id":8,"items":[{"target":"b.com"},null]}\n',
    );
    const result = await runTaskctl(['diff', side, side]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`${side}:2: item 2 of task 8 is null, not a JSON object`);
  });
});

describe('diff of a journal', () => {
  it('a journal against its own export: exit 0; an unfinished job says so and uses the tasks it has', async () => {
    const first = [avail('a.com', true), avail('b.com', false)];
    const second = [avail('c.com', true)];
    const journal = writeJournal({ items: 3, chunkSize: 2, tasks: [11, 12] });
    const exported = file(
      'job.ndjson',
      ndjson(
        [...first.map((item) => ({ task: 11, ...item })), ...second.map((item) => ({ task: 12, ...item }))].map(
          ({ task, target, status, data }) => ({ task, target, status, ...(data as object), error: null }),
        ),
      ),
    );
    const api = mockApi();
    replyTask(api, 11, first);
    replyTask(api, 12, second);
    const result = await runTaskctl(['diff', journal, exported], { api });
    expect(result, result.stderr).toEqual({ code: 0, stdout: '', stderr: '' });

    const unfinished = writeJournal({ items: 3, chunkSize: 2, tasks: [11] });
    const api2 = mockApi();
    replyTask(api2, 11, first);
    // Given relative to the working directory: the hint names the journal by its absolute path.
    const given = relative(process.cwd(), unfinished);
    const partial = await runTaskctl(['diff', given, exported, '-o', 'ndjson'], { api: api2 });
    expect(partial.code).toBe(15);
    expect(partial.stderr).toContain('is incomplete');
    expect(partial.stderr).toContain(`(finish it: taskctl resume ${unfinished})`);
    expect(lines(partial.stdout)).toEqual([
      { target: 'c.com', field: 'item', before: null, after: null, before_task: null, after_task: 12, change: 'added' },
    ]);
  });

  it('a job whose tasks still run: compared as they are, and stderr names them and `wait --job`', async () => {
    const journal = writeJournal({ items: 3, chunkSize: 2, tasks: [11, 12] });
    const api = mockApi();
    replyTask(api, 11, [avail('a.com', true), avail('b.com', false)]);
    const running = taskBody(12, [{ target: 'c.com', status: 'pending', data: null }]);
    api.reply('GET', '/tasks/12', 200, {
      ...running,
      data: { ...running.data, status: 'pending', completed_at: null },
    });
    const exported = file('job.ndjson', ndjson([{ target: 'c.com', status: 'completed', available: true }]));
    const result = await runTaskctl(['diff', journal, exported, '-o', 'ndjson'], { api });
    expect(result.code).toBe(15);
    expect(result.stderr).toContain(
      `warning: task 12 is still pending: 1 of its 1 item has no result yet, so it may show as a change (wait for it first: taskctl wait --job ${journal})`,
    );
  });

  it('a journal of another server is exit 2, as resume refuses it', async () => {
    const journal = writeJournal({ items: 1, chunkSize: 1, tasks: [11], baseUrl: 'https://other.test/api/v1' });
    const result = await runTaskctl(['diff', journal, file('x.ndjson', ndjson([{ target: 'a' }]))], {
      api: mockApi(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('belongs to another service');
  });
});

describe('the run files', () => {
  // Runs of 64 KiB: the side below spills.
  const limits = { ...RUN_LIMITS };
  beforeEach(() => (RUN_LIMITS.bytes = 64 * 1024));
  afterEach(() => Object.assign(RUN_LIMITS, limits));

  /** A side large enough to spill sorted runs (about 240 KB of lines: four runs of RUN_LIMITS.bytes). */
  const big = () =>
    file(
      'big.ndjson',
      Array.from({ length: 5_000 }, (_, i) => `{"target":"t${(i * 7919) % 5_000}","status":"completed"}\n`).join(''),
    );

  /** stdin that gives one record, runs `then` (the first side has been read and spilled by now), then gives `rest`. */
  function stdinThen(then: () => void, rest: string): InputStream {
    return {
      isTTY: false,
      async *[Symbol.asyncIterator]() {
        yield '{"target":"t1","status":"completed"}\n';
        await Promise.resolve();
        then();
        yield rest;
      },
    };
  }

  const scratchDirs = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('taskctl-scratch-'));

  async function withTmp<T>(work: (tmp: string) => Promise<T>): Promise<T> {
    const tmp = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      return await work(tmp);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  }

  it('are removed after an error', async () => {
    const path = big();
    await withTmp(async (tmp) => {
      let during: string[] = [];
      const result = await runTaskctl(['diff', path, '-'], {
        stdinStream: stdinThen(() => (during = scratchDirs(tmp)), '{"no":"target"}\n'),
      });
      expect(result.code, result.stderr).toBe(3);
      expect(during).toHaveLength(1);
      expect(scratchDirs(tmp)).toEqual([]);
    });
  });

  it('are removed on Ctrl-C (the run is aborted): exit 130', async () => {
    const path = big();
    const controller = new AbortController();
    await withTmp(async (tmp) => {
      let during: string[] = [];
      const result = await runTaskctl(['diff', path, '-'], {
        signal: controller.signal,
        stdinStream: stdinThen(() => {
          during = scratchDirs(tmp);
          controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
        }, '{"target":"t2","status":"completed"}\n'),
      });
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toBe('error: interrupted\nNothing was compared; run the same diff again.\n');
      expect(during).toHaveLength(1);
      expect(scratchDirs(tmp)).toEqual([]);
    });
  });
});

describe('diff stopped by Ctrl-C', () => {
  it('while a task is read: exit 130, an error saying nothing changed and the same command again, not a bare `interrupted`', async () => {
    const api = mockApi();
    api.allowUnused();
    const controller = new AbortController();
    api.reply('GET', '/tasks/1', 200, () => {
      controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
      return taskBody(1, [avail('a.com', true)]);
    });
    replyTask(api, 2, [avail('a.com', false)]);
    const result = await runTaskctl(['diff', '1', '2'], { api, signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});

describe('diff -q', () => {
  const changed = (api: MockApi) => {
    replyTask(api, 1, [avail('a.com', true)]);
    replyTask(api, 2, [avail('a.com', false)]);
  };
  it.each([['-o', 'ndjson'], ['-o', 'csv'], ['--json']])(
    'with an explicit format (%s %s) the format wins: the changes on stdout, exit 15',
    async (...format) => {
      const api = mockApi();
      changed(api);
      const result = await runTaskctl(['diff', '1', '2', '-q', ...format.filter(Boolean)], { api });
      expect(result.code, result.stderr).toBe(15);
      expect(result.stdout).toContain('a.com');
    },
  );

  it('alone: nothing printed, the exit code speaks', async () => {
    const api = mockApi();
    changed(api);
    const result = await runTaskctl(['diff', '1', '2', '-q'], { api });
    expect(result).toMatchObject({ code: 15, stdout: '' });
  });
});
