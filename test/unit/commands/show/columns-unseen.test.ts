/**
 * `show --columns` naming a result field no item has: which result fields a task has depends on how its items ended (a
 * task whose items all failed has none), so the same script runs on every task. The column is printed empty, and one
 * warning on stderr names it with the columns seen, so a typo stays visible; json and ndjson carry every field anyway.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { writeJournal } from '../../core/job/fixture.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const failed = (target: string) => ({ target, status: 'failed', data: null, error: 'lookup failed' });
const available = (target: string, value: boolean) => ({ target, status: 'completed', data: { available: value } });

/** Task 9, whose one item failed: no result field at all. */
function allFailed(times = 1) {
  const api = mockApi();
  for (let i = 0; i < times; i++)
    api.reply('GET', '/tasks/9', 200, { success: true, data: task(9, { items: [failed('fail-w.com')] }) });
  return api;
}

const warnings = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('warning:'));

describe('show ID --columns with a result field no item has', () => {
  it('tsv and csv: the column is empty, exit 0, and one warning names it and the columns seen', async () => {
    const tsv = await runTaskctl(['show', '9', '--columns', 'target,available', '-o', 'tsv'], { api: allFailed() });
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(tsv.stdout).toBe('fail-w.com\t\n');
    expect(warnings(tsv.stderr)).toEqual([
      'warning: no item has the column "available", printed empty (the columns seen: task, target, status, error)',
    ]);
    const csv = await runTaskctl(['show', '9', '--columns', 'target,available,error', '-o', 'csv'], {
      api: allFailed(),
    });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('target,available,error\nfail-w.com,,lookup failed\n');
    expect(warnings(csv.stderr)).toHaveLength(1);
  });

  it('a typo beside the fields the items have is named with them; several names in one warning', async () => {
    const api = mockApi();
    const items = [available('a.com', true), failed('fail-b.com')];
    api.reply('GET', '/tasks/9', 200, { success: true, data: task(9, { total_items: 2, items }) });
    const result = await runTaskctl(['show', '9', '--columns', 'target,availble,Registrar', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('a.com\t\t\nfail-b.com\t\t\n');
    expect(warnings(result.stderr)).toEqual([
      'warning: no item has the columns "availble" and "Registrar", printed empty (the columns seen: task, target, status, available, error)',
    ]);
  });

  it('on a terminal: the column is shown, empty, with the same warning', async () => {
    const result = await runTaskctl(['show', '9', '--columns', 'target,available'], {
      api: allFailed(),
      stdoutTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^TARGET +AVAILABLE$/m);
    expect(result.stdout).toMatch(/^fail-w\.com +-$/m);
    expect(warnings(result.stderr)).toHaveLength(1);
  });

  it('ndjson and json carry every field, --columns or not: no warning', async () => {
    for (const format of ['ndjson', 'json']) {
      const result = await runTaskctl(['show', '9', '--columns', 'target,available', '-o', format], {
        api: allFailed(),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('"fail-w.com"');
      expect(warnings(result.stderr)).toEqual([]);
    }
  });

  it('list, services and jobs have fixed columns: an unknown name there is still exit 2', async () => {
    const result = await runTaskctl(['list', '--columns', 'id,available'], { api: mockApi() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown column "available"');
  });
});

describe('show --job --columns with a result field no item has', () => {
  it('csv: a field the first task lacks is filled from the later tasks that have it; no warning', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: [failed('fail-a.com')] }) });
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, { items: [available('b.com', false)] }) });
    const result = await runTaskctl(['show', '--job', path, '--columns', 'target,available', '-o', 'csv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('target,available\nfail-a.com,\nb.com,false\n');
    expect(warnings(result.stderr)).toEqual([]);
  });

  it('tsv: a name no task of the job has is empty, and named once after the export', async () => {
    const path = writeJournal({ items: 2, chunkSize: 1, tasks: [1, 2] });
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { items: [failed('fail-a.com')] }) });
    api.reply('GET', '/tasks/2', 200, { success: true, data: task(2, { items: [available('b.com', false)] }) });
    const result = await runTaskctl(['show', '--job', path, '--columns', 'target,registrar', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('fail-a.com\t\nb.com\t\n');
    expect(warnings(result.stderr)).toEqual([
      'warning: no item has the column "registrar", printed empty (the columns seen: task, target, status, available, error)',
    ]);
  });

  it('the table: the column is shown, empty, with the warning', async () => {
    const path = writeJournal({ items: 1, chunkSize: 1, tasks: [9] });
    const result = await runTaskctl(['show', '--job', path, '--columns', 'target,available'], {
      api: allFailed(),
      stdoutTTY: true,
      columns: 100,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^TARGET +AVAILABLE$/m);
    expect(warnings(result.stderr)).toHaveLength(1);
  });
});
