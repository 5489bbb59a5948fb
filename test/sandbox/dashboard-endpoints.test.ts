/** The dashboard's side of the sandbox over HTTP: its endpoints, its files, and who may use them (Host, Origin). */
import { request } from 'node:http';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { PAGE_JS, REQUEST_JS } from '../../src/sandbox/dashboard/script.js';
import { PAGE_CSS } from '../../src/sandbox/dashboard/style.js';
import {
  admin,
  call,
  createTask,
  deliveriesWhen,
  eventually,
  start,
  startReceiver,
  type Json,
} from './sandbox-calls.js';

/** A raw request, so Host and Origin can be anything. */
function raw(
  sandbox: RunningSandbox,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const { port } = new URL(sandbox.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hostOf = (sandbox: RunningSandbox) => new URL(sandbox.origin).host;

describe('sandbox dashboard endpoints', () => {
  it('GET /state carries the key and the task count; ?tasks=false leaves the tasks out', async () => {
    const sb = await start({ itemMs: 0 });
    await createTask(sb, ['a.com']);
    const full = (await admin(sb, '/state')).body;
    expect(full).toMatchObject({
      apiKey: 'sk_sandbox_0000',
      taskCount: 1,
      tasks: [expect.objectContaining({ id: 1 })],
    });
    const lean = (await admin(sb, '/state?tasks=false')).body;
    expect(lean).toEqual({ balance: 9999, apiKey: 'sk_sandbox_0000', webhookUrl: null, taskCount: 1 });
    const rotated = (await admin(sb, '/rotate-key', {})).body.apiKey;
    expect((await admin(sb, '/state?tasks=false')).body.apiKey).toBe(rotated);
  });

  it('GET /tasks gives each task its verdict by the CLI vocabulary: completed with a failed item is partial', async () => {
    const sb = await start({ itemMs: 0 });
    await createTask(sb, ['a.com', 'fail-b.com']);
    await createTask(sb, ['c.com']);
    let shown: Json[] = [];
    const tasks = await eventually(
      async () => (
        (shown = (await admin(sb, '/tasks')).body.tasks),
        shown.every((t) => t.status === 'completed') && shown
      ),
      { describe: () => `tasks ${JSON.stringify(shown.map((t) => ({ id: t.id, status: t.status })))}` },
    );
    expect(tasks.map((t) => t.verdict)).toEqual([
      { ended: true, succeeded: true, tone: 'success' },
      { ended: true, succeeded: false, tone: 'partial' },
    ]);
  });

  it('GET /tasks/:id gives one task with its items and verdict; 404 for no such task; loopback only', async () => {
    const sb = await start({ itemMs: 0 });
    await createTask(sb, ['a.com', 'fail-b.com']);
    let shown: Json;
    const task = await eventually(
      async () => ((shown = (await admin(sb, '/tasks/1')).body.task), shown.status === 'completed' && shown),
      { describe: () => `task 1 ${JSON.stringify(shown ?? null).slice(0, 300)}` },
    );
    expect(task).toMatchObject({ id: 1, total_items: 2, verdict: { ended: true, succeeded: false, tone: 'partial' } });
    expect(task.items).toEqual([
      { target: 'a.com', status: 'completed', data: { available: expect.any(Boolean) } },
      { target: 'fail-b.com', status: 'failed', data: null, error: expect.stringMatching(/fail-/) },
    ]);
    for (const id of ['2', 'x', '1/items']) {
      const missing = await admin(sb, `/tasks/${id}`);
      expect(missing.status, id).toBe(404);
      expect(missing.body.error.code, id).toBe('not_found');
    }
    expect((await raw(sb, 'GET', '/__sandbox/tasks/1', { Host: 'evil.example' })).status).toBe(403);
  });

  it('the page colours badges by that tone alone: partial is the warning colour, no map of its own by status', () => {
    expect(PAGE_JS).toContain('badge(t.status, t.verdict && t.verdict.tone)');
    expect(PAGE_JS).not.toMatch(/'s-'|t\.status === '(pending|processing|completed)'/);
    expect(PAGE_CSS).toMatch(/\.tone-partial[^{]*\{ color: var\(--warn\)/);
    expect(PAGE_CSS).not.toMatch(/\.s-completed/);
  });

  it('GET /tasks pages newest first and validates its parameters', async () => {
    const sb = await start({ itemMs: 0 });
    for (let i = 0; i < 5; i++) await createTask(sb, [`d${i}.com`]);
    const first = (await admin(sb, '/tasks?page=1&per_page=2')).body;
    expect(first.tasks.map((t: Json) => t.id)).toEqual([5, 4]);
    expect(first.meta).toEqual({ current_page: 1, total_pages: 3, total_count: 5, per_page: 2 });
    expect((await admin(sb, '/tasks?page=3&per_page=2')).body.tasks.map((t: Json) => t.id)).toEqual([1]);
    expect((await admin(sb, '/tasks')).body.meta.per_page).toBe(25);
    for (const query of ['page=0', 'per_page=101', 'page=x']) {
      const res = await admin(sb, `/tasks?${query}`);
      expect(res.status).toBe(422);
    }
  });

  it('records request headers with the signature masked, filters by state, and replays a delivery', async () => {
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 500 : 200));
    const sb = await start({ itemMs: 0, webhookUrl: receiver.url, webhookTimeScale: 1000 });
    await createTask(sb, ['a.com']);
    const [first] = await deliveriesWhen(sb, (list) => list.length >= 1 && list[0].state === 'retrying');
    expect(first.headers['X-Webhook-Signature']).toBe('sk_s…0000');
    expect(JSON.stringify(first)).not.toContain('sk_sandbox_0000');
    expect(first.headers['User-Agent']).toBe('TaskService-Webhook/1.0');
    expect(first.nextAttemptAt).not.toBeNull();
    expect((await admin(sb, '/deliveries?state=delivered')).body.deliveries).toEqual([]);
    expect((await admin(sb, '/deliveries?state=bogus')).status).toBe(422);

    failing = false;
    const replayed = await admin(sb, `/deliveries/${first.id}/replay`, {});
    expect(replayed.status).toBe(200);
    expect(replayed.body.delivery.state).toBe('delivered');
    expect(replayed.body.delivery.attempts.at(-1)).toMatchObject({ statusCode: 200, replay: true });
    // The receiver got the same payload, signed with the real key.
    const last = receiver.received.at(-1);
    expect(last?.headers['x-webhook-signature']).toBe('sk_sandbox_0000');
    expect(last?.body).toEqual(first.payload);
    const delivered = (await admin(sb, '/deliveries?state=delivered')).body.deliveries;
    expect(delivered.map((d: Json) => d.id)).toContain(first.id);
    expect((await admin(sb, '/deliveries/999/replay', {})).status).toBe(404);
  });

  it('sends a signed test event for the newest task, or a made-up one, marked X-Sandbox-Test', async () => {
    const receiver = await startReceiver();
    const sb = await start({ itemMs: 0 });
    expect((await admin(sb, '/webhook/test', {})).status).toBe(422);
    await admin(sb, '/webhook', { url: receiver.url });
    const synthetic = (await admin(sb, '/webhook/test', {})).body.delivery;
    expect(synthetic).toMatchObject({ test: true, state: 'delivered', event: 'completed', taskId: 0 });
    await createTask(sb, ['a.com', 'b.com']);
    const test = (await admin(sb, '/webhook/test', {})).body.delivery;
    expect(test).toMatchObject({ test: true, state: 'delivered', taskId: 1, attempts: [{ statusCode: 200 }] });
    const got = receiver.received.filter((r) => r.headers['x-sandbox-test'] === '1');
    expect(got).toHaveLength(2);
    expect(got[1]?.body).toMatchObject({ event: 'completed', task: { id: 1, status: 'completed', total_items: 2 } });
    expect(got[1]?.headers['x-webhook-signature']).toBe('sk_sandbox_0000');
  });

  it('streams changes as server-sent events', async () => {
    const sb = await start({ itemMs: 0 });
    const controller = new AbortController();
    const res = await fetch(`${sb.origin}/__sandbox/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const read = async (until: RegExp) => {
      while (!until.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += new TextDecoder().decode(value);
      }
    };
    await read(/event: hello/);
    await admin(sb, '/balance', { balance: 5 });
    await read(/event: change\ndata: \{"topic":"state"\}/);
    await admin(sb, '/faults', { kind: 'status', status: 500, path: '/balance' });
    await read(/"topic":"faults"/);
    controller.abort();
  });
});

describe('sandbox dashboard page', () => {
  it('serves the page and its files from the sandbox, with a strict content policy and no outside URL', async () => {
    const sb = await start();
    expect(sb.dashboard).toBe(`${sb.origin}/`);
    const page = await fetch(sb.dashboard);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((m) => m[1] ?? '');
    expect(assets.sort()).toEqual(['/dashboard/app.css', '/dashboard/app.js', '/dashboard/icon.svg']);
    for (const asset of assets) {
      const res = await fetch(`${sb.origin}${asset}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      // No CDN: the only absolute URLs are the SVG namespace and an example in a placeholder.
      const urls = text.match(/https?:\/\/[^\s"'<)]+/g) ?? [];
      expect(urls.filter((u) => !u.startsWith('http://www.w3.org/2000/svg') && u !== 'http://127.0.0.1:8788/')).toEqual(
        [],
      );
    }
    expect((await fetch(sb.dashboard, { method: 'POST' })).status).toBe(405);
  });

  it('answers the page and the admin API only for a loopback Host with its own port', async () => {
    const sb = await start();
    const { port } = new URL(sb.origin);
    expect((await raw(sb, 'GET', '/', { Host: hostOf(sb) })).status).toBe(200);
    expect((await raw(sb, 'GET', '/__sandbox/state', { Host: `localhost:${port}` })).status).toBe(200);
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, `127.0.0.1`]) {
      const page = await raw(sb, 'GET', '/', { Host: host });
      expect(page.status, host).toBe(403);
      const state = await raw(sb, 'GET', '/__sandbox/state', { Host: host });
      expect(state.status, host).toBe(403);
      expect(state.text).not.toContain('sk_sandbox_0000');
    }
    // The API itself is not the dashboard's: any Host reaches it (a proxy in front may rename it).
    expect((await call(sb, '/balance', { headers: { Host: 'api.example' } })).status).toBe(200);
  });

  it('refuses writes from a foreign Origin; its own origin and no Origin (curl) are fine', async () => {
    const sb = await start();
    const { port } = new URL(sb.origin);
    const json = { 'Content-Type': 'application/json', Host: hostOf(sb) };
    for (const origin of ['http://evil.example', 'null', `http://evil.example:${port}`, `https://127.0.0.1:${port}`]) {
      const res = await raw(sb, 'POST', '/__sandbox/rotate-key', { ...json, Origin: origin }, '{}');
      expect(res.status, origin).toBe(403);
      const faults = await raw(sb, 'POST', '/__sandbox/faults', { ...json, Origin: origin }, '{"kind":"reset-before"}');
      expect(faults.status, origin).toBe(403);
    }
    expect((await call(sb, '/balance')).status).toBe(200);
    expect((await admin(sb, '/faults')).body.faults).toEqual([]);
    const own = await raw(
      sb,
      'POST',
      '/__sandbox/balance',
      { ...json, Origin: `http://localhost:${port}` },
      '{"balance":7}',
    );
    expect(own.status).toBe(200);
    const curl = await raw(sb, 'POST', '/__sandbox/balance', json, '{"balance":8}');
    expect(curl.status).toBe(200);
    let balance: unknown;
    await eventually(async () => ((balance = (await admin(sb, '/state?tasks=false')).body.balance), balance === 8), {
      describe: () => `balance ${String(balance)}`,
    });
  });
});

describe("the page's words for a failed request", () => {
  const logged: unknown[] = [];
  /** The page's `api` and `problem`, run against `fetch` (no browser: the script's own text, in a context of its own). */
  const page = (fetch: () => Promise<Response>) =>
    runInNewContext(`${REQUEST_JS}\n({ api: api, problem: problem })`, {
      fetch,
      console: { error: (e: unknown) => logged.push(e) },
    }) as { api: (path: string) => Promise<unknown>; problem: (e: unknown) => string };
  const failure = async (fetch: () => Promise<Response>) => {
    const { api, problem } = page(fetch);
    try {
      await api('/state');
    } catch (error) {
      return problem(error);
    }
    throw new Error('expected a failure');
  };

  it("shows the sandbox's own message, and words of its own for what the browser or the script would say", async () => {
    const reply = (status: number, body: string) => () => Promise.resolve(new Response(body, { status }));
    expect(
      await failure(reply(422, '{"error":{"code":"validation_error","message":"balance must be a number"}}')),
    ).toBe('balance must be a number');
    expect(await failure(reply(502, '<html>Bad gateway</html>'))).toBe(
      'the sandbox answered HTTP 502 without saying why; its log may tell more',
    );
    // The browser's own text for a refused connection ("Failed to fetch", "NetworkError when ...") is never shown.
    expect(await failure(() => Promise.reject(new TypeError('Failed to fetch')))).toBe(
      'the sandbox did not answer: if it has stopped, start it again and reload this page',
    );
    const bug = new TypeError("Cannot read properties of undefined (reading 'attempts')");
    expect(page(reply(200, '{}')).problem(bug)).toBe(
      'something went wrong in this page; reload it (the browser console has the details)',
    );
    expect(logged).toEqual([bug]);
    // Every note of the page goes through `problem`: its own `e.message` (of a Failure) is the only one.
    expect(PAGE_JS).toContain(REQUEST_JS);
    const raw =
      /(?<![\w.])(?:e|err|error|ex|reason|cause)\.(?:message|stack)\b|String\(\s*(?:e|err|error|ex|reason|cause)\s*\)/g;
    expect(PAGE_JS.match(raw)).toEqual(['e.message']);
  });
});
