/** Each sandbox dialect answers in its variant; the reference form is unchanged without one. */
import { describe, expect, it } from 'vitest';
import { DIALECT_NAMES } from '../../src/sandbox/index.js';
import { UsageError } from '../../src/errors.js';
import { FakeClock, T0 } from '../clock.js';
import { receivedWhen, call, createTask, start, startReceiver } from './sandbox-calls.js';

const MIN = 60_000;

describe('sandbox dialects', () => {
  it('refuses an unknown dialect name with a usage error listing the names', async () => {
    const attempt = start({ dialects: ['balance-top-level', 'klingon'] });
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(/klingon.*balance-top-level/);
  });

  it('balance-top-level, error-string, status-400, created-200', async () => {
    const sandbox = await start({ dialects: ['balance-top-level', 'error-string', 'status-400', 'created-200'] });
    expect((await call(sandbox, '/balance')).body).toEqual({ success: true, balance: 10_000, currency: 'coins' });
    const refused = await call(sandbox, '/tasks', { body: { service: 'domain_check_availability', items: [] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, error: 'validation_error', message: 'items must not be empty' });
    expect((await call(sandbox, '/tasks/999')).status).toBe(400);
    const unauthorized = await call(sandbox, '/balance', { key: 'sk_wrong' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toEqual({ success: false, error: 'unauthorized', message: 'Invalid or missing API key' });
    expect((await createTask(sandbox, ['a.com'])).status).toBe(200);
  });

  it('reset-delta: X-RateLimit-Reset counts seconds to the window end', async () => {
    const clock = new FakeClock(T0 + 15_000);
    const sandbox = await start({ clock, dialects: ['reset-delta'] });
    expect((await call(sandbox, '/balance')).headers.get('x-ratelimit-reset')).toBe('45');
  });

  it('reset-ms: X-RateLimit-Reset is the epoch time of the window end in milliseconds', async () => {
    const clock = new FakeClock(T0 + 15_000);
    const sandbox = await start({ clock, dialects: ['reset-ms'] });
    expect((await call(sandbox, '/balance')).headers.get('x-ratelimit-reset')).toBe(String(T0 + MIN));
  });

  it('whole-seconds: created_at (and the other timestamps) without a fraction, truncated', async () => {
    const clock = new FakeClock(T0 + 15_900);
    const sandbox = await start({ clock, itemMs: 10, dialects: ['whole-seconds'] });
    const { body } = await createTask(sandbox, ['a.com']);
    expect(body.data.created_at).toBe('2025-01-15T12:00:15Z');
    clock.advance(MIN);
    const task = (await call(sandbox, `/tasks/${body.data.id}`)).body.data;
    expect([task.created_at, task.started_at, task.completed_at]).toEqual([
      '2025-01-15T12:00:15Z',
      '2025-01-15T12:00:15Z',
      '2025-01-15T12:00:15Z', // done 20 ms later, at 12:00:15.920
    ]);
    expect((await call(sandbox, '/tasks')).body.data[0].created_at).toBe('2025-01-15T12:00:15Z');
  });

  it('clock skew: timestamps and the Date header run 3 s ahead of the given clock (and behind with -3 s)', async () => {
    const clock = new FakeClock(T0 + 15_250);
    const ahead = await start({ clock, clockSkewMs: 3000 });
    const created = await createTask(ahead, ['a.com']);
    expect(created.body.data.created_at).toBe('2025-01-15T12:00:18.250Z');
    expect(created.headers.get('date')).toBe('Wed, 15 Jan 2025 12:00:18 GMT');
    const behind = await start({ clock, clockSkewMs: -3000 });
    expect((await createTask(behind, ['a.com'])).body.data.created_at).toBe('2025-01-15T12:00:12.250Z');
    await expect(start({ clockSkewMs: 2 * 86_400_000 })).rejects.toThrow(/clock skew/);
  });

  it('item-statuses: queued/running items, error for fail-, skipped for skip- counted in neither count', async () => {
    const clock = new FakeClock();
    const sandbox = await start({ clock, itemMs: 1000, dialects: ['item-statuses'] });
    const { body } = await createTask(sandbox, ['a.com', 'fail-b.com', 'skip-c.com', 'd.com']);
    clock.advance(1_500);
    const running = (await call(sandbox, `/tasks/${body.data.id}`)).body.data;
    expect(running.items.map((i: { status: string }) => i.status)).toEqual([
      'completed',
      'running',
      'queued',
      'queued',
    ]);
    clock.advance(MIN);
    const done = (await call(sandbox, `/tasks/${body.data.id}`)).body.data;
    expect(done.status).toBe('completed');
    expect(done.items.map((i: { status: string }) => i.status)).toEqual(['completed', 'error', 'skipped', 'completed']);
    expect(done.items[2].data).toBeNull();
    expect([done.completed_items, done.failed_items]).toEqual([2, 1]);
    const listed = (await call(sandbox, '/tasks')).body.data[0];
    expect([listed.completed_items, listed.failed_items]).toEqual([2, 1]);
  });

  it('task-statuses: queued, running, cancelled (no failed_at) and archived (with completed_at)', async () => {
    const clock = new FakeClock();
    const sandbox = await start({ clock, itemMs: 1000, dialects: ['task-statuses'] });
    const created = (await createTask(sandbox, ['a.com', 'b.com'])).body.data;
    expect(created.status).toBe('queued');
    const cancelled = (await createTask(sandbox, ['a.com', 'taskfail-b.com'])).body.data;
    const archived = (await createTask(sandbox, ['archive-a.com'])).body.data;
    clock.advance(500);
    expect((await call(sandbox, `/tasks/${created.id}`)).body.data.status).toBe('running');
    clock.advance(MIN);
    const ended = (await call(sandbox, `/tasks/${cancelled.id}`)).body.data;
    expect(ended).toMatchObject({ status: 'cancelled', completed_at: null });
    expect(ended.failed_at).toBeUndefined();
    expect(ended.cancelled_at).toEqual(expect.any(String));
    const other = (await call(sandbox, `/tasks/${archived.id}`)).body.data;
    expect(other).toMatchObject({ status: 'archived', completed_at: expect.any(String) });
    expect((await call(sandbox, `/tasks/${created.id}`)).body.data.status).toBe('completed');
  });

  it('data-shapes: nested objects, arrays and strings', async () => {
    const sandbox = await start({ itemMs: 0, dialects: ['data-shapes'] });
    const dataOf = async (service: string) => {
      const item = service === 'email_verify' ? 'me@example.com' : 'example.com';
      const { body } = await createTask(sandbox, [item], service);
      return (await call(sandbox, `/tasks/${body.data.id}`)).body.data.items[0].data;
    };
    expect(await dataOf('domain_check_availability')).toEqual({
      available: expect.any(Boolean),
      details: { tld: 'com', premium: false },
    });
    expect(Array.isArray(await dataOf('domain_whois_history'))).toBe(true);
    expect(Array.isArray(await dataOf('fanpage_extract_contact'))).toBe(true);
    expect(typeof (await dataOf('email_verify'))).toBe('string');
  });

  it('no-items, bare-tasks, sparse, string-ids', async () => {
    const clock = new FakeClock();
    const sandbox = await start({ clock, itemMs: 1000, dialects: ['no-items', 'bare-tasks', 'sparse', 'string-ids'] });
    const created = (await createTask(sandbox, ['a.com'])).body.data;
    expect(created).toEqual({
      id: '1',
      service: 'domain_check_availability',
      status: 'pending',
      total_items: 1,
      cost: 1,
      created_at: expect.any(String),
    });
    const detail = (await call(sandbox, '/tasks/1')).body.data;
    expect(Object.keys(detail).sort()).toEqual(['cost', 'created_at', 'id', 'service', 'status', 'total_items']);
    clock.advance(MIN);
    expect((await call(sandbox, '/tasks')).body.data[0]).toMatchObject({ id: '1', completed_at: expect.any(String) });
  });

  it('sparse leaves out the data of unfinished items', async () => {
    const clock = new FakeClock();
    const sandbox = await start({ clock, itemMs: 1000, dialects: ['sparse'] });
    await createTask(sandbox, ['a.com', 'b.com']);
    const items = (await call(sandbox, '/tasks/1')).body.data.items;
    expect(items[1]).toEqual({ target: 'b.com', status: 'pending' });
  });

  it('per-page-clamp serves per_page over 100 as 100', async () => {
    const sandbox = await start({ dialects: ['per-page-clamp'] });
    const page = await call(sandbox, '/tasks?per_page=500');
    expect(page.status).toBe(200);
    expect(page.body.meta.per_page).toBe(100);
    const strict = await start();
    expect((await call(strict, '/tasks?per_page=500')).status).toBe(422);
  });

  it('extra-fields: unknown fields in envelopes, objects, items, meta and errors', async () => {
    const sandbox = await start({ itemMs: 0, dialects: ['extra-fields'] });
    const services = (await call(sandbox, '/services')).body;
    expect(services.request_id).toEqual(expect.any(String));
    expect(services.data[0].tags).toEqual(['sandbox']);
    expect((await call(sandbox, '/balance')).body.data.reserved).toBe(0);
    await createTask(sandbox, ['a.com']);
    const task = (await call(sandbox, '/tasks/1')).body.data;
    expect(task.metadata).toEqual({ source: 'api', region: 'local' });
    expect(task.items[0].attempts).toBe(1);
    expect((await call(sandbox, '/tasks')).body.meta.has_more).toBe(false);
    expect((await call(sandbox, '/tasks/99')).body.error.details).toEqual(expect.any(Object));
  });

  it('all switches every dialect on at once and still serves every endpoint', async () => {
    const sandbox = await start({ itemMs: 0, dialects: ['all'] });
    for (const path of ['/services', '/balance', '/tasks']) expect((await call(sandbox, path)).status).toBe(200);
    expect((await createTask(sandbox, ['a.com'])).status).toBe(200);
    expect((await call(sandbox, '/tasks/1')).status).toBe(200);
    expect(DIALECT_NAMES.length).toBeGreaterThanOrEqual(14);
  });
});

describe('sandbox dialects and webhooks', () => {
  it('extra-fields adds fields to webhook bodies; the event keeps the fields docs/openapi.json names', async () => {
    const receiver = await startReceiver();
    const sandbox = await start({ itemMs: 0, webhookUrl: receiver.url, dialects: ['extra-fields'] });
    await createTask(sandbox, ['a.com']);
    const received = await receivedWhen(receiver, (all) => all.some((r) => r.body.event === 'completed'));
    const completed = received.find((r) => r.body.event === 'completed')!;
    expect(completed.body.delivery_id).toEqual(expect.any(String));
    expect(completed.body.task).toMatchObject({ status: 'completed', platform: 'domain', metadata: { source: 'api' } });
  });
});
