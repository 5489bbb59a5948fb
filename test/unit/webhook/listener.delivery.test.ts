/** `webhook listen` never loses an acknowledged event: queue, back-pressure, body cap, duplicates, spool, Ctrl-C. */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookListener } from '../../../src/webhook/listener.js';
import type { WebhookListener, WebhookListenerOptions } from '../../../src/webhook/listener.js';
import type { ReceivedEvent } from '../../../src/webhook/received.js';

const KEY = 'sk_test_delivery_5e1d';
const signed = { 'Content-Type': 'application/json', 'X-Webhook-Signature': KEY };
const cleanups: Array<() => Promise<unknown>> = [];
const logs: string[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  logs.length = 0;
});

function eventFor(id: number, name: 'processing' | 'completed' = 'completed'): string {
  const task = {
    id,
    service: 'domain_check_availability',
    platform: 'domain',
    status: name,
    total_items: 1,
    completed_items: name === 'completed' ? 1 : 0,
    failed_items: 0,
    cost: 1,
    created_at: '2025-01-01T11:59:00.000Z',
    ...(name === 'completed'
      ? { completed_at: '2025-01-01T12:00:00.000Z' }
      : { started_at: '2025-01-01T11:59:01.000Z' }),
  };
  return JSON.stringify({ event: name, timestamp: '2025-01-01T12:00:00.000Z', task });
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'taskctl-listen-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Started {
  listener: WebhookListener;
  printed: ReceivedEvent[];
  duplicates: ReceivedEvent[];
}

async function listen(overrides: Partial<WebhookListenerOptions> = {}, closeAfter = true): Promise<Started> {
  const printed: ReceivedEvent[] = [];
  const duplicates: ReceivedEvent[] = [];
  const listener = await startWebhookListener({
    port: 0,
    apiKey: KEY,
    onEvent: (e, { duplicate }) => {
      (duplicate ? duplicates : printed).push(e);
    },
    log: (line) => logs.push(line),
    ...overrides,
  });
  if (closeAfter) cleanups.push(() => listener.abandon());
  return { listener, printed, duplicates };
}

const post = (url: string, raw: string) => fetch(url, { method: 'POST', headers: signed, body: raw });

async function lines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

describe('webhook listen --exec queue', () => {
  it('answers 503 when the queue is full, and runs every event it answered 200, in order', async () => {
    const dir = await tempDir();
    const out = join(dir, 'ran');
    const { listener } = await listen({
      exec: `sleep 0.2; echo $TASKCTL_TASK_ID >> ${out}`,
      queue: 2,
    });
    const answers = await Promise.all([1, 2, 3, 4, 5].map((id) => post(listener.url, eventFor(id))));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    const accepted = [1, 2, 3, 4, 5].filter((_, i) => statuses[i] === 200);
    // A refused delivery comes again (the service sends it again) once there is room.
    await listener.close();
    expect((await lines(out)).map(Number).sort()).toEqual(accepted);
    expect(answers.find((r) => r.status === 503)?.headers.get('retry-after')).toBe('1');
  });

  it('runs up to --exec-concurrency commands at once', async () => {
    const dir = await tempDir();
    const out = join(dir, 'log');
    const gate = join(dir, 'go');
    // Each command holds until the gate opens, so "at once" does not depend on how fast a loaded machine starts them.
    const { listener } = await listen({
      exec: `echo start >> ${out}; while [ ! -e ${gate} ]; do sleep 0.02; done; echo end >> ${out}`,
      execConcurrency: 3,
    });
    for (const id of [1, 2, 3, 4]) expect((await post(listener.url, eventFor(id))).status).toBe(200);
    await expect.poll(() => lines(out), { timeout: 20_000 }).toEqual(['start', 'start', 'start']);
    await writeFile(gate, '');
    await listener.close();
    const log = await lines(out);
    expect(log).toHaveLength(8);
    // The fourth waited for a free slot: it started only after one of the first three ended (no timed pause needed).
    expect(log.slice(0, 4)).toEqual(['start', 'start', 'start', 'end']);
  });

  it('close() stops accepting and finishes the queue; abandon() stops it and names the events not run', async () => {
    const dir = await tempDir();
    const out = join(dir, 'ran');
    const { listener } = await listen({ exec: `sleep 0.1; echo $TASKCTL_TASK_ID >> ${out}` });
    for (const id of [1, 2, 3]) expect((await post(listener.url, eventFor(id))).status).toBe(200);
    await listener.close();
    expect(await lines(out)).toEqual(['1', '2', '3']);

    const second = await listen({ exec: 'sleep 5' });
    for (const id of [4, 5, 6]) expect((await post(second.listener.url, eventFor(id))).status).toBe(200);
    const left = await second.listener.abandon();
    expect(left.map((job) => job.label)).toEqual(['completed task 4', 'completed task 5', 'completed task 6']);
  });
});

describe('webhook listen back-pressure and bounds', () => {
  it('answers 503 while output cannot be written, and 200 once it drains', async () => {
    let writable = false;
    const { listener, printed } = await listen({ canPrint: () => writable });
    expect((await post(listener.url, eventFor(1))).status).toBe(503);
    writable = true;
    expect((await post(listener.url, eventFor(1))).status).toBe(200);
    expect(printed).toHaveLength(1);
  });

  it('answers 503 beyond the bodies it may hold at once, before reading them', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const forwarded = new Promise<void>((resolve) => (arrived = resolve));
    const app: Server = createServer((req, res) => {
      arrived();
      req.resume();
      void held.then(() => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => app.close(resolve)));
    const forwardTo = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    const { listener } = await listen({ forwardTo, maxBodiesAtOnce: 1 });
    const first = post(listener.url, eventFor(1));
    await forwarded; // the first body is held (being forwarded), however slow the machine
    expect((await post(listener.url, eventFor(2))).status).toBe(503);
    release();
    expect((await first).status).toBe(200);
  });

  it('honours --max-body', async () => {
    const { listener } = await listen({ maxBody: 100 });
    expect((await post(listener.url, eventFor(1))).status).toBe(413);
  });
});

describe('webhook listen duplicates', () => {
  it('prints a repeat as a duplicate and does not hand it on; --no-dedupe hands it on again', async () => {
    const dir = await tempDir();
    const out = join(dir, 'ran');
    const { listener, printed, duplicates } = await listen({ exec: `echo x >> ${out}` });
    expect((await post(listener.url, eventFor(1))).status).toBe(200);
    expect((await post(listener.url, eventFor(1))).status).toBe(200);
    await listener.close();
    expect([printed.length, duplicates.length]).toEqual([1, 1]);
    expect(await lines(out)).toHaveLength(1);

    const again = await listen({ exec: `echo y >> ${out}`, dedupe: false });
    expect((await post(again.listener.url, eventFor(1))).status).toBe(200);
    expect((await post(again.listener.url, eventFor(1))).status).toBe(200);
    await again.listener.close();
    expect(again.printed).toHaveLength(2);
    expect((await lines(out)).filter((l) => l === 'y')).toHaveLength(2);
  });
});

describe('webhook listen, task ids beyond 2^53', () => {
  // JSON.parse reads all three as 1152921504606846976: keyed by that, two would be acknowledged and never handed on.
  const ids = ['1152921504606846977', '1152921504606846976', '1152921504606846978'];
  const bigEvent = (id: string): string => eventFor(7).replace('"id":7', `"id":${id}`);

  it('keeps the digits as sent: three events are three, each handed on with its own id', async () => {
    const dir = await tempDir();
    const out = join(dir, 'ran');
    const { listener, printed, duplicates } = await listen({ exec: `echo "$TASKCTL_TASK_ID" >> ${out}` });
    for (const id of ids) expect((await post(listener.url, bigEvent(id))).status).toBe(200);
    expect((await post(listener.url, bigEvent(ids[0] ?? ''))).status).toBe(200);
    await listener.close();
    expect(printed.map((e) => e.taskId)).toEqual(ids);
    expect(duplicates.map((e) => e.taskId)).toEqual([ids[0]]);
    expect(await lines(out)).toEqual(ids);
    expect(logs.join('\n')).not.toContain('1152921504606847000');
    expect(logs.join('\n')).toContain(`completed task ${ids[1]}`);
  });
});

describe('webhook listen --spool', () => {
  it('keeps acknowledged events whose command did not run, runs them at the next start, and remembers what it saw', async () => {
    const dir = await tempDir();
    const spool = join(dir, 'events.spool');
    const out = join(dir, 'ran');
    const first = await listen({ exec: 'sleep 5', spool }, false);
    for (const id of [1, 2]) expect((await post(first.listener.url, eventFor(id))).status).toBe(200);
    // Like a crash: nothing ran to its end.
    expect(await first.listener.abandon()).toHaveLength(2);

    const second = await listen({ exec: `echo $TASKCTL_TASK_ID >> ${out}`, spool }, false);
    expect(second.listener.replayed).toBe(2);
    // The service sending again an event acknowledged before the restart: a duplicate.
    expect((await post(second.listener.url, eventFor(1))).status).toBe(200);
    expect(second.duplicates).toHaveLength(1);
    expect((await post(second.listener.url, eventFor(3))).status).toBe(200);
    await second.listener.close();
    expect(await lines(out)).toEqual(['1', '2', '3']);

    // Everything ran: nothing is run a third time.
    const third = await listen({ exec: `echo again >> ${out}`, spool }, false);
    expect(third.listener.replayed).toBe(0);
    await third.listener.close();
    expect(await lines(out)).toEqual(['1', '2', '3']);
  });
});

describe('webhook listen --spool, an event whose print failed', () => {
  it('is neither run at the next start nor taken there for a duplicate: its redelivery is printed and run once', async () => {
    const dir = await tempDir();
    const spool = join(dir, 'events.spool');
    const out = join(dir, 'ran');
    let forwards = 0;
    const app: Server = createServer((req, res) => {
      forwards++;
      req.resume();
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => app.close(resolve)));
    const forwardTo = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    const exec = `echo $TASKCTL_TASK_ID >> ${out}`;
    const gone = () => Promise.reject(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    const first = await listen({ exec, forwardTo, spool, written: gone }, false);
    // `| head -1` closed stdout: 500, the service delivers it again (to the next run).
    expect((await post(first.listener.url, eventFor(7))).status).toBe(500);
    await first.listener.close();

    const second = await listen({ exec, forwardTo, spool }, false);
    expect(second.listener.replayed).toBe(0);
    expect((await post(second.listener.url, eventFor(7))).status).toBe(200);
    expect(second.printed).toHaveLength(1);
    expect(second.duplicates).toHaveLength(0);
    await second.listener.close();
    expect(await lines(out)).toEqual(['7']);
    // At least once to the app: it had the event before the print failed, and has it again with the redelivery.
    expect(forwards).toBe(2);
  });
});

describe('webhook listen --spool, simulated events', () => {
  it('runs a spooled simulated event at the next start still with TASKCTL_SIMULATED=1', async () => {
    const dir = await tempDir();
    const spool = join(dir, 'events.spool');
    const out = join(dir, 'ran');
    const first = await listen({ exec: 'sleep 5', spool }, false);
    const simulated = { ...signed, 'X-Taskctl-Simulated': 'sim-9' };
    const sent = await fetch(first.listener.url, { method: 'POST', headers: simulated, body: eventFor(4) });
    expect(sent.status).toBe(200);
    expect((await post(first.listener.url, eventFor(5))).status).toBe(200);
    expect(await first.listener.abandon()).toHaveLength(2);

    const second = await listen({ exec: `echo $TASKCTL_TASK_ID \${TASKCTL_SIMULATED:-real} >> ${out}`, spool }, false);
    expect(second.listener.replayed).toBe(2);
    await second.listener.close();
    expect(await lines(out)).toEqual(['4 1', '5 real']);
  });
});

describe('webhook listen inject (catch-up)', () => {
  it('hands a synthesised event through the same path, marked, and a later real delivery is a duplicate', async () => {
    const { listener, printed, duplicates } = await listen();
    const synthesised = { ...JSON.parse(eventFor(9)), synthesised: true };
    expect((await listener.inject(JSON.stringify(synthesised))).status).toBe(200);
    expect(printed[0]?.synthesised).toBe(true);
    expect((await post(listener.url, eventFor(9))).status).toBe(200);
    expect(duplicates).toHaveLength(1);
  });
});
