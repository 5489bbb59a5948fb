import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { call, createTask, start, waitForTask, type Json } from './sandbox-calls.js';

const ITEM_MS = 100;
const QUEUE_MS = 50; // min(itemMs, 50)

/** GET /tasks/1 at fake time `created + ms`. */
async function at(sb: Awaited<ReturnType<typeof start>>, clock: FakeClock, created: number, ms: number) {
  clock.nowMs = created + ms;
  return (await call(sb, '/tasks/1')).body.data;
}

describe('sandbox lifecycle (derived from an injected clock)', () => {
  it('goes pending → processing → completed with timestamps and counts', async () => {
    const clock = new FakeClock();
    const created = clock.nowMs;
    const sb = await start({ clock, itemMs: ITEM_MS, rateLimit: 0 });
    expect((await createTask(sb, ['a.com', 'b.com', 'c.com'])).body.data.status).toBe('pending');

    const pending = await at(sb, clock, created, QUEUE_MS - 1);
    expect(pending).toMatchObject({ status: 'pending', completed_items: 0, failed_items: 0, completed_at: null });
    expect(pending).not.toHaveProperty('started_at');
    expect(pending.items.map((i: Json) => i.status)).toEqual(['pending', 'pending', 'pending']);

    const started = await at(sb, clock, created, QUEUE_MS);
    expect(started).toMatchObject({
      status: 'processing',
      started_at: new Date(created + QUEUE_MS).toISOString(),
      completed_items: 0,
    });
    expect(started.items.map((i: Json) => i.status)).toEqual(['processing', 'pending', 'pending']);

    const midway = await at(sb, clock, created, QUEUE_MS + ITEM_MS + 1);
    expect(midway).toMatchObject({ status: 'processing', completed_items: 1, failed_items: 0 });
    expect(midway.items.map((i: Json) => [i.status, i.data === null])).toEqual([
      ['completed', false],
      ['processing', true],
      ['pending', true],
    ]);

    const almost = await at(sb, clock, created, QUEUE_MS + 3 * ITEM_MS - 1);
    expect(almost.status).toBe('processing');
    const done = await at(sb, clock, created, QUEUE_MS + 3 * ITEM_MS);
    expect(done).toMatchObject({
      status: 'completed',
      completed_items: 3,
      failed_items: 0,
      completed_at: new Date(created + QUEUE_MS + 3 * ITEM_MS).toISOString(),
    });
    expect(done).not.toHaveProperty('failed_at');
  });

  it('fails `fail-` items individually; the task still completes', async () => {
    const clock = new FakeClock();
    const sb = await start({ clock, itemMs: ITEM_MS });
    await createTask(sb, ['ok-1.com', 'fail-2.com', 'ok-3.com']);
    const done = await at(sb, clock, clock.nowMs, QUEUE_MS + 3 * ITEM_MS);
    expect(done).toMatchObject({ status: 'completed', completed_items: 2, failed_items: 1 });
    expect(done.items[1]).toEqual({
      target: 'fail-2.com',
      status: 'failed',
      data: null,
      error: expect.stringMatching(/fail-/),
    });
    expect(done.items[0].status).toBe('completed');
    expect(done.items[2].status).toBe('completed');
  });

  it('fails the task when processing finishes a `taskfail-` item; later items are skipped', async () => {
    const clock = new FakeClock();
    const created = clock.nowMs;
    const sb = await start({ clock, itemMs: ITEM_MS });
    await createTask(sb, ['a.com', 'fail-b.com', 'taskfail-c.com', 'd.com', 'e.com']);
    const before = await at(sb, clock, created, QUEUE_MS + 3 * ITEM_MS - 1);
    expect(before).toMatchObject({ status: 'processing', completed_items: 1, failed_items: 1 });
    const failed = await at(sb, clock, created, QUEUE_MS + 3 * ITEM_MS);
    expect(failed).toMatchObject({
      status: 'failed',
      completed_items: 1,
      failed_items: 4,
      completed_at: null,
      failed_at: new Date(created + QUEUE_MS + 3 * ITEM_MS).toISOString(),
      error_message: expect.stringContaining('taskfail-c'),
    });
    expect(failed.items.map((i: Json) => i.status)).toEqual(['completed', 'failed', 'failed', 'failed', 'failed']);
    expect(failed.items[0].data).toEqual({ available: expect.any(Boolean) });
    expect(failed.items[3].error).toMatch(/Not processed/);
    // Nothing changes later: the failure is final.
    expect(await at(sb, clock, created, 60_000)).toEqual(failed);
  });

  it('takes 10× itemMs for `slow-` items', async () => {
    const clock = new FakeClock();
    const created = clock.nowMs;
    const sb = await start({ clock, itemMs: ITEM_MS });
    await createTask(sb, ['a.com', 'slow-b.com', 'c.com']);
    const duringSlow = await at(sb, clock, created, QUEUE_MS + ITEM_MS + 9 * ITEM_MS);
    expect(duringSlow.items.map((i: Json) => i.status)).toEqual(['completed', 'processing', 'pending']);
    const afterSlow = await at(sb, clock, created, QUEUE_MS + 11 * ITEM_MS);
    expect(afterSlow.items.map((i: Json) => i.status)).toEqual(['completed', 'completed', 'processing']);
    const done = await at(sb, clock, created, QUEUE_MS + 12 * ITEM_MS);
    expect(done.status).toBe('completed');
  });

  it('keeps a 10,000-item task cheap and exact at any moment', async () => {
    const clock = new FakeClock();
    const created = clock.nowMs;
    const sb = await start({ clock, itemMs: 1, balance: 1_000_000 });
    const items = Array.from({ length: 10_000 }, (_, i) =>
      i % 1000 === 999 ? `slow-${i}.com` : i % 100 === 7 ? `fail-${i}.com` : `d${i}.com`,
    );
    expect((await createTask(sb, items)).status).toBe(201);
    // Queue 1 ms; after 5,000 ms: items 0..N done where slow items (at 999, 1999, ...) cost 10 ms each.
    clock.nowMs = created + 1 + 5_000;
    const list = (await call(sb, '/tasks')).body.data[0];
    // 5000 ms = k items + 9 ms per slow item among them: k = 4964 (4 slow items below index 4964, 4964 + 36 = 5000).
    expect(list.completed_items).toBe(4964 - 50);
    expect(list.failed_items).toBe(50);
    clock.nowMs = created + 1 + 10_000 + 90;
    const done = (await call(sb, '/tasks/1')).body.data;
    expect(done).toMatchObject({ status: 'completed', completed_items: 9_900, failed_items: 100 });
    expect(done.items).toHaveLength(10_000);
  });

  it('completes instantly with itemMs 0 (creation still reports pending)', async () => {
    const sb = await start({ itemMs: 0 });
    const created = await createTask(sb, ['a.com', 'slow-b.com', 'fail-c.com']);
    expect(created.body.data.status).toBe('pending');
    const task = (await call(sb, '/tasks/1')).body.data;
    expect(task).toMatchObject({ status: 'completed', completed_items: 2, failed_items: 1 });
    expect(task.started_at).toBe(task.completed_at);
  });

  it('runs on the real clock by default', async () => {
    const sb = await start({ itemMs: 5 });
    await createTask(sb, ['a.com', 'b.com']);
    const task = await waitForTask(sb, 1);
    expect(task.status).toBe('completed');
    expect(Date.parse(task.completed_at) - Date.parse(task.started_at)).toBe(10);
  });
});
