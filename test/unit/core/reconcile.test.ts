import { describe, expect, it } from 'vitest';
import type { PageMeta, Task } from '../../../src/api/schemas.js';
import { findMatchingTask, reconcileCreate, type TaskReader } from '../../../src/core/reconcile.js';
import { UnavailableError } from '../../../src/errors.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');

function task(id: number, service: string, items: string[], createdAt = NOW): Task {
  return {
    id,
    service,
    status: 'pending',
    total_items: items.length,
    cost: items.length,
    created_at: new Date(createdAt).toISOString(),
    items: items.map((target) => ({ target, status: 'pending', data: null })),
  };
}

/** Newest-first pages of 100 over `tasks`; `appearAfter` hides tasks until that many list calls were made. */
function reader(
  tasks: Task[],
  options: { failFirst?: number; appearAfter?: number } = {},
): TaskReader & { lists: number; gets: number } {
  const state = {
    lists: 0,
    gets: 0,
    async listTasks({ page = 1, perPage = 100 }: { page?: number; perPage?: number }) {
      state.lists += 1;
      if (state.lists <= (options.failFirst ?? 0)) throw new UnavailableError('502');
      const visible = state.lists > (options.appearAfter ?? 0) ? tasks : [];
      const sorted = [...visible].sort((a, b) => b.id - a.id).map(({ items: _items, ...rest }) => rest);
      const meta: PageMeta = {
        current_page: page,
        per_page: perPage,
        total_count: sorted.length,
        total_pages: Math.ceil(sorted.length / perPage),
      };
      return { tasks: sorted.slice((page - 1) * perPage, page * perPage), meta };
    },
    async getTask(id: number) {
      state.gets += 1;
      const found = tasks.find((t) => t.id === id);
      if (!found) throw new Error('missing');
      return found;
    },
  };
  return state;
}

const clock = { now: () => NOW, sleep: async () => {} };

describe('findMatchingTask', () => {
  it('finds the one task with the same service, count, time window and items (as a multiset)', async () => {
    const r = reader([task(1, 'svc', ['a', 'b']), task(2, 'svc', ['b', 'a']), task(3, 'other', ['a', 'b'])]);
    const result = await findMatchingTask(r, {
      service: 'svc',
      items: ['a', 'b'],
      createdAfter: NOW - 1000,
      exclude: new Set([1]),
    });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 2 }) });
  });

  it('rejects a candidate whose items differ, and tasks older than the window', async () => {
    const r = reader([task(1, 'svc', ['a', 'c']), task(2, 'svc', ['a', 'b'], NOW - 3_600_000)]);
    expect(await findMatchingTask(r, { service: 'svc', items: ['a', 'b'], createdAfter: NOW - 60_000 })).toEqual({
      kind: 'none',
    });
  });

  it('never guesses between two identical tasks', async () => {
    const r = reader([task(1, 'svc', ['a']), task(2, 'svc', ['a'])]);
    expect(await findMatchingTask(r, { service: 'svc', items: ['a'], createdAfter: NOW - 1000 })).toEqual({
      kind: 'ambiguous',
      ids: [2, 1],
    });
  });

  it('tolerates two minutes of clock skew', async () => {
    const r = reader([task(1, 'svc', ['a'], NOW - 90_000)]);
    expect((await findMatchingTask(r, { service: 'svc', items: ['a'], createdAfter: NOW })).kind).toBe('found');
  });
});

describe('reconcileCreate', () => {
  it('keeps scanning while the service fails or the task has not appeared yet', async () => {
    const r = reader([task(7, 'svc', ['a'])], { failFirst: 1, appearAfter: 2 });
    const result = await reconcileCreate(r, { service: 'svc', items: ['a'], createdAfter: NOW, clock });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 7 }) });
    expect(r.lists).toBe(3);
  });

  it('gives up after the schedule with no match', async () => {
    const slept: number[] = [];
    const r = reader([]);
    const result = await reconcileCreate(r, {
      service: 'svc',
      items: ['a'],
      createdAfter: NOW,
      clock: { now: () => NOW, sleep: async (ms) => void slept.push(ms) },
    });
    expect(result).toEqual({ kind: 'none' });
    expect(slept.reduce((a, b) => a + b, 0)).toBe(10_000);
  });
});
