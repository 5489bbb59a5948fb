/**
 * `wait` on a task that completed listing fewer items than its `total_items`: not a success (what was not seen did not
 * succeed: exit 11), but its unlisted items are not called failed, and the hint shows what the service sends, not
 * `--items-status failed` (which lists nothing for them). `--report github` annotates them, as JUnit gives them an
 * error testcase.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

const body = {
  success: true,
  data: {
    id: 1,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 5,
    completed_items: 5,
    failed_items: 0,
    cost: 5,
    created_at: new Date(T0 - 6_000).toISOString(),
    completed_at: new Date(T0).toISOString(),
    items: [{ target: 'a.com', status: 'completed', data: { available: true } }],
  },
};

it('exit 11; "4 not listed", never "4 failed"; the hint is `show 1 -o json`', async () => {
  const api = mockApi();
  api.reply('GET', '/tasks/1', 200, body);
  const result = await runTaskctl(['wait', '1', '-o', 'tsv'], { api, clock: new FakeClock(), env: { CI: 'true' } });
  expect(result.code).toBe(11);
  expect(result.stderr).not.toMatch(/4 failed|--items-status failed/);
  expect(result.stderr).toMatch(/task 1 completed items 1\/5, 4 not listed/);
  expect(result.stderr).toContain('warning: task 1 completed, but lists 1 of its 5 items: taskctl show 1 -o json');
});

it('--report github: one ::error naming the task and its 4 items not listed, as the summary counts them failed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-wait-unlisted-'));
  try {
    const summary = join(dir, 'summary.md');
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, body, { times: 2 });
    api.allowUnused(); // the report reads the task again only when the wait kept no items
    const result = await runTaskctl(['wait', '1', '--report', 'github', '-q'], {
      api,
      clock: new FakeClock(),
      env: { CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code).toBe(11);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('::'))).toEqual([
      '::error title=taskctl%3A task 1 has 4 items not listed (domain_check_availability)::task 1 lists 1 of its 5 items; the 4 not listed were never seen, so they count as failed. See: taskctl show 1 -o json',
    ]);
    expect(readFileSync(summary, 'utf8')).toContain('### taskctl: 1 task, 0 failed tasks, 4 failed items');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
