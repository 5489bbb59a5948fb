/**
 * `list` of a page that names one task twice (a service whose answer contradicts itself): both rows as the service
 * sent them, and one warning on stderr pointing to the task's own read.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

function task(id: number, status: string) {
  return {
    id,
    service: 'domain_check_availability',
    status,
    total_items: 4,
    completed_items: status === 'failed' ? 0 : 2,
    failed_items: status === 'failed' ? 4 : 0,
    cost: 4,
    created_at: new Date(T0 - id * 60_000).toISOString(),
  };
}

describe('list: a page that lists one task twice', () => {
  it('warns once, naming the task and its own read', async () => {
    const mock = mockApi();
    mock.reply('GET', /^\/tasks\?/, 200, {
      success: true,
      data: [task(3, 'pending'), task(2, 'processing'), task(3, 'failed')],
      meta: { current_page: 1, total_pages: 1, total_count: 3, per_page: 25 },
    });
    const result = await runTaskctl(['list', '-o', 'tsv'], { api: mock });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('twice'))).toEqual([
      'warning: page 1 of the task list names task 3 twice (pending, failed): the answer contradicts itself; its own read: taskctl show 3',
    ]);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(3);
  });
});
