/**
 * `wait` on a task that completed listing fewer items than its `total_items`: not a success (what was not seen did not
 * succeed: exit 11), but its unlisted items are not called failed, and the hint shows what the service sends, not
 * `--items-status failed` (which lists nothing for them).
 */
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
