/**
 * core/follow/item-counts.ts: a task with its counts in place of its items shows the same in a table (the ITEMS
 * column, the status's tone) as the task with its items: what the follow engine and a create's table hold
 * (core/submit/send-chunks.ts) instead of the answer.
 */
import { expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { withItemCounts } from '../../../../src/core/follow/item-counts.js';
import { taskTone } from '../../../../src/lib/task-state.js';
import { taskColumns } from '../../../../src/output/task-columns.js';

const at = '2025-01-15T12:00:00Z';
const items = (...statuses: string[]) => statuses.map((status, i) => ({ target: `t${i}.com`, status }));
const TASKS: Task[] = [
  {
    id: 1,
    service: 's',
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: at,
    items: items('completed', 'completed'),
  },
  {
    id: 2,
    service: 's',
    status: 'completed',
    total_items: 3,
    cost: 3,
    created_at: at,
    items: items('completed', 'failed', 'completed'),
  },
  // An ended task listing fewer items than it counts.
  {
    id: 3,
    service: 's',
    status: 'failed',
    total_items: 4,
    cost: 4,
    created_at: at,
    failed_at: at,
    items: items('completed'),
  },
  {
    id: 4,
    service: 's',
    status: 'processing',
    total_items: 3,
    cost: 3,
    created_at: at,
    items: items('completed', 'pending', 'pending'),
  },
  // Counts fields that say worse than the items.
  {
    id: 5,
    service: 's',
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: at,
    completed_items: 1,
    failed_items: 1,
    items: items('completed', 'completed'),
  },
];

it('a task with its counts in place of its items keeps its ITEMS column and its tone, and holds no items', () => {
  const column = taskColumns((status) => status).find((c) => c.header === 'ITEMS');
  const shown = (task: Task) => column?.display?.(task) ?? '';
  for (const task of TASKS) {
    const held = withItemCounts(task);
    expect(held.items, `task ${task.id}`).toBeUndefined();
    expect(shown(held), `task ${task.id}`).toBe(shown(task));
    expect(taskTone(held), `task ${task.id}`).toBe(taskTone(task));
  }
  expect(TASKS.map(shown)).toEqual(['2/2', '2/3, 1 failed', '1/4, 3 not listed', '1/3', '1/2, 1 failed']);
});
