import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../../src/api/schemas.js';
import { UsageError } from '../../../src/errors.js';
import { startWebhookListener } from '../../../src/webhook/listener.js';
import type { WebhookListener, WebhookListenerOptions } from '../../../src/webhook/listener.js';
import type { ReceivedEvent } from '../../../src/webhook/received.js';

const KEY = 'sk_test_listener_secret_9f3a';
const WRONG = 'sk_wrong_guess_77d1';

const event: WebhookEvent = {
  event: 'completed',
  timestamp: '2025-01-01T12:00:00.000Z',
  task: {
    id: 7,
    service: 'domain_check_availability',
    platform: 'domain',
    status: 'completed',
    total_items: 2,
    completed_items: 2,
    failed_items: 0,
    cost: 2,
    created_at: '2025-01-01T11:59:00.000Z',
    completed_at: '2025-01-01T12:00:00.000Z',
  },
};
const body = JSON.stringify(event);
const signed = {
  'Content-Type': 'application/json',
  'X-Webhook-Signature': KEY,
  'User-Agent': 'TaskService-Webhook/1.0',
};

const logs: string[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  // The key (and any presented signature) never reaches a log line, whatever the test did.
  for (const line of logs) {
    expect(line).not.toContain(KEY);
    expect(line).not.toContain(WRONG);
  }
  logs.length = 0;
});

async function listen(
  overrides: Partial<WebhookListenerOptions> = {},
): Promise<{ listener: WebhookListener; events: ReceivedEvent[]; raws: string[] }> {
  const events: ReceivedEvent[] = [];
  const raws: string[] = [];
  const listener = await startWebhookListener({
    port: 0,
    apiKey: KEY,
    onEvent: (e, note) => {
      if (note.duplicate) return;
      events.push(e);
      raws.push(JSON.stringify(e.body));
    },
    log: (line) => logs.push(line),
    ...overrides,
  });
  cleanups.push(() => listener.close());
  return { listener, events, raws };
}

async function post(
  url: string,
  payload: string | Uint8Array,
  headers: Record<string, string> = signed,
): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: payload });
}

describe('webhook listener', () => {
  it('accepts a signed event with 200 and hands it on once, even when delivered twice', async () => {
    const { listener, events, raws } = await listen();
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const first = await post(listener.url, body);
    expect(first.status).toBe(200);
    const second = await post(listener.url, body);
    expect(second.status).toBe(200);
    await listener.close();
    expect(events.map((e) => e.event)).toEqual([event]);
    expect(raws).toEqual([body]);
    expect(logs.some((l) => l.includes('(duplicate; already handled, not handed on again)'))).toBe(true);
    // A different event of the same task is new.
  });

  it('passes the next event of the same task on', async () => {
    const { listener, events } = await listen();
    const failed = {
      ...event,
      event: 'failed',
      task: { ...event.task, status: 'failed', error_message: 'x', failed_at: event.timestamp },
    };
    delete (failed.task as Record<string, unknown>).completed_at;
    await post(listener.url, body);
    expect((await post(listener.url, JSON.stringify(failed))).status).toBe(200);
    await listener.close();
    expect(events.map((e) => e.name)).toEqual(['completed', 'failed']);
  });

  it('rejects a wrong or missing signature with 401 and does not hand anything on', async () => {
    const { listener, events } = await listen();
    const wrong = await post(listener.url, body, { ...signed, 'X-Webhook-Signature': WRONG });
    expect(wrong.status).toBe(401);
    const prefix = await post(listener.url, body, { ...signed, 'X-Webhook-Signature': KEY.slice(0, -1) });
    expect(prefix.status).toBe(401);
    const { 'X-Webhook-Signature': _omit, ...unsigned } = signed;
    const missing = await post(listener.url, body, unsigned);
    expect(missing.status).toBe(401);
    await listener.close();
    expect(events).toEqual([]);
    expect(logs.filter((l) => l.includes('→ 401'))).toHaveLength(3);
  });

  it("deliveries signed with another key (the service's key regenerated): one warning with what to do, not one each", async () => {
    const { listener } = await listen();
    for (let i = 0; i < 3; i++)
      expect((await post(listener.url, body, { ...signed, 'X-Webhook-Signature': WRONG })).status).toBe(401);
    const advice = () => logs.filter((l) => l.startsWith('warning: deliveries are refused'));
    expect(advice()).toEqual([
      "warning: deliveries are refused (401): their signature does not match the API key this listener checks them with. If the service's key was regenerated, restart `taskctl webhook listen` with the new key (`taskctl auth login`, or TASKCTL_API_KEY) and --catch-up for the events refused meanwhile.",
    ]);
    // Said again only after a delivery that matched: a new episode.
    expect((await post(listener.url, body)).status).toBe(200);
    await post(listener.url, body, { ...signed, 'X-Webhook-Signature': WRONG });
    await listener.close();
    expect(advice()).toHaveLength(2);
  });

  it('answers 405 with Allow: POST for other methods, and 404 for other paths', async () => {
    const { listener, events } = await listen({ path: '/hooks/task' });
    const get = await fetch(listener.url, { headers: signed });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const elsewhere = await post(listener.url.replace('/hooks/task', '/other'), body);
    expect(elsewhere.status).toBe(404);
    expect((await post(`${listener.url}?x=1`, body)).status).toBe(200);
    await listener.close();
    expect(events).toHaveLength(1);
  });

  it('answers 413 for a body over 1 MiB, declared or streamed', async () => {
    const { listener, events } = await listen();
    const big = new Uint8Array(2 * 1024 * 1024).fill(0x20);
    const declared = await post(listener.url, big);
    expect(declared.status).toBe(413);
    // No Content-Length: the limit is enforced while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(128 * 1024).fill(0x20));
        controller.close();
      },
    });
    const streamed = await fetch(listener.url, {
      method: 'POST',
      headers: signed,
      body: stream,
      duplex: 'half',
    });
    expect(streamed.status).toBe(413);
    await listener.close();
    expect(events).toEqual([]);
  });

  it('closes a connection whose headers do not arrive in time (a stalled sender holds no socket)', async () => {
    const { listener } = await listen({ headersTimeoutMs: 200 });
    const { port } = new URL(listener.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('data', () => undefined);
    socket.write('POST / HTTP/1.1\r\nHost: x\r\n');
    // Resolves only when the listener closes it: no timer of the test's own.
    await new Promise((resolve) => socket.once('close', resolve));
    await listener.close();
  });

  it('answers 400 only for a body that is not JSON', async () => {
    const { listener, events } = await listen();
    const bad = await post(listener.url, '{not json');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/not JSON/);
    expect((await post(listener.url, '')).status).toBe(400);
    await listener.close();
    expect(events).toEqual([]);
  });

  it('refuses a body nested deeper than an API answer may be (400), and takes a leading UTF-8 BOM as the API client does', async () => {
    const { listener, events } = await listen();
    const deep = await post(listener.url, '['.repeat(300) + ']'.repeat(300));
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: string }).error).toBe('body is nested more than 256 levels deep');
    const bom = await fetch(listener.url, {
      method: 'POST',
      headers: signed,
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]),
    });
    expect(bom.status).toBe(200);
    await listener.close();
    expect(events.map((e) => [e.taskId, e.raw])).toEqual([['7', body]]);
  });

  it('acknowledges every correctly signed JSON event with 200, hands it on as received, and warns about its shape', async () => {
    const { listener, events, raws } = await listen();
    const { platform: _p, ...noPlatform } = event.task;
    const { completed_items: _c, failed_items: _f, ...noCounts } = event.task;
    const bodies = [
      { ...event, task: noPlatform },
      { ...event, task: { ...noCounts, id: 8 } },
      { ...event, event: 'deleted', task: { ...event.task, id: 9 } },
      [1, 2],
    ];
    for (const sent of bodies) expect((await post(listener.url, JSON.stringify(sent))).status).toBe(200);
    await listener.close();
    expect(events.map((e) => e.body)).toEqual(bodies);
    expect(raws).toEqual(bodies.map((b) => JSON.stringify(b)));
    expect(events.map((e) => e.event)).toEqual([undefined, undefined, undefined, undefined]);
    expect(events.map((e) => [e.name, e.taskId])).toEqual([
      ['completed', '7'],
      ['completed', '8'],
      ['deleted', '9'],
      [undefined, undefined],
    ]);
    const warnings = logs.filter((line) => line.startsWith('warning:'));
    expect(warnings).toHaveLength(4);
    // In our words (the field, what it should be), never the schema library's text.
    expect(warnings[0]).toContain('is not the documented event shape (task.platform: missing (should be a string))');
    expect(warnings[1]).toContain('(task.completed_items: missing (should be a number))');
    expect(warnings[2]).toContain('(event: matches none of the accepted forms)');
    expect(warnings[3]).toContain('(body: should be an object, not an array)');
  });

  it('keeps unknown fields of an event docs/openapi.json names and does not warn about them', async () => {
    const { listener, events } = await listen();
    const extended = { ...event, delivery_id: 'd-1', task: { ...event.task, priority: 'high' } };
    expect((await post(listener.url, JSON.stringify(extended))).status).toBe(200);
    await listener.close();
    expect(events[0]!.event).toEqual(event);
    expect(events[0]!.body).toEqual(extended);
    expect(logs.filter((line) => line.startsWith('warning:'))).toEqual([]);
  });

  it('keeps sender-chosen names to one bounded line in the log', async () => {
    const { listener } = await listen();
    const forged = { event: 'completed\nPOST / → 200 forged line', task: { id: 'x'.repeat(500) } };
    expect((await post(listener.url, JSON.stringify(forged))).status).toBe(200);
    await listener.close();
    for (const line of logs) {
      expect(line).not.toContain('\n');
      expect(line.length).toBeLessThan(400);
    }
  });

  it('hands a repeated delivery of an odd-shaped body on once', async () => {
    const { listener, events } = await listen();
    const odd = JSON.stringify({ hello: 'world' });
    expect((await post(listener.url, odd)).status).toBe(200);
    expect((await post(listener.url, odd)).status).toBe(200);
    expect((await post(listener.url, JSON.stringify({ hello: 'again' }))).status).toBe(200);
    await listener.close();
    expect(events).toHaveLength(2);
  });

  it('forwards each verified event to a local app with the same headers', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string; url: string | undefined }> = [];
    const app = await startApp((req, text) => received.push({ headers: req.headers, body: text, url: req.url }));
    const { listener } = await listen({ forwardTo: `${app.url}/hook` });
    await post(listener.url, body);
    await post(listener.url, body, { ...signed, 'X-Webhook-Signature': WRONG });
    await listener.close();
    expect(received).toHaveLength(1);
    expect(received[0]!.url).toBe('/hook');
    expect(received[0]!.body).toBe(body);
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers['user-agent']).toBe('TaskService-Webhook/1.0');
    expect(received[0]!.headers['x-webhook-signature']).toBe(KEY);
    expect(logs.some((l) => l.includes('forward completed task 7') && l.includes(': 200'))).toBe(true);
  });

  it('answers 502 while the app refuses, so the redelivery is handled, and forwards an accepted event once', async () => {
    let status = 500;
    const got: string[] = [];
    const app = await startApp(
      (_req, text) => got.push(text),
      () => status,
    );
    const { listener, events } = await listen({ forwardTo: app.url });
    expect((await post(listener.url, body)).status).toBe(502);
    expect(events).toEqual([]);
    status = 200;
    // The service's redelivery: not a duplicate, since the first delivery was never acknowledged.
    expect((await post(listener.url, body)).status).toBe(200);
    expect((await post(listener.url, body)).status).toBe(200);
    await listener.close();
    expect(events).toHaveLength(1);
    expect(got).toHaveLength(2);
    expect(logs.some((l) => l.includes('failed: HTTP 500'))).toBe(true);
    expect(logs.some((l) => l.includes('→ 502'))).toBe(true);
  });

  it('bounds a hung app by the forward timeout and answers 502', async () => {
    const app = await startApp(
      () => undefined,
      () => 'hang',
    );
    const { listener, events } = await listen({ forwardTo: app.url, forwardTimeoutMs: 200 });
    expect((await post(listener.url, body)).status).toBe(502);
    await listener.close();
    expect(events).toEqual([]);
    expect(logs.some((l) => l.includes('no answer within 0.2s'))).toBe(true);
  });

  it('refuses a plain-HTTP forward target off this machine at start', async () => {
    await expect(
      startWebhookListener({ port: 0, apiKey: KEY, onEvent: () => undefined, forwardTo: 'http://example.com/hook' }),
    ).rejects.toBeInstanceOf(UsageError);
  });

  it('runs the exec command per event with the JSON on stdin and the event in the environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskctl-exec-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const command = `cat > "${dir}/$TASKCTL_TASK_ID-$TASKCTL_EVENT.json"`;
    const { listener } = await listen({ exec: command });
    await post(listener.url, body);
    await post(listener.url, body);
    const other = { ...event, task: { ...event.task, id: 8 } };
    await post(listener.url, JSON.stringify(other));
    await listener.close();
    expect(await readFile(join(dir, '7-completed.json'), 'utf8')).toBe(body);
    expect(JSON.parse(await readFile(join(dir, '8-completed.json'), 'utf8'))).toEqual(other);
  });

  it('hands a simulated delivery on after the real event, once per simulation, with TASKCTL_SIMULATED=1 for exec', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskctl-exec-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const command = `echo "$TASKCTL_EVENT \${TASKCTL_SIMULATED:-real}" >> "${dir}/log"`;
    const { listener, events } = await listen({ exec: command });
    const simulated = (id: string) => ({ ...signed, 'X-Taskctl-Simulated': id });
    expect((await post(listener.url, body)).status).toBe(200);
    expect((await post(listener.url, body, simulated('sim-1'))).status).toBe(200);
    // The same simulation delivered again is a repeat; the real event again too.
    expect((await post(listener.url, body, simulated('sim-1'))).status).toBe(200);
    expect((await post(listener.url, body)).status).toBe(200);
    await listener.close();
    expect(events.map((e) => e.simulated)).toEqual([undefined, 'sim-1']);
    // The body handed on is the event as delivered, unchanged.
    expect(events.map((e) => e.raw)).toEqual([body, body]);
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['completed real', 'completed 1']);
    expect(logs.some((l) => l.includes('completed task 7 (simulated)'))).toBe(true);
  });

  it('passes X-Taskctl-Simulated on to the app it forwards to', async () => {
    const received: IncomingHttpHeaders[] = [];
    const app = await startApp((req) => received.push(req.headers));
    const { listener } = await listen({ forwardTo: `${app.url}/hook` });
    await post(listener.url, body);
    await post(listener.url, body, { ...signed, 'X-Taskctl-Simulated': 'sim-2' });
    await listener.close();
    expect(received.map((h) => h['x-taskctl-simulated'])).toEqual([undefined, 'sim-2']);
  });

  it('logs a non-zero exit of the exec command and its output', async () => {
    const { listener } = await listen({ exec: 'echo handling $TASKCTL_TASK_ID; exit 3' });
    await post(listener.url, body);
    await listener.close();
    expect(logs).toContain('exec (completed, task 7): handling 7');
    expect(logs.some((l) => l.includes('exited with code 3'))).toBe(true);
  });

  it('runs exec commands one at a time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskctl-exec-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // Each run records start and end; overlapping runs would interleave the lines.
    const command = `echo "start $TASKCTL_TASK_ID" >> "${dir}/log"; sleep 0.1; echo "end $TASKCTL_TASK_ID" >> "${dir}/log"`;
    const { listener } = await listen({ exec: command });
    await Promise.all(
      [1, 2, 3].map((id) => post(listener.url, JSON.stringify({ ...event, task: { ...event.task, id } }))),
    );
    await listener.close();
    const lines = (await readFile(join(dir, 'log'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) {
      expect(lines[i]!.startsWith('start')).toBe(true);
      expect(lines[i + 1]).toBe(lines[i]!.replace('start', 'end'));
    }
  });
});

async function startApp(
  onRequest: (req: import('node:http').IncomingMessage, body: string) => void,
  status: number | (() => number | 'hang') = 200,
): Promise<{ url: string }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      onRequest(req, Buffer.concat(chunks).toString('utf8'));
      const answer = typeof status === 'number' ? status : status();
      if (answer !== 'hang') res.writeHead(answer).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
