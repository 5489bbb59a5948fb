/**
 * The sandbox's answers and webhook events against the client's own zod schemas (src/api/schemas.ts), through a full
 * scenario. The contract itself, docs/openapi.json, is checked by an independent validator in openapi*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ErrorResponseSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  WebhookEventSchema,
} from '../../src/api/schemas.js';
import { FakeClock } from '../clock.js';
import { receivedWhen, admin, call, start, startReceiver } from './sandbox-calls.js';
import type { CallResult } from './sandbox-calls.js';

describe("sandbox answers and the client's zod schemas", () => {
  it('answers a full scenario with bodies that all parse with the shared schemas', async () => {
    const receiver = await startReceiver();
    const clock = new FakeClock();
    const sb = await start({ clock, itemMs: 100, rateLimit: 40, balance: 60, webhookUrl: receiver.url });
    const checked: Array<[string, CallResult, z.ZodType]> = [];
    const expectOk = async (label: string, schema: z.ZodType, res: Promise<CallResult>) =>
      checked.push([label, await res, schema]);
    const expectError = async (label: string, status: number, code: string, res: Promise<CallResult>) => {
      const result = await res;
      expect([label, result.status]).toEqual([label, status]);
      expect([label, ErrorResponseSchema.parse(result.body).code]).toEqual([label, code]);
    };
    const create = (service: string, items: string[]) => call(sb, '/tasks', { body: { service, items } });

    await expectOk('services', ServicesResponseSchema, call(sb, '/services'));
    await expectOk('balance', BalanceResponseSchema, call(sb, '/balance'));
    await expectOk('create plain', CreateTaskResponseSchema, create('domain_check_availability', ['a.com', 'b.com']));
    await expectOk(
      'create magic',
      CreateTaskResponseSchema,
      create('domain_whois_history', ['a.com', 'fail-b.com', 'slow-c.com']),
    );
    await expectOk(
      'create taskfail',
      CreateTaskResponseSchema,
      create('fanpage_extract_contact', ['x', 'taskfail-y', 'z']),
    );
    await expectOk(
      'create email',
      CreateTaskResponseSchema,
      create('email_verify', ['me@example.com', 'fail-me@example.com']),
    );
    await expectOk('list page 1', TaskListResponseSchema, call(sb, '/tasks?per_page=2'));
    for (const id of [1, 2, 3, 4]) await expectOk(`task ${id} pending`, TaskResponseSchema, call(sb, `/tasks/${id}`));
    clock.advance(200);
    for (const id of [1, 2, 3, 4])
      await expectOk(`task ${id} processing`, TaskResponseSchema, call(sb, `/tasks/${id}`));
    clock.advance(10_000);
    for (const id of [1, 2, 3, 4]) await expectOk(`task ${id} settled`, TaskResponseSchema, call(sb, `/tasks/${id}`));
    await expectOk('list page 2', TaskListResponseSchema, call(sb, '/tasks?page=2&per_page=3'));
    await expectOk('list beyond', TaskListResponseSchema, call(sb, '/tasks?page=9'));

    await expectError('no key', 401, 'unauthorized', call(sb, '/balance', { auth: 'none' }));
    await expectError('no task', 404, 'not_found', call(sb, '/tasks/999'));
    await expectError('no service', 404, 'not_found', create('nope', ['a']));
    await expectError('bad per_page', 422, 'validation_error', call(sb, '/tasks?per_page=500'));
    await expectError('bad body', 422, 'validation_error', create('domain_check_availability', []));
    await expectError('too poor', 402, 'insufficient_balance', create('domain_whois_history', Array(20).fill('a.com')));
    await expectError('method', 405, 'method_not_allowed', call(sb, '/balance', { method: 'DELETE' }));
    await expectError(
      'type',
      415,
      'validation_error',
      call(sb, '/tasks', { body: 'x', headers: { 'Content-Type': 'text/plain' } }),
    );
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'status', status: 500 });
    await expectError('fault', 500, 'internal_error', call(sb, '/balance'));
    let limited: CallResult;
    do limited = await call(sb, '/balance');
    while (limited.status === 200);
    await expectError('rate', 429, 'rate_limited', Promise.resolve(limited));

    for (const [label, res, schema] of checked) {
      expect([label, res.status]).toEqual([label, label.startsWith('create') ? 201 : 200]);
      const parsed = schema.safeParse(res.body);
      expect([label, parsed.success ? 'ok' : parsed.error.message]).toEqual([label, 'ok']);
    }
    const statuses = (phase: string) => checked.filter(([l]) => l.endsWith(phase)).map(([, r]) => r.body.data.status);
    expect(statuses('pending')).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(statuses('processing')).toEqual(['processing', 'processing', 'processing', 'processing']);
    expect(statuses('settled')).toEqual(['completed', 'completed', 'failed', 'completed']);

    await receivedWhen(receiver, (received) => received.length === 8);
    for (const hook of receiver.received) WebhookEventSchema.parse(hook.body);
    expect(receiver.received.map((r) => r.body.event).sort()).toEqual([
      'completed',
      'completed',
      'completed',
      'failed',
      'processing',
      'processing',
      'processing',
      'processing',
    ]);
  });
});
