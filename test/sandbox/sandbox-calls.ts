/** Shared helpers for the sandbox's HTTP-level tests: start/stop sandboxes, call the API and admin API, receive webhooks. */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startSandbox } from '../../src/sandbox/index.js';
import { closeAfterTest } from '../unit/commands/run-in-process.js';
import { waitFor } from '../wait-for.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/index.js';

/** Parsed JSON as `JSON.parse` gives it: the tests assert its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one name for untyped wire JSON in these tests
export type Json = any;

export async function start(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ port: 0, itemMs: 5, ...options });
  closeAfterTest(sandbox);
  return sandbox;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: Json;
}

/**
 * One request by undici's `request`, its headers as a `Headers` object: these tests make thousands of calls, and `fetch`
 * costs several times more CPU for each.
 */
async function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await request(url, { method, headers, body: body ?? null });
  const received = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) received.append(name, one);
  return { status: res.statusCode, headers: received, text: await res.body.text() };
}

/** One API call with the sandbox key (override with `key`, or `auth: 'bearer' | 'none'`). */
export async function call(
  sandbox: RunningSandbox,
  path: string,
  init: {
    method?: string;
    body?: unknown;
    key?: string;
    auth?: 'x-api-key' | 'bearer' | 'none';
    headers?: Record<string, string>;
  } = {},
): Promise<CallResult> {
  const key = init.key ?? sandbox.apiKey;
  const headers: Record<string, string> = { ...init.headers };
  if (init.auth === 'bearer') headers.Authorization = `Bearer ${key}`;
  else if (init.auth !== 'none') headers['X-API-Key'] = key;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await send(`${sandbox.url}${path}`, init.method ?? (body ? 'POST' : 'GET'), headers, body);
  let parsed: unknown = res.text;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    // Not JSON (faults): the raw text is the body.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** One admin API call; returns status and JSON body. */
export async function admin(
  sandbox: RunningSandbox,
  path: string,
  body?: unknown,
  method?: string,
): Promise<CallResult> {
  const res = await send(
    `${sandbox.origin}/__sandbox${path}`,
    method ?? (body === undefined ? 'GET' : 'POST'),
    body === undefined ? {} : { 'Content-Type': 'application/json' },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return { status: res.status, headers: res.headers, body: JSON.parse(res.text) };
}

export function createTask(
  sandbox: RunningSandbox,
  items: string[],
  service = 'domain_check_availability',
): Promise<CallResult> {
  return call(sandbox, '/tasks', { body: { service, items } });
}

/** Polls GET /tasks/:id until `done` holds (at most `timeoutMs`); past it, fails with the task as last seen. */
export async function waitForTask(
  sandbox: RunningSandbox,
  id: number,
  done = (t: Json) => t.status === 'completed' || t.status === 'failed',
  timeoutMs = 5_000,
): Promise<Json> {
  let seen: Json;
  return waitFor(async () => ((seen = (await call(sandbox, `/tasks/${id}`)).body.data), done(seen) && seen), {
    timeoutMs,
    describe: () => `task ${id} not settled: ${JSON.stringify(seen).slice(0, 300)}`,
  });
}

/**
 * Waits until `check` returns (or resolves to) a truthy value, and returns it; past `timeoutMs` (default 5 s) the test
 * fails with `describe()`, or else with the last value `check` returned (test/wait-for.ts).
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: { describe?: () => string | Promise<string>; timeoutMs?: number } = {},
): Promise<Truthy<T>> {
  let last: T | undefined;
  return waitFor<Truthy<T>>(async () => ((last = await check()), (last as Truthy<T>) || undefined), {
    timeoutMs: options.timeoutMs ?? 5_000,
    everyMs: 5,
    describe: options.describe ?? (() => `the last check gave ${JSON.stringify(last ?? null).slice(0, 300)}`),
  });
}

type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/** Node's timers, each one's delay kept while it is pending (`SandboxOptions.scheduler`): a test sees what is due. */
export function recordingScheduler(): {
  scheduler: NonNullable<SandboxOptions['scheduler']>;
  pending: Map<unknown, number>;
} {
  const pending = new Map<unknown, number>();
  const scheduler: NonNullable<SandboxOptions['scheduler']> = {
    set: (fn, ms) => {
      const timer = setTimeout(() => {
        pending.delete(timer);
        fn();
      }, ms);
      pending.set(timer, ms);
      return timer;
    },
    clear: (timer) => {
      clearTimeout(timer);
      pending.delete(timer);
    },
  };
  return { scheduler, pending };
}

/** The admin API's delivery list once `ready` holds for it; past the bound, fails with the list as last seen. */
export function deliveriesWhen(sandbox: RunningSandbox, ready: (deliveries: Json[]) => boolean): Promise<Json[]> {
  let seen: Json[] = [];
  return eventually(
    async () => {
      seen = (await admin(sandbox, '/deliveries')).body.deliveries;
      return ready(seen) ? seen : undefined;
    },
    { describe: () => `deliveries ${JSON.stringify(seen).slice(0, 500)}` },
  );
}

export interface ReceivedWebhook {
  at: number;
  headers: IncomingHttpHeaders;
  body: Json;
}

/** A receiver's webhooks once `ready` holds for them; past the bound, fails naming the events received so far. */
export function receivedWhen(
  receiver: { received: ReceivedWebhook[] },
  ready: (received: ReceivedWebhook[]) => boolean,
): Promise<ReceivedWebhook[]> {
  return eventually(() => (ready(receiver.received) ? receiver.received : undefined), {
    describe: () =>
      `${receiver.received.length} webhooks received: ${receiver.received.map((r) => `${String(r.body?.event)} of task ${String(r.body?.task?.id)}`).join(', ')}`,
  });
}

/** A local webhook receiver; `respond` picks the status of each request (1-based count), or `hang` to never answer. */
export async function startReceiver(
  respond: (n: number, body: Json) => number | 'hang' = () => 200,
): Promise<{ url: string; received: ReceivedWebhook[]; server: Server }> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ at: Date.now(), headers: req.headers, body });
      const status = respond(received.length, body);
      if (status !== 'hang') res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeAfterTest({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}
