/**
 * `show --job FILE`: every item of a journaled job once, in chunk order, with its task id, in every format; the table
 * starts with a summary; a task failing mid-way stops the output with its exit code; one GET per task.
 */
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { writeJournal } from '../../core/job/fixture.js';
import { sandboxJob } from '../sandbox-job.js';
import {
  API_KEY,
  FakeClock,
  BASE_URL,
  mockApi,
  ORIGIN,
  runTaskctl,
  T0,
  type MockApi,
  type RunResult,
} from '../run-in-process.js';
import { settle } from '../../../clock.js';
import { Gate } from '../gate.js';
import { once } from 'node:events';

const ITEMS = ['a.com', 'fail-b.com', 'c.com', 'd.com', 'fail-e.com'];

function ndjson(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('show --job', () => {
  it('ndjson and json: every item once, in chunk order, with its task id; json is the same records as an array', async () => {
    const { run, journal, ids } = await sandboxJob(ITEMS, 2);
    expect(ids).toHaveLength(3);
    const lines = await run(['show', '--job', journal, '-o', 'ndjson']);
    expect(lines.code, lines.stderr).toBe(0);
    const records = ndjson(lines.stdout);
    expect(records.map((r) => r.target)).toEqual(ITEMS);
    expect(records.map((r) => r.task)).toEqual([ids[0], ids[0], ids[1], ids[1], ids[2]]);
    expect(records.map((r) => r.status)).toEqual(['completed', 'failed', 'completed', 'completed', 'failed']);
    const json = await run(['show', '--job', journal, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(records);
  });

  it('a task read whose answer is cut off is sent again: every item still printed, exit 0', async () => {
    const { run, journal, ids, sandbox } = await sandboxJob(ITEMS, 2);
    const fault = { method: 'GET', path: `/tasks/${ids[1]}`, kind: 'truncate', count: 1 };
    const admin = await fetch(`${new URL(sandbox.url).origin}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fault),
    });
    expect(admin.status).toBeLessThan(300);
    const lines = await run(['show', '--job', journal, '-o', 'ndjson']);
    expect(lines.code, lines.stderr).toBe(0);
    expect(ndjson(lines.stdout).map((r) => r.target)).toEqual(ITEMS);
    const left = (await (await fetch(`${new URL(sandbox.url).origin}/__sandbox/faults`)).json()) as {
      faults: Array<{ remaining: number }>;
    };
    expect(left.faults.every((f) => f.remaining === 0)).toBe(true);
  });

  it('csv and tsv: one row per item with the task id first', async () => {
    const { run, journal, ids } = await sandboxJob(ITEMS, 2);
    const csv = await run(['show', '--job', journal, '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toBe('task,target,status,available,error');
    expect(rows.slice(1).map((row) => row.split(',').slice(0, 2).join(','))).toEqual(
      ITEMS.map((item, i) => `${ids[Math.floor(i / 2)]},${item}`),
    );
    const tsv = await run(['show', '--job', journal, '-o', 'tsv', '--columns', 'target,status']);
    expect(tsv.stdout).toBe(
      'a.com\tcompleted\nfail-b.com\tfailed\nc.com\tcompleted\nd.com\tcompleted\nfail-e.com\tfailed\n',
    );
  });

  it('the table starts with a summary (items by status, the most common errors), then the items', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 2);
    const result = await run(['show', '--job', journal], { stdoutTTY: true, columns: 100, rows: 60 });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^Tasks: +3$/m);
    expect(out).toMatch(/^Items: +5$/m);
    expect(out).toMatch(/^Completed: +3$/m);
    expect(out).toMatch(/^Failed: +2$/m);
    expect(out).toMatch(/^ITEMS +ERROR\n +2 +Simulated item failure/m);
    expect(out.indexOf('Items:')).toBeLessThan(out.indexOf('TARGET'));
    expect(out).toMatch(/^ *\d+ +fail-e\.com +failed/m);
  });

  it('--error previews what a retry sends: items that did not complete whose error matches', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 2);
    const all = ndjson((await run(['show', '--job', journal, '-o', 'ndjson'])).stdout);
    const error = String(all[1]?.error);
    const word = error.split(/\s+/).find((w) => w.length > 3) ?? error;
    const result = await run(['show', '--job', journal, '-o', 'ndjson', '--error', word.toUpperCase()]);
    expect(result.code, result.stderr).toBe(0);
    expect(ndjson(result.stdout).map((r) => r.target)).toEqual(['fail-b.com', 'fail-e.com']);
    const none = await run(['show', '--job', journal, '-o', 'ndjson', '--error', 'no such error text']);
    expect(none.stdout).toBe('');
    const failed = await run([
      'show',
      '--job',
      journal,
      '-o',
      'tsv',
      '--columns',
      'target',
      '--items-status',
      'failed',
    ]);
    expect(failed.stdout).toBe('fail-b.com\nfail-e.com\n');
  });

  it('--error that matches nothing says so, as retry does: after the summary at a terminal, on stderr for scripts', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 2);
    const said = `of the items of ${journal} that did not complete, none has an error containing "timeout"`;
    const table = await run(['show', '--job', journal, '--error', 'timeout'], {
      stdoutTTY: true,
      columns: 80,
      rows: 60,
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^Items: +0 of 5 \(--error timeout\)$/m);
    expect(table.output).not.toContain('No items.');
    const output = table.output ?? '';
    expect(output).toContain(said);
    expect(output.indexOf(said)).toBeGreaterThan(output.indexOf('Items:'));
    const script = await run(['show', '--job', journal, '-o', 'ndjson', '--error', 'timeout']);
    expect(script.code).toBe(0);
    expect(script.stdout).toBe('');
    expect(script.stderr.trim()).toBe(said);
    // A filter that keeps items: the summary counts them of all the job's.
    const failed = await run(['show', '--job', journal, '--items-status', 'failed'], { stdoutTTY: true, rows: 60 });
    expect(failed.stdout).toMatch(/^Items: +2 of 5 \(--items-status failed\)$/m);
  });

  it('-q alone prints item targets one a line, after --error and --items-status, as `show ID -q` does', async () => {
    const { run, journal } = await sandboxJob(ITEMS, 2);
    const all = ndjson((await run(['show', '--job', journal, '-o', 'ndjson'])).stdout);
    const word =
      String(all[1]?.error)
        .split(/\s+/)
        .find((w) => w.length > 3) ?? '';
    // Piped (tsv by default) or on a terminal: the targets a `create -f -` takes.
    for (const stdoutTTY of [false, true]) {
      const errored = await run(['show', '--job', journal, '--error', word, '-q'], { stdoutTTY });
      expect(errored.code, errored.stderr).toBe(0);
      expect(errored.stdout).toBe('fail-b.com\nfail-e.com\n');
    }
    expect((await run(['show', '--job', journal, '-q'])).stdout).toBe(`${ITEMS.join('\n')}\n`);
    const completed = await run(['show', '--job', journal, '--items-status', 'completed', '-q']);
    expect(completed.stdout).toBe('a.com\nc.com\nd.com\n');
    // An explicit format wins: -q then only quiets stderr.
    expect((await run(['show', '--job', journal, '-q', '-o', 'tsv'])).stdout).toContain('\tfail-b.com\t');
  });
});

describe('show --job against a mocked server', () => {
  const items = (prefix: string, n: number, data: object = { available: true }) =>
    Array.from({ length: n }, (_, i) => ({ target: `${prefix}${i}.com`, status: 'completed', data, error: null }));

  it('one GET per task, in chunk order (the journal order, not the ids order)', async () => {
    const path = writeJournal({ items: 4, chunkSize: 2, tasks: [9, 3] });
    const api = mockApi();
    api.reply('GET', '/tasks/9', 200, { success: true, data: task(9, { total_items: 2, items: items('a', 2) }) });
    api.reply('GET', '/tasks/3', 200, { success: true, data: task(3, { total_items: 2, items: items('b', 2) }) });
    const result = await runTaskctl(['show', '--job', path, '-o', 'tsv', '--columns', 'task,target'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('9\ta0.com\n9\ta1.com\n3\tb0.com\n3\tb1.com\n');
    expect(api.calls).toEqual(['GET /tasks/9', 'GET /tasks/3']);
  });

  it('an empty argument names no job (never the current directory): exit 2 for every --job and resume', async () => {
    const api = mockApi();
    for (const args of [
      ['show', '--job', ''],
      ['wait', '--job', ''],
      ['retry', '--job', ''],
      ['resume', ''],
    ]) {
      const result = await runTaskctl(args, { api });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        'error: an empty argument names no job',
        'Name a job by its id (`taskctl jobs` lists them) or its journal file; is a shell variable unset?',
      ]);
    }
    expect(api.calls).toEqual([]);
  });

  it('a task the service sends without its item results: exit 8 naming it, never an export that looks whole', async () => {
    const path = writeJournal({ items: 3, chunkSize: 2, tasks: [9, 3] });
    for (const format of ['ndjson', 'csv', 'table']) {
      const api = mockApi();
      api.reply('GET', '/tasks/9', 200, { success: true, data: task(9, { total_items: 2, items: items('a', 2) }) });
      api.reply('GET', '/tasks/3', 200, { success: true, data: task(3, { total_items: 1 }) });
      const result = await runTaskctl(['show', '--job', path, '-o', format], { api, stdoutTTY: format === 'table' });
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr.trim().split('\n')).toEqual([
        'error: the service sent no item results for task 3: show --job cannot export every item of the job',
        'See what the service sends: taskctl show 3 -o json',
      ]);
    }
  });

  it('a task listing more item results than it has items is not a whole export either (exit 8)', async () => {
    const path = writeJournal({ items: 3, chunkSize: 2, tasks: [9, 3] });
    const api = mockApi();
    api.reply('GET', '/tasks/9', 200, { success: true, data: task(9, { total_items: 2, items: items('a', 2) }) });
    api.reply('GET', '/tasks/3', 200, { success: true, data: task(3, { total_items: 1, items: items('b', 2) }) });
    const result = await runTaskctl(['show', '--job', path, '-o', 'ndjson'], { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toContain('task 3 lists 2 item results for its 1 item: show --job cannot export');
  });

  it('keeps to the rate limit the server states: it waits for the window instead of drawing a 429', async () => {
    const path = writeJournal({ items: 3, chunkSize: 1, tasks: [1, 2, 3] });
    const api = mockApi();
    const spent = { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' };
    for (const id of [1, 2, 3]) {
      const data = task(id, { items: items(`t${id}-`, 1) });
      api.reply('GET', `/tasks/${id}`, 200, { success: true, data }, { headers: spent });
    }
    const clock = new FakeClock();
    const result = await runTaskctl(['show', '--job', path, '-o', 'ndjson'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(api.calls).toEqual(['GET /tasks/1', 'GET /tasks/2', 'GET /tasks/3']);
    expect(clock.sleeps.filter((ms) => ms >= 29_000)).toHaveLength(2);
  });

  it('csv takes its columns from the first task and names a later field it lacks once, on stderr', async () => {
    const path = writeJournal({ items: 3, chunkSize: 1, tasks: [1, 2, 3] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: items('a', 1) }) });
    for (const id of [2, 3]) {
      const extra = { available: false, registrar: 'X' };
      api.reply('GET', `/tasks/${id}`, 200, { success: true, data: task(id, { items: items(`b${id}`, 1, extra) }) });
    }
    const result = await runTaskctl(['show', '--job', path, '-o', 'csv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'task,target,status,available,error\n1,a0.com,completed,true,\n2,b20.com,completed,false,\n3,b30.com,completed,false,\n',
    );
    expect(result.stderr.match(/"registrar"/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/task 2 \(chunk 2\) has the field "registrar"/);
    const lines = await runTaskctl(['show', '--job', path, '-o', 'ndjson'], { api: replyAgain() });
    expect(lines.stdout).toMatch(/"registrar":"X"/);
    function replyAgain() {
      const again = mockApi();
      again.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: items('a', 1) }) });
      for (const id of [2, 3]) {
        const extra = { available: false, registrar: 'X' };
        again.reply('GET', `/tasks/${id}`, 200, {
          success: true,
          data: task(id, { items: items(`b${id}`, 1, extra) }),
        });
      }
      return again;
    }
  });

  it('the table shows the first 1,000 items after a summary of all of them, and says how to get the rest', async () => {
    const path = writeJournal({ items: 1200, chunkSize: 600, tasks: [1, 2] });
    const api = mockApi();
    for (const id of [1, 2]) {
      const data = task(id, { total_items: 600, items: items(`t${id}-`, 600) });
      api.reply('GET', `/tasks/${id}`, 200, { success: true, data });
    }
    const result = await runTaskctl(['show', '--job', path], {
      api,
      stdoutTTY: true,
      columns: 100,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Items: +1,200$/m);
    expect(result.stdout).toMatch(/^ +2 +t2-399\.com /m);
    expect(result.stdout).not.toMatch(/t2-400\.com/);
    expect(result.stderr).toMatch(/showing the first 1,000 of 1,200 items; use -o csv or -o ndjson to get them all/);
  });

  it('a task gone mid-way (not found) stops the output: json left unterminated, its chunk named lost, exit 8', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: items('a', 1) }) });
    api.reply('GET', '/tasks/2', 404, { success: false, error: { code: 'not_found', message: 'Task not found' } });
    const result = await runTaskctl(['show', '--job', path, '-o', 'json'], { api });
    expect(result.code).toBe(8);
    expect(result.stdout).toMatch(/^\[\n {2}\{/);
    expect(() => JSON.parse(result.stdout)).toThrow();
    expect(result.stderr).toMatch(/chunk 2 of .*job\.jsonl: its task 2 is not on the service any more/);
  });

  it('a task failing with 5xx keeps exit 8 and names its chunk', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const api = mockApi();
    api.allowUnused();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: items('a', 1) }) });
    const failure = { success: false, error: { code: 'internal_error', message: 'boom' } };
    api.reply('GET', '/tasks/2', 503, failure, { times: 20 });
    const result = await runTaskctl(['show', '--job', path, '-o', 'ndjson'], { api });
    expect(result.code).toBe(8);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/task 2 \(chunk 2 of /);
  });

  it('a task that does not match its chunk is exit 8 naming the chunk', async () => {
    const path = writeJournal({ items: 4, chunkSize: 2, tasks: [1, 2] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { total_items: 2, items: items('a', 2) }) });
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, { total_items: 5, items: items('b', 5) }) });
    const result = await runTaskctl(['show', '--job', path, '-o', 'csv'], { api });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/chunk 2 of .*job\.jsonl does not match task 2: it has 5 items, not 2/);
  });

  it('an incomplete job: the tasks it has, and stderr says it is incomplete', async () => {
    const path = writeJournal({ items: 3, chunkSize: 1, tasks: [1, undefined] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: items('a', 1) }) });
    // Given relative to the working directory: the hint names the journal by its absolute path.
    const given = relative(process.cwd(), path);
    const result = await runTaskctl(['show', '--job', given, '-o', 'ndjson'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(ndjson(result.stdout).map((r) => r.target)).toEqual(['a0.com']);
    expect(result.stderr).toMatch(/the job in .* is incomplete: 2 chunks of 3 \(2, 3\) have no task recorded yet/);
    expect(result.stderr).toContain(`(finish it: taskctl resume ${path})`);
  });

  it("another server than the journal's is exit 2", async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1], baseUrl: 'https://elsewhere.test/api/v1' });
    const result = await runTaskctl(['show', '--job', path], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/belongs to another service: the base URL/);
  });

  it('--job with ids, neither, --report, and --journal are exit 2', async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [1] });
    const both = await runTaskctl(['show', '42', '--job', path], { api: mockApi() });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/task ids or --job, not both/);
    const neither = await runTaskctl(['show'], { api: mockApi() });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/show needs task ids or --job <job>/);
    const report = await runTaskctl(['show', '--job', path, '--report', 'github'], { api: mockApi() });
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/--report is not written for a whole job/);
    const journal = await runTaskctl(['show', '--journal', path], { api: mockApi() });
    expect(journal.code).toBe(2);
    expect(journal.stderr).toMatch(new RegExp(`show has no --journal.*\\n.*taskctl show --job ${path}`));
  });

  it('help shows --job <job>; --journal only on retry (show and wait refuse it)', async () => {
    for (const command of ['show', 'wait', 'retry']) {
      const help = await runTaskctl([command, '--help']);
      expect(help.stdout).toMatch(/^ +--job <job> /m);
      if (command === 'retry') expect(help.stdout).toMatch(/^ +--journal <file> /m);
      else expect(help.stdout).not.toMatch(/^ +--journal/m);
    }
  });
});

describe('show --job reads the next tasks while one is printed', () => {
  const one = (id: number) => ({ target: `t${id}.com`, status: 'completed', data: { available: true }, error: null });
  const line = (id: number) =>
    JSON.stringify({ task: id, target: `t${id}.com`, status: 'completed', available: true, error: null });
  const body = (id: number) => JSON.stringify({ success: true, data: task(id, { items: [one(id)] }) });
  const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY };

  /** GET /tasks/:id answered by `answer(id)`, for any id, as often as asked. */
  function serve(api: MockApi, answer: (id: number) => { statusCode: number; data: string; headers?: object }) {
    api.agent
      .get(ORIGIN)
      .intercept({ method: 'GET', path: (path: string) => /^\/api\/v1\/tasks\/\d+$/.test(path) })
      .reply((request) => {
        const { statusCode, data, headers } = answer(Number(request.path.split('/').pop()));
        return { statusCode, data, responseOptions: { headers: { 'content-type': 'application/json', ...headers } } };
      })
      .persist();
  }

  /** Runs until the command ends, letting the newest held request through each time: answers come in reverse. */
  async function reversed(gate: Gate, running: Promise<RunResult>): Promise<void> {
    const state = { finished: false };
    const ended = running.finally(() => (state.finished = true));
    while (!state.finished) {
      // Wait for a request to be held (or the end): the command's modules load in their own time.
      if (gate.held.length === 0) await Promise.race([once(gate.events, 'held'), ended]);
      await settle(); // the reads that leave together are all held before one is let through
      gate.held.at(-1)?.release();
    }
  }

  it('within the budget the server states (never a 429), in chunk order whatever order the answers come in', async () => {
    const ids = [1, 2, 3, 4, 5, 6, 7, 8];
    const path = writeJournal({ items: 8, chunkSize: 1, tasks: ids });
    const api = mockApi();
    const clock = new FakeClock();
    // A server that counts GETs in windows of 30 s of the fake clock: 3 a window, then 429.
    const seen = { window: -1, used: 0, gets: 0, limited: 0 };
    serve(api, (id) => {
      const window = Math.floor((clock.now() - T0) / 30_000);
      if (window !== seen.window) Object.assign(seen, { window, used: 0 });
      seen.used++;
      seen.gets++;
      const reset = String(Math.ceil((T0 + (window + 1) * 30_000 - clock.now()) / 1000));
      const remaining = String(Math.max(0, 3 - seen.used));
      const headers = { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
      if (seen.used > 3) {
        seen.limited++;
        const data = JSON.stringify({ success: false, error: { code: 'rate_limited', message: 'slow down' } });
        return { statusCode: 429, data, headers: { ...headers, 'retry-after': reset } };
      }
      return { statusCode: 200, data: body(id), headers };
    });
    const gate = new Gate(api.agent);
    const running = runTaskctl(['show', '--job', path, '-o', 'ndjson'], { dispatcher: gate, clock, env });
    await reversed(gate, running);
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { target: string }).target),
    ).toEqual(ids.map((id) => `t${id}.com`));
    expect(seen.limited).toBe(0);
    expect(seen.gets).toBe(8);
    // More than one read at a time, never more than the window's 3.
    expect(gate.most).toBeGreaterThan(1);
    expect(gate.most).toBeLessThanOrEqual(3);
  });

  it('a read with no answer for 5 s, in a script (-o csv): one stderr line, nothing on stdout but the rows', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const api = mockApi();
    serve(api, (id) => ({ statusCode: 200, data: body(id) }));
    const gate = new Gate(api.agent);
    const clock = new FakeClock();
    const running = runTaskctl(['show', '--job', path, '-o', 'csv'], { dispatcher: gate, env, clock });
    if (gate.held.length === 0) await once(gate.events, 'held');
    clock.tick(20_000); // task 1's read held: the notice is due
    gate.held[0]?.release();
    for (let step = 0; step < 50 && gate.held.length === 0; step++) await settle();
    clock.tick(20_000); // task 2's read held as long: said once a run, not again
    while (gate.held.length > 0) gate.held[0]?.release();
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('no answer from the service for 5s; still trying (30s left)…\n');
    expect(result.stdout).not.toMatch(/no answer/);
  });

  it('a task gone (not found) while later ones are read: the tasks before it printed, its chunk named lost, exit 8', async () => {
    const path = writeJournal({ items: 6, chunkSize: 1, tasks: [1, 2, 3, 4, 5, 6] });
    const api = mockApi();
    const gone = JSON.stringify({ success: false, error: { code: 'not_found', message: 'Task not found' } });
    serve(api, (id) => (id === 3 ? { statusCode: 404, data: gone } : { statusCode: 200, data: body(id) }));
    const gate = new Gate(api.agent);
    const running = runTaskctl(['show', '--job', path, '-o', 'ndjson'], { dispatcher: gate, env });
    await reversed(gate, running);
    const result = await running;
    expect(result.code).toBe(8);
    expect(result.stdout).toBe(`${line(1)}\n${line(2)}\n`);
    expect(result.stderr).toMatch(/chunk 3 of .*job\.jsonl: its task 3 is not on the service any more/);
    expect(gate.most).toBeGreaterThan(1);
  });

  it('Ctrl-C with reads under way: exit 130, what was printed stays, nothing left running', async () => {
    const path = writeJournal({ items: 6, chunkSize: 1, tasks: [1, 2, 3, 4, 5, 6] });
    const api = mockApi();
    serve(api, (id) => ({ statusCode: 200, data: body(id) }));
    const gate = new Gate(api.agent);
    const controller = new AbortController();
    const running = runTaskctl(['show', '--job', path, '-o', 'ndjson'], {
      dispatcher: gate,
      env,
      signal: controller.signal,
    });
    await settle();
    gate.held.at(0)?.release(); // task 1: then the reads ahead leave
    for (let step = 0; step < 20 && gate.held.length < 2; step++) await settle();
    expect(gate.held.length).toBeGreaterThan(1);
    controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
    while (gate.held.length > 0) gate.held[0]?.release();
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe(`${line(1)}\n`);
    // A read stopped: said as an error with how to go on (docs/behaviour.md#exit-codes), not a bare `interrupted`.
    expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
  });
});
