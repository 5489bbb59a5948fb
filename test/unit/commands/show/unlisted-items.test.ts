/**
 * `show` of a task that lists fewer items than its `total_items`: the items it does not list are not listed, never
 * "failed" (nothing says they failed: the service may count them completed), in the summary and in a note on stderr
 * worded as `diff` words it, the same note as for a task sent with no items at all.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

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
    created_at: '2025-01-15T11:00:00Z',
    completed_at: '2025-01-15T11:01:00Z',
    items: [{ target: 'a.com', status: 'completed', data: { available: true } }],
  },
};

async function show(args: string[]) {
  const api = mockApi();
  api.reply('GET', '/tasks/1', 200, body);
  return runTaskctl(['show', '1', ...args], { api });
}

describe('show of a task that lists fewer items than it has', () => {
  it('the summary counts them as not listed, not failed; stderr says how many are listed', async () => {
    const result = await show(['-o', 'table']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Items:\s+5 \(1 completed, 0 failed, 4 not listed\)/);
    expect(result.stderr).toContain('warning: task 1 lists 1 of its 5 items');
  });

  it('the note comes in every format, the rows are the ones listed', async () => {
    const result = await show(['-o', 'tsv']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('task 1 lists 1 of its 5 items');
  });
});
