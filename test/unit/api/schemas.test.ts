/** The response schemas keep what the server sent while still checking the fields the client reads. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BalanceResponseSchema,
  TaskItemSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
} from '../../../src/api/schemas.js';
import { z } from '../../../src/lib/zod.js';

const TASK = {
  id: 1,
  service: 's',
  status: 'completed',
  total_items: 1,
  cost: 1,
  created_at: '2025-01-01T00:00:00Z',
  region: 'eu',
};

describe('loose schemas', () => {
  it('keep unknown fields of tasks, items, list pages, services and balance', () => {
    const list = TaskListResponseSchema.parse({
      success: true,
      data: [TASK],
      meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 20, cursor: 'x' },
    });
    expect(list.data[0]).toEqual(TASK);
    expect(list.meta).toMatchObject({ cursor: 'x' });
    const item = { target: 'a', status: 'completed', data: { available: false }, took_ms: 3 };
    expect(TaskResponseSchema.parse({ success: true, data: { ...TASK, items: [item] } }).data.items).toEqual([item]);
    const service = { service: 's', display_name: 'S', description: '', pricing: 1, currency: 'coins', tags: ['a'] };
    expect(ServicesResponseSchema.parse({ success: true, data: [service] }).data).toEqual([service]);
    expect(BalanceResponseSchema.parse({ success: true, data: { balance: 1, currency: 'c', x: true } }).data).toEqual({
      balance: 1,
      currency: 'c',
      x: true,
    });
  });

  it('accept item data of any JSON shape', () => {
    for (const data of [[1, 2], 'text', 3, null, { a: { b: [] } }, true]) {
      const task = { ...TASK, items: [{ target: 'a', status: 'completed', data }] };
      expect(TaskResponseSchema.parse({ success: true, data: task }).data.items?.[0]?.data).toEqual(data);
    }
  });

  it('still refuse a missing or mistyped field the client reads', () => {
    expect(TaskResponseSchema.safeParse({ success: true, data: { ...TASK, status: 5 } }).success).toBe(false);
    const noTarget = { ...TASK, items: [{ status: 'completed' }] };
    expect(TaskResponseSchema.safeParse({ success: true, data: noTarget }).success).toBe(false);
    expect(BalanceResponseSchema.safeParse({ success: true, data: { balance: '5', currency: 'c' } }).success).toBe(
      false,
    );
  });
});

describe('items checked in place', () => {
  it('accept and refuse exactly what TaskItemSchema does, with the same message', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    const item = fc.oneof(
      value,
      fc.array(value, { maxLength: 2 }),
      fc.record({ target: value, status: value, error: value, data: value }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 3 }), (items) => {
        const whole = z.array(TaskItemSchema).safeParse(items);
        const inPlace = TaskResponseSchema.safeParse({ success: true, data: { ...TASK, items } });
        expect(inPlace.success).toBe(whole.success);
        if (!whole.success && !inPlace.success) {
          const first = whole.error.issues[0];
          const got = inPlace.error.issues[0];
          expect(got?.path).toEqual(['data', 'items', ...(first?.path ?? [])]);
          expect(got?.message).toBe(first?.message);
        }
      }),
      { numRuns: 300 },
    );
  });
});
