/**
 * Every json/ndjson line parses whatever characters the server sent. `show` here, and `watch`, whose event
 * lines go through the printer's text path (the fix is in src/lib/sanitize.ts, so it covers `webhook listen` too).
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

const HOSTILE = 'a\u009b31m\x7f\u0085\u202eb\x1b[2J"\\';

function completedTask() {
  return {
    id: 42,
    service: `svc${HOSTILE}`,
    status: 'completed',
    total_items: 1,
    cost: 1,
    created_at: '2025-01-15T11:00:00Z',
    completed_at: '2025-01-15T11:01:00Z',
    completed_items: 1,
    failed_items: 0,
    items: [{ target: `t${HOSTILE}`, status: 'completed', data: { note: HOSTILE } }],
  };
}

describe('json/ndjson lines parse whatever the server sent', () => {
  it('show -o ndjson and -o json', async () => {
    for (const format of ['ndjson', 'json']) {
      const api = mockApi();
      api.reply('GET', '/tasks/42', 200, { success: true, data: completedTask() });
      const result = await runTaskctl(['show', '42', '-o', format], { api });
      expect(result.code).toBe(0);
      const value = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(format === 'json' ? value.service : value.note).toBe(format === 'json' ? `svc${HOSTILE}` : HOSTILE);
      expect(result.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u001b]/);
    }
  });

  it('watch -o ndjson', async () => {
    const api = mockApi();
    api.reply('GET', /^\/tasks/, 200, { success: true, data: completedTask() }, { times: 5 });
    const result = await runTaskctl(['watch', '42', '-o', 'ndjson'], { api });
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(result.stdout).toContain('svc');
    expect(result.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u001b]/);
  });
});
