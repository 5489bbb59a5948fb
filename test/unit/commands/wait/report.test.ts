/**
 * `--report` paths: checked before any request, so a bad path never costs a create or a wait; a report that
 * cannot be written at the end is a warning and the exit code stays the outcome's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, ORIGIN, T0, mockApi, runTaskctl } from '../run-in-process.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-wait-report-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const task = {
  id: 5,
  service: 'domain_check_availability',
  status: 'completed',
  total_items: 2,
  completed_items: 1,
  failed_items: 1,
  cost: 2,
  created_at: '2025-01-15T11:00:00Z',
  items: [
    { target: 'a.com', status: 'completed', data: { available: true } },
    { target: 'fail-b.com', status: 'failed', error: 'boom' },
  ],
};

describe('wait --report: the path is checked before any request', () => {
  it('a file where a directory should be (junit=domains.txt/x.xml) is exit 2 naming the path, with no request sent', async () => {
    const file = join(dir, 'domains.txt');
    writeFileSync(file, 'a.com\n');
    const api = mockApi();
    const result = await runTaskctl(['wait', '5', '--report', `junit=${join(file, 'x.xml')}`], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: cannot write the report to ${join(file, 'x.xml')}: ${file} is a file, not a directory`,
    );
    expect(result.stderr).not.toMatch(/EEXIST|ENOTDIR/);
    expect(api.calls).toEqual([]);
  });

  it('a directory as the report file is exit 2, with no request sent', async () => {
    const api = mockApi();
    const result = await runTaskctl(['wait', '5', '--report', `junit=${dir}`], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: cannot write the report to ${dir}: it is a directory`);
    expect(api.calls).toEqual([]);
  });

  it('a missing directory is fine (it is created at the end)', async () => {
    const api = mockApi();
    api.reply('GET', /^\/tasks/, 200, { success: true, data: task }, { times: 5 });
    const path = join(dir, 'reports', 'deep', 'x.xml');
    const result = await runTaskctl(['wait', '5', '--report', `junit=${path}`, '-q'], { api });
    expect(result.code).toBe(11);
    expect(readFileSync(path, 'utf8')).toContain('tests="2" failures="1"');
  });
});

describe('wait --report: a report that cannot be written at the end', () => {
  it('is a warning naming the path; the exit code stays the outcome (11)', async () => {
    const reports = join(dir, 'reports');
    mkdirSync(reports);
    const api = mockApi();
    // The directory is replaced by a file while the wait runs (as if removed by another step).
    api.agent
      .get(ORIGIN)
      .intercept({ method: 'GET', path: (p: string) => p.startsWith('/api/v1/tasks') })
      .reply(() => {
        rmSync(reports, { recursive: true, force: true });
        writeFileSync(reports, '');
        return {
          statusCode: 200,
          data: JSON.stringify({ success: true, data: task }),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      })
      .persist();
    const result = await runTaskctl(['wait', '5', '--report', `junit=${join(reports, 'x.xml')}`, '-q'], { api });
    expect(result.code).toBe(11);
    expect(result.stderr).toMatch(new RegExp(`warning: could not write the report to ${join(reports, 'x.xml')}: `));
    expect(result.stderr).not.toMatch(/^error:/m);
  });
});

describe('wait --report when the wait timed out', () => {
  it('still writes the report (the items are read after the deadline) and exits 124', async () => {
    const api = mockApi();
    const running = { ...task, status: 'processing', completed_items: 1, failed_items: 0, items: undefined };
    api.reply('GET', /^\/tasks/, 200, { success: true, data: running }, { times: 1000 });
    const path = join(dir, 'x.xml');
    const result = await runTaskctl(['wait', '5', '--timeout', '2s', '--report', `junit=${path}`, '-q'], { api });
    expect(result.stderr).not.toMatch(/deadline had passed/);
    expect(result.code).toBe(124);
    expect(readFileSync(path, 'utf8')).toContain('<testsuite');
  });

  it('a report whose items cannot be read is written from what the wait saw, with a warning; the exit stays 124', async () => {
    const api = mockApi();
    const running = { ...task, status: 'processing', completed_items: 1, failed_items: 0, items: undefined };
    const clock = new FakeClock();
    api.agent
      .get(ORIGIN)
      .intercept({ method: 'GET', path: (p: string) => p.startsWith('/api/v1/tasks') })
      .reply(() =>
        // Every read once the wait has timed out fails: the server is gone.
        clock.now() >= T0 + 2000
          ? { statusCode: 404, data: JSON.stringify({ success: false, error: { code: 'not_found', message: 'gone' } }) }
          : {
              statusCode: 200,
              data: JSON.stringify({ success: true, data: running }),
              responseOptions: { headers: { 'content-type': 'application/json' } },
            },
      )
      .persist();
    const path = join(dir, 'y.xml');
    const args = ['wait', '5', '--timeout', '2s', '--report', `junit=${path}`, '-q'];
    const result = await runTaskctl(args, { api, clock });
    expect(result.code).toBe(124);
    expect(result.stderr).toMatch(/warning: could not read the items of task 5 for the report/);
    expect(readFileSync(path, 'utf8')).toContain('<testsuite');
  });
});

describe('--report never replaces a journal', () => {
  it.each([
    ['', ''],
    [' after a UTF-8 BOM (read through by the journal reader)', '\uFEFF'],
  ])(
    'a file that starts with a job record%s (any job journal) is exit 2 before any request, and stays as it was',
    async (_, bom) => {
      const journal = join(dir, 'k.jsonl');
      const record = `${bom}{"type":"job","version":1,"id":"j-k"}\n`;
      writeFileSync(journal, record);
      const api = mockApi();
      const result = await runTaskctl(['wait', '5', '--report', `junit=${journal}`], { api });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: cannot write the report to ${journal}: it is a taskctl journal`);
      expect(result.stderr.trim().split('\n')).toHaveLength(2);
      expect(readFileSync(journal, 'utf8')).toBe(record);
      expect(api.calls).toEqual([]);
    },
  );

  it("a path in the state directory's jobs/ is exit 2 before any request, even where no file is yet", async () => {
    const state = join(dir, 'state');
    const path = join(state, 'jobs', 'j-new.jsonl');
    const api = mockApi();
    const result = await runTaskctl(['wait', '5', '--report', `junit=${path}`], {
      api,
      env: { TASKCTL_STATE_DIR: state },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: cannot write the report to ${path}: it is in taskctl's job directory`);
    expect(api.calls).toEqual([]);
  });
});
