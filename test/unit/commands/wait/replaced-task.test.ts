/**
 * A followed id that names another task between two reads (the service gave the id out again: a sandbox restarted
 * without --state on the same port) is not the task waited for: exit 8 naming both, never the other task's outcome.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const before = {
  success: true,
  data: task(1, { status: 'processing', total_items: 40, cost: 40, completed_items: 5, completed_at: null }),
};
const after = {
  success: true,
  data: task(1, { service: 'email_verify', total_items: 1, cost: 2, created_at: '2025-01-15T12:00:06Z' }),
};

describe('a waited-on id that names another task', () => {
  it.each([
    ['wait 1', ['wait', '1']],
    ['watch 1', ['watch', '1']],
  ])('%s: exit 8, two lines naming both tasks, no result of the other task', async (_, args) => {
    const api = mockApi();
    api.allowUnused();
    api.reply('GET', '/tasks/1', 200, before);
    api.reply('GET', '/tasks/1', 200, after, { times: 10 });
    api.reply(
      'GET',
      /^\/tasks\?/,
      200,
      { success: true, data: [after.data], meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 } },
      { times: 10 },
    );
    const result = await runTaskctl([...args, '-o', 'tsv'], { api });
    expect(result.code, result.stderr).toBe(8);
    const lines = result.stderr.trim().split('\n');
    const error = lines.findIndex((line) => line.startsWith('error: '));
    expect(lines.slice(error)).toHaveLength(2);
    expect(lines[error]).toMatch(
      /^error: task 1 now names another task: it was domain_check_availability, 40 items, created 2025-01-15T12:00:00Z; the service now shows email_verify, 1 item, created 2025-01-15T12:00:06Z$/,
    );
    expect(lines[error + 1]).toMatch(/task ids restarted/);
    expect(result.stderr).not.toMatch(/✓|completed/);
    expect(result.stdout).not.toMatch(/email_verify/);
  });
});
