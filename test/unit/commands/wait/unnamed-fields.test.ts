/**
 * `wait` reads an answer whose unnamed fields hold any JSON value (docs/openapi.json: objects carry fields it does not
 * name): an item's `error` as `{code, message}`, a task's webhook-only fields in another type. Never exit 8 for it,
 * and never a success because of it: a failed item is still exit 11.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

const TASK = {
  id: 7,
  service: 'domain_check_availability',
  status: 'completed',
  total_items: 2,
  cost: 2,
  created_at: '2025-01-15T11:00:00Z',
  completed_at: '2025-01-15T11:01:00Z',
  platform: { name: 'domain' },
  completed_items: '1',
  failed_items: [1],
  failed_at: false,
};

describe('wait: unnamed fields of any type', () => {
  it('an object error on a failed item: exit 11 with its message, not 8', async () => {
    const api = mockApi();
    const items = [
      { target: 'a.com', status: 'completed', data: { available: true } },
      { target: 'b.com', status: 'failed', error: { code: 'timeout', message: 'Lookup timed out' } },
    ];
    api.reply('GET', '/tasks/7', 200, { success: true, data: { ...TASK, items } }, { times: 2 });
    const result = await runTaskctl(['wait', '7', '--results', '-o', 'tsv'], { api });
    expect(result.stderr).not.toMatch(/unexpected|malformed/i);
    expect(result.code).toBe(11);
    expect(result.stdout).toMatch(/^7\tb\.com\tfailed\t\tLookup timed out$/m);
  });
});
