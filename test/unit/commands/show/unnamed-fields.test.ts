/**
 * Fields the contract leaves unnamed may hold any JSON value (docs/openapi.json: objects carry fields it does not name):
 * an item's `error` as `{code, message}` or anything else, a task's webhook-only fields (`platform`, `failed_items`, …)
 * in another type than the webhook's. `show` reads such an answer (never exit 8), shows the error's message or its
 * compact JSON, keeps every value as sent in JSON output, and never counts an item as completed because of it.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

const TASK = {
  id: 42,
  service: 'domain_check_availability',
  status: 'completed',
  total_items: 3,
  cost: 3,
  created_at: '2025-01-15T11:00:00Z',
  completed_at: '2025-01-15T11:01:00Z',
};
const ITEMS = [
  { target: 'ok.com', status: 'completed', data: { available: true }, error: { code: 'none' } },
  { target: 'gone.com', status: 'failed', data: null, error: { code: 'lookup_failed', message: 'DNS lookup failed' } },
  { target: 'odd.com', status: 'failed', error: [1, 'two'] },
];
const WEBHOOK_ONLY = { platform: [], failed_items: {}, completed_items: 'two', started_at: 5, error_message: { a: 1 } };

async function show(args: string[], options: Parameters<typeof runTaskctl>[1] = {}) {
  const api = mockApi();
  api.reply('GET', '/tasks/42', 200, { success: true, data: { ...TASK, ...WEBHOOK_ONLY, items: ITEMS } });
  return runTaskctl(['show', '42', ...args], { api, ...options });
}

describe('show: unnamed fields of any type', () => {
  it("reads the task, shows an error's message or its compact JSON, and counts items by their status only", async () => {
    const result = await show([], { stdoutTTY: true, columns: 120 });
    const screen = stripVTControlCharacters(result.stdout);
    expect(result.stderr).not.toMatch(/unexpected|malformed/i);
    expect(result.code).toBe(0);
    expect(screen).toMatch(/^Items: +3 \(1 completed, 2 failed\)$/m);
    expect(screen).toMatch(/^gone\.com +failed +- +DNS lookup failed$/m);
    expect(screen).toMatch(/^odd\.com +failed +- +\[1,"two"\]$/m);
    expect(screen).toMatch(/^ok\.com +completed +true +none$/m);
  });

  it('keeps every value as the service sent it in JSON output', async () => {
    const json = JSON.parse((await show(['-o', 'json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject(WEBHOOK_ONLY);
    expect(json.items).toEqual(ITEMS);
    const records = (await show(['-o', 'ndjson'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((record) => record.error)).toEqual(ITEMS.map((item) => item.error));
  });

  it('matches --error against the message of an object error', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/42', 200, { success: true, data: { ...TASK, items: ITEMS } });
    const result = await runTaskctl(['show', '42', '--error', 'dns', '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('42\tgone.com\tfailed\t\tDNS lookup failed\n');
  });
});
