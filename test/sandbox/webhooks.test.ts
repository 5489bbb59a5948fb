import { describe, expect, it } from 'vitest';
import { WebhookEventSchema } from '../../src/api/schemas.js';
import { CLOSED_HOST, freePort } from '../e2e/spawn-cli.js';
import {
  admin,
  call,
  createTask,
  deliveriesWhen,
  eventually,
  receivedWhen,
  recordingScheduler,
  start,
  startReceiver,
  type Json,
} from './sandbox-calls.js';

const BASE_FIELDS = [
  'id',
  'service',
  'platform',
  'status',
  'total_items',
  'completed_items',
  'failed_items',
  'cost',
  'created_at',
];
const sorted = (keys: string[]) => [...keys].sort();

describe('sandbox webhooks', () => {
  it('sends processing then completed, signed with the key, with exactly the fields docs/openapi.json names for each event', async () => {
    const receiver = await startReceiver();
    const sb = await start({ webhookUrl: receiver.url, itemMs: 5 });
    await createTask(sb, ['a.com', 'fail-b.com', 'slow-c.com']);
    await receivedWhen(receiver, (received) => received.length === 2);
    const [processing, completed] = receiver.received;
    for (const hook of [processing!, completed!]) {
      expect(hook.headers['content-type']).toBe('application/json');
      expect(hook.headers['x-webhook-signature']).toBe(sb.apiKey);
      expect(hook.headers['user-agent']).toBe('TaskService-Webhook/1.0');
      expect(() => WebhookEventSchema.parse(hook.body)).not.toThrow();
      expect(Object.keys(hook.body).sort()).toEqual(['event', 'task', 'timestamp']);
    }
    const task = (await call(sb, '/tasks/1')).body.data;
    expect(processing!.body).toEqual({
      event: 'processing',
      timestamp: task.started_at,
      task: {
        id: 1,
        service: 'domain_check_availability',
        platform: 'domain',
        status: 'processing',
        total_items: 3,
        completed_items: 0,
        failed_items: 0,
        cost: 3,
        created_at: task.created_at,
        started_at: task.started_at,
      },
    });
    expect(completed!.body.event).toBe('completed');
    expect(completed!.body.timestamp).toBe(task.completed_at);
    expect(sorted(Object.keys(completed!.body.task))).toEqual(sorted([...BASE_FIELDS, 'completed_at']));
    expect(completed!.body.task).toMatchObject({
      status: 'completed',
      completed_items: 2,
      failed_items: 1,
      completed_at: task.completed_at,
    });
    const deliveries = (await admin(sb, '/deliveries')).body.deliveries;
    expect(deliveries.map((d: Json) => [d.event, d.state, d.attempts.length, d.attempts[0].statusCode])).toEqual([
      ['processing', 'delivered', 1, 200],
      ['completed', 'delivered', 1, 200],
    ]);
    expect(deliveries[0]).toMatchObject({ taskId: 1, url: receiver.url, payload: processing!.body });
    expect(deliveries[0].attempts[0]).toEqual({
      attempt: 1,
      at: expect.any(String),
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
    });
  });

  it('sends failed with error_message and failed_at for a taskfail- task', async () => {
    const receiver = await startReceiver();
    const sb = await start({ webhookUrl: receiver.url, itemMs: 2 });
    await createTask(sb, ['a@x.com', 'taskfail-b@x.com', 'c@x.com'], 'email_verify');
    await receivedWhen(receiver, (received) => received.length === 2);
    const failed = receiver.received[1]!.body;
    const task = (await call(sb, '/tasks/1')).body.data;
    expect(failed.event).toBe('failed');
    expect(sorted(Object.keys(failed.task))).toEqual(sorted([...BASE_FIELDS, 'error_message', 'failed_at']));
    expect(failed.task).toMatchObject({
      status: 'failed',
      platform: 'email',
      cost: 6,
      completed_items: 1,
      failed_items: 2,
      error_message: task.error_message,
      failed_at: task.failed_at,
    });
  });

  it('delivers failed deliveries again on the scaled schedule until one succeeds', async () => {
    let processingAttempts = 0;
    const receiver = await startReceiver((_n, body) =>
      body.event === 'processing' && ++processingAttempts <= 2 ? 500 : 200,
    );
    const scale = 0.002; // 0, 10 ms, 60 ms
    const sb = await start({ webhookUrl: receiver.url, itemMs: 1, webhookTimeScale: scale });
    await createTask(sb, ['a.com']);
    await receivedWhen(receiver, (received) => received.filter((r) => r.body.event === 'processing').length === 3);
    const times = receiver.received.filter((r) => r.body.event === 'processing').map((r) => r.at);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(5_000 * scale - 2);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(30_000 * scale - 2);
    const [processing] = await deliveriesWhen(sb, (list) => list[0]?.state === 'delivered');
    expect(processing.state).toBe('delivered');
    expect(processing.attempts.map((a: Json) => a.statusCode)).toEqual([500, 500, 200]);
    // Every attempt carries the same payload.
    const payloads = receiver.received.filter((r) => r.body.event === 'processing').map((r) => JSON.stringify(r.body));
    expect(new Set(payloads).size).toBe(1);
  });

  it('abandons a delivery after 6 failed attempts and logs it', async () => {
    const receiver = await startReceiver(() => 500);
    const lines: string[] = [];
    const sb = await start({
      webhookUrl: receiver.url,
      itemMs: 0,
      webhookTimeScale: 0.0002,
      log: (l) => lines.push(l),
    });
    await createTask(sb, ['a.com']);
    const list = await deliveriesWhen(sb, (all) => all.length === 2 && all.every((d) => d.state === 'abandoned'));
    expect(list).toHaveLength(2);
    for (const delivery of list) {
      expect(delivery.state).toBe('abandoned');
      expect(delivery.nextAttemptAt).toBeNull();
      expect(delivery.attempts.map((a: Json) => a.statusCode)).toEqual([500, 500, 500, 500, 500, 500]);
    }
    expect(receiver.received).toHaveLength(12);
    // Delays 0, 5, 30, 120, 300, 600 s × 0.0002: at least 211 ms from the first attempt to the sixth.
    const times = list[0].attempts.map((a: Json) => Date.parse(a.at));
    expect(times[5] - times[0]).toBeGreaterThanOrEqual(209);
    expect(times[4] - times[3]).toBeGreaterThanOrEqual(59);
    expect(lines.find((l) => l.includes('abandoned'))).toMatch(/after 6 failed attempts \(last: HTTP 500\)/);
  });

  it('logs when the next attempt comes as people write durations', async () => {
    const receiver = await startReceiver(() => 500);
    const lines: string[] = [];
    const sb = await start({ webhookUrl: receiver.url, itemMs: 0, log: (l) => lines.push(l) });
    await createTask(sb, ['a.com']);
    const line = await eventually(() => lines.find((l) => l.includes('failed (HTTP 500)')), {
      describe: () => `log lines: ${JSON.stringify(lines)}`,
    });
    expect(line).toMatch(/; attempt 2 in 5s$/);
  });

  it('counts no answer within the timeout as a failed attempt', async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 'hang' : 200));
    const sb = await start({ webhookUrl: receiver.url, itemMs: 50, webhookTimeoutMs: 250, webhookTimeScale: 0.001 });
    await createTask(sb, ['a.com']);
    const deliveries = await deliveriesWhen(sb, (list) => list[0]?.state === 'delivered');
    expect(deliveries[0].attempts[0]).toMatchObject({ statusCode: null, error: 'no response within 0.3s' });
    expect(deliveries[0].attempts[0].durationMs).toBeGreaterThanOrEqual(245);
    expect(deliveries[0].attempts.at(-1).statusCode).toBe(200);
  });

  it("a receiver nothing listens on: the attempt and the log say so in words, not Node's error text", async () => {
    // A port just freed on an address no other test binds: nothing listens there (on 127.0.0.1 a server of a test
    // running in parallel once took it, and the attempt got that server's 404).
    const port = await freePort(CLOSED_HOST);
    const lines: string[] = [];
    const sb = await start({
      webhookUrl: `http://${CLOSED_HOST}:${port}/hook`,
      itemMs: 0,
      webhookTimeScale: 1,
      log: (line) => lines.push(line),
    });
    await createTask(sb, ['a.com']);
    const deliveries = await deliveriesWhen(sb, (list) => list[0]?.attempts.length >= 1);
    expect(deliveries[0].attempts[0]).toMatchObject({
      statusCode: null,
      error: 'connection refused (nothing listens there)',
    });
    const line = await eventually(() => lines.find((l) => l.includes('failed (')));
    expect(line).toContain('failed (connection refused (nothing listens there)); attempt 2 in 5s');
    expect(lines.join('\n')).not.toContain('ECONNREFUSED');
  });

  it('signs with the current key after rotation, and sends nothing without a URL', async () => {
    const receiver = await startReceiver();
    const { scheduler, pending } = recordingScheduler();
    const sb = await start({ itemMs: 0, scheduler });
    await createTask(sb, ['a.com']);
    // Nothing sent, proved once nothing more is due: every timer the sandbox set for the task (its transitions, armed
    // before the POST was answered) has run, and the task has ended without a URL to send its events to.
    await eventually(() => pending.size === 0, {
      describe: () => `timers still pending: ${[...pending.values()].join(', ')} ms`,
    });
    expect((await call(sb, '/tasks/1')).body.data.status).toBe('completed');
    expect((await admin(sb, '/deliveries')).body.deliveries).toEqual([]);
    const { apiKey } = (await admin(sb, '/rotate-key', {})).body;
    await admin(sb, '/webhook', { url: receiver.url });
    await call(sb, '/tasks', { key: apiKey, body: { service: 'domain_check_availability', items: ['b.com'] } });
    await receivedWhen(receiver, (received) => received.length === 2);
    expect(receiver.received.map((r) => r.headers['x-webhook-signature'])).toEqual([apiKey, apiKey]);
    expect(receiver.received.map((r) => r.body.task.id)).toEqual([2, 2]);
  });
});
