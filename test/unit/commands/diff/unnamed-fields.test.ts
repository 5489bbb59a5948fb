/**
 * `diff` of two tasks whose answers carry unnamed fields of any JSON type (docs/openapi.json: objects carry fields it
 * does not name): an item's `error` as `{code, message}`, a task's webhook-only fields in another type. Read, never
 * exit 8; compared by `--fields error` as the error's text.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0, type MockApi } from '../run-in-process.js';

function replyTask(api: MockApi, id: number, error: unknown) {
  api.reply('GET', `/tasks/${id}`, 200, {
    success: true,
    data: {
      id,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 2,
      cost: 2,
      created_at: new Date(T0 - 600_000).toISOString(),
      completed_at: new Date(T0 - 540_000).toISOString(),
      platform: ['domain'],
      error_message: { text: 'none' },
      items: [
        { target: 'a.com', status: 'completed', data: { available: true } },
        { target: 'b.com', status: 'failed', data: null, error },
      ],
    },
  });
}

describe('diff: unnamed fields of any type', () => {
  it('the same results with object errors: exit 0', async () => {
    const api = mockApi();
    replyTask(api, 1, { code: 'timeout', message: 'Lookup timed out' });
    replyTask(api, 2, { code: 'timeout', message: 'Lookup timed out', attempt: 2 });
    const result = await runTaskctl(['diff', '1', '2'], { api });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('--fields error compares the texts: a changed message is a change (exit 15)', async () => {
    const api = mockApi();
    replyTask(api, 1, { code: 'timeout', message: 'Lookup timed out' });
    replyTask(api, 2, 'Lookup refused');
    const result = await runTaskctl(['diff', '1', '2', '--fields', 'error'], { api });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(15);
    expect(result.stdout).toMatch(/Lookup timed out/);
    expect(result.stdout).toMatch(/Lookup refused/);
  });
});
