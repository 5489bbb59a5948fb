import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/api/schemas.js';
import { synthesiseEvent, tasksToCatchUp } from '../../../src/webhook/catch-up.js';
import { T0 } from '../clock.js';

function task(id: number, minutesAgo: number, extra: Partial<Task> = {}): Task {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: new Date(T0 - minutesAgo * 60_000).toISOString(),
    completed_at: new Date(T0 - minutesAgo * 60_000 + 1000).toISOString(),
    ...extra,
  };
}

describe('catch-up', () => {
  it('takes the tasks created within the window (newest first, stopping at the first older one) and the named ones', async () => {
    const all = [task(5, 1), task(4, 10), task(3, 50), task(2, 70), task(1, 90)];
    const pages: number[] = [];
    const api = {
      listTasks: async ({ page, perPage }: { page: number; perPage: number }) => {
        pages.push(page);
        const slice = all.slice((page - 1) * 2, page * 2);
        expect(perPage).toBe(100);
        return { tasks: slice, meta: { total_pages: 3 } };
      },
      getTask: async (id: number) => all.find((t) => t.id === id) ?? Promise.reject(new Error('404')),
    };
    const tasks = await tasksToCatchUp(api, { withinMs: 60 * 60_000, ids: [1, 4], now: T0 });
    expect(tasks.map((t) => t.id)).toEqual([1, 3, 4, 5]);
    expect(pages).toEqual([1, 2]);
  });

  it('builds one event per task for its state, marked synthesised, leaving out fields the API did not give', () => {
    const bare = synthesiseEvent(task(7, 5), T0);
    expect(bare).toEqual({
      event: 'completed',
      timestamp: '2025-01-15T12:00:00.000Z',
      synthesised: true,
      task: {
        id: 7,
        service: 'domain_check_availability',
        status: 'completed',
        total_items: 2,
        cost: 2,
        created_at: '2025-01-15T11:55:00.000Z',
        completed_at: '2025-01-15T11:55:01.000Z',
      },
    });
    const full = synthesiseEvent(
      task(8, 5, {
        status: 'failed',
        platform: 'domain',
        completed_items: 1,
        failed_items: 1,
        completed_at: null,
        failed_at: '2025-01-15T11:56:00.000Z',
        error_message: 'boom',
      }),
      T0,
    );
    expect(full?.task).toMatchObject({ platform: 'domain', failed_items: 1, error_message: 'boom', status: 'failed' });
    expect(synthesiseEvent(task(9, 1, { status: 'pending', completed_at: null }), T0)).toBeUndefined();
  });
});
