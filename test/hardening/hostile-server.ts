/**
 * A hostile service for the hardening matrix (test/README.md, rows H1–H12): a node:http server on 127.0.0.1, port 0,
 * whose behaviour is the first segment of the base URL, so one server plays every part at once:
 * `${server.baseUrl('drip')}` is `http://127.0.0.1:PORT/drip/api/v1`. Every timer and socket ends with `close()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { task } from './task-json.js';

export type HostileMode =
  /** Headers at once, then one byte of JSON whitespace every `dripMs` forever (never idle long enough to time out). */
  | 'drip'
  /** An endless chunked body, as fast as the client reads. */
  | 'flood-chunked'
  /** `Content-Length: 1 GiB`, and the bytes to go with it. */
  | 'flood-length'
  /** Valid JSON nested 1,000,000 deep (in `data`, or in an item's `data` for GET /tasks/:id). */
  | 'nest'
  /**
   * Valid JSON 9 MB wide: 3,000,000 empty objects in one value (in the balance's `data`, or in the one item's `data` of
   * GET /tasks/:id), more objects than any answer of the API holds.
   */
  | 'wide'
  /** GET /tasks: fresh ids on every page, and `total_pages` always one more than the page asked for. */
  | 'pages-growing'
  /** GET /tasks: the same ids on every page of a claimed 1,000. */
  | 'pages-repeating'
  /** Every request: 409 with an error code the client does not know. */
  | 'conflict'
  /** Escape sequences (OSC 52, ESC[2J, C1 CSI) in a header value and an error message: HTTP 500. */
  | 'escapes'
  /** The connection is closed half-way through a JSON body (after the headers, before Content-Length is reached). */
  | 'cut'
  /** HTTP 200 with a bare JSON string for every endpoint: valid JSON, no API shape. */
  | 'odd'
  /** 404 not_found for every request, the way a real server answers an unknown task id. */
  | 'missing'
  /** Every request: 502 with an HTML page (a gateway in front of a service that is down). */
  | 'bad-gateway'
  /**
   * A proxy that compresses unasked: 200, the balance gzipped, `Content-Encoding: gzip` and a C1 CSI (a latin1 byte
   * HTTP allows in a header value).
   */
  | 'gzip'
  /** Every request: 429 `rate_limited` with `Retry-After: 1`. */
  | 'limited'
  /** Every request: 302 to the same path (a redirect loop). */
  | 'redirect-loop'
  /** Headers never finish: the status line, then one header byte every `dripMs`. */
  | 'slow-headers'
  /**
   * ~60 MiB: GET /tasks/1 with 1,000 items (`longItems`) whose data holds a 60,000-character Latin string; pages of
   * such tasks.
   */
  | 'long-strings'
  /** The same in CJK text (3 bytes in UTF-8, 2 in V8's strings): ~60 MiB. */
  | 'non-latin'
  /** ~60 MiB: GET /tasks/1 with 1,000,000 tiny items. */
  | 'tiny-items'
  /** A task id beyond 2^53 (not exact in a double) and a string id "7", in GET /tasks/:id and GET /tasks. */
  | 'odd-ids'
  /** Answers once (GET /tasks/1 processing, or page 1 of one task), then only 502s. */
  | 'down-later'
  /** GET /tasks/:id answered with the budget spent: `X-RateLimit-Reset` in epoch milliseconds, 5 s ahead. */
  | 'reset-ms';

export interface HostileServer {
  origin: string;
  /** The base URL (with /api/v1) that selects `mode`. */
  baseUrl: (mode: HostileMode) => string;
  /** Requests received per mode, e.g. `counts.get('pages-growing')`. */
  readonly counts: Map<string, number>;
  close: () => Promise<void>;
}

const GIB = 1024 ** 3;

/**
 * Big bodies are built once per server (each about 60 MiB, under the client's 64 MiB cap; `longItems` fewer long
 * strings make a smaller one, still past the 1 MiB from which answers are parsed as they stream).
 */
function bigTaskBody(kind: 'long-strings' | 'non-latin' | 'tiny-items', longItems: number): string {
  const total = kind === 'tiny-items' ? 1_000_000 : longItems;
  // Ends `"items":[`: the items follow, then `]}}`.
  const head = JSON.stringify({ success: true, data: { ...task(1, { total_items: total }), items: [] } }).slice(0, -3);
  const parts: string[] = [];
  if (kind === 'tiny-items') {
    for (let i = 0; i < 1_000_000; i++) parts.push(`{"target":"d${i}.io","status":"completed","data":{"ok":1}}`);
  } else {
    // CJK: 20,000 characters of 3 UTF-8 bytes each, the same 60,000 bytes as the Latin string.
    const text = kind === 'non-latin' ? '漢'.repeat(20_000) : 'x'.repeat(60_000);
    for (let i = 0; i < longItems; i++)
      parts.push(`{"target":"d${i}.io","status":"completed","data":{"text":"${text}"}}`);
  }
  return `${head}${parts.join(',')}]}}`;
}

/** A page of 100 tasks, each with a 500 KiB error_message (about 50 MiB): `list --all` over long fields. */
function bigPageBody(page: number, pages: number): string {
  const message = 'x'.repeat(500 * 1024);
  const tasks = Array.from({ length: 100 }, (_, i) => task((page - 1) * 100 + i + 1, { error_message: message }));
  return JSON.stringify({
    success: true,
    data: tasks,
    meta: { current_page: page, total_pages: pages, total_count: pages * 100, per_page: 100 },
  });
}
const DEEP = 1_000_000;
const WIDE = 3_000_000;
const RATE_HEADERS = { 'X-RateLimit-Limit': '100000', 'X-RateLimit-Remaining': '99999', 'X-RateLimit-Reset': '60' };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...RATE_HEADERS,
    ...headers,
  });
  res.end(text);
}

/** Writes `chunk` until the client goes away or `limit` bytes were sent, waiting for 'drain' as a polite flood does. */
function flood(res: ServerResponse, chunk: Buffer, limit = Number.POSITIVE_INFINITY): void {
  let sent = 0;
  const pump = (): void => {
    while (!res.destroyed && sent < limit) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('error', () => {});
  pump();
}

export async function hostileServer(options: { dripMs?: number; longItems?: number } = {}): Promise<HostileServer> {
  const dripMs = options.dripMs ?? 200;
  const longItems = options.longItems ?? 1000;
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const bodies = new Map<string, string>();
  const cached = (key: string, make: () => string): string => {
    let body = bodies.get(key);
    if (body === undefined) bodies.set(key, (body = make()));
    return body;
  };
  const answered = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, mode = '', ...rest] = url.pathname.split('/');
    const path = `/${rest.join('/')}`.replace(/^\/api\/v1/, '');
    counts.set(mode, (counts.get(mode) ?? 0) + 1);
    const page = Number(url.searchParams.get('page') ?? '1');
    const perPage = Number(url.searchParams.get('per_page') ?? '25');
    switch (mode) {
      case 'drip': {
        res.writeHead(200, { 'Content-Type': 'application/json', ...RATE_HEADERS });
        res.write('{"success":true,');
        const timer = setInterval(() => res.write(' '), dripMs);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'flood-chunked':
        res.writeHead(200, { 'Content-Type': 'application/json', ...RATE_HEADERS });
        res.write('{"success":true,"data":"');
        // Written 1 MiB at a time: the body's endless size is the subject, not the number of writes that send it (at
        // 64 KiB, the 1,024 writes and drains the client's 64 MiB cap takes cost this process more CPU).
        flood(res, Buffer.alloc(1024 * 1024, 'a'));
        return;
      case 'flood-length':
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(GIB), ...RATE_HEADERS });
        flood(res, Buffer.alloc(64 * 1024, ' '), GIB);
        return;
      case 'nest': {
        const deep = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
        if (/^\/tasks\/\d+$/.test(path)) {
          const item = `{"target":"a.com","status":"completed","data":{"x":${deep}},"error":null}`;
          const taskJson = JSON.stringify(task(1)).slice(0, -1);
          send(res, 200, `{"success":true,"data":${taskJson},"items":[${item}]}}`);
        } else {
          send(res, 200, `{"success":true,"data":${deep}}`);
        }
        return;
      }
      case 'wide': {
        const wide = cached('wide', () => `[${'{},'.repeat(WIDE - 1)}{}]`);
        if (/^\/tasks\/\d+$/.test(path)) {
          const taskJson = JSON.stringify(task(1)).slice(0, -1);
          const item = `{"target":"a.com","status":"completed","data":{"x":${wide}},"error":null}`;
          send(res, 200, `{"success":true,"data":${taskJson},"items":[${item}]}}`);
        } else {
          send(res, 200, `{"success":true,"data":{"balance":5,"currency":"coins","extra":${wide}}}`);
        }
        return;
      }
      case 'pages-growing': {
        const tasks = Array.from({ length: perPage }, (_, i) => task(page * 1000 + i));
        const meta = {
          current_page: page,
          per_page: perPage,
          total_count: (page + 1) * perPage,
          total_pages: page + 1,
        };
        send(res, 200, { success: true, data: tasks, meta });
        return;
      }
      case 'pages-repeating': {
        const tasks = Array.from({ length: perPage }, (_, i) => task(i + 1));
        const meta = { current_page: page, per_page: perPage, total_count: 1000 * perPage, total_pages: 1000 };
        send(res, 200, { success: true, data: tasks, meta });
        return;
      }
      case 'conflict':
        send(res, 409, { success: false, error: { code: 'conflict', message: 'the task is locked by another job' } });
        return;
      case 'escapes':
        send(
          res,
          500,
          { success: false, error: { code: 'internal_error', message: 'boom \u001b]52;c;cHduZWQ=\u0007\u001b[2J' } },
          { 'X-RateLimit-Reset': '60\u009b31m' },
        );
        return;
      case 'cut': {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '200', ...RATE_HEADERS });
        res.write('{"success":true,"data":{"bal');
        setImmediate(() => res.destroy());
        return;
      }
      case 'odd':
        send(res, 200, '"ok"');
        return;
      case 'missing':
        send(res, 404, { success: false, error: { code: 'not_found', message: 'Task not found' } });
        return;
      case 'bad-gateway':
        res.writeHead(502, { 'Content-Type': 'text/html', ...RATE_HEADERS });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
        return;
      case 'gzip': {
        const body = gzipSync(JSON.stringify({ success: true, data: { balance: 1, currency: 'coins' } }));
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip\u009b31m',
          'Content-Length': String(body.length),
          ...RATE_HEADERS,
        });
        res.end(body);
        return;
      }
      case 'limited':
        send(
          res,
          429,
          { success: false, error: { code: 'rate_limited', message: 'Too many requests' } },
          { 'Retry-After': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1' },
        );
        return;
      case 'redirect-loop':
        res.writeHead(302, { Location: req.url ?? '/', ...RATE_HEADERS });
        res.end();
        return;
      case 'slow-headers': {
        const socket = res.socket;
        if (!socket) return;
        socket.write('HTTP/1.1 200 OK\r\nX-Slow: ');
        const timer = setInterval(() => socket.write('a'), dripMs);
        timers.add(timer);
        socket.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'long-strings':
      case 'non-latin':
      case 'tiny-items': {
        if (path === '/tasks' && mode === 'long-strings') {
          send(
            res,
            200,
            cached(`page${page}`, () => bigPageBody(page, 3)),
          );
          return;
        }
        if (path === '/tasks') {
          const one = { ...task(1), status: 'completed' };
          send(res, 200, {
            success: true,
            data: [one],
            meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 },
          });
          return;
        }
        send(
          res,
          200,
          cached(mode, () => bigTaskBody(mode, longItems)),
        );
        return;
      }
      case 'odd-ids': {
        const big = '9007199254740993';
        if (/^\/tasks\/7$/.test(path)) {
          send(res, 200, `{"success":true,"data":${JSON.stringify({ ...task(7), id: '7', items: [] })}}`);
        } else if (/^\/tasks\/\d+$/.test(path)) {
          send(
            res,
            200,
            `{"success":true,"data":${JSON.stringify({ ...task(1), items: [] }).replace('"id":1', `"id":${big}`)}}`,
          );
        } else {
          const data = `[${JSON.stringify(task(1)).replace('"id":1', `"id":${big}`)}]`;
          send(
            res,
            200,
            `{"success":true,"data":${data},"meta":{"current_page":1,"total_pages":1,"total_count":1,"per_page":25}}`,
          );
        }
        return;
      }
      case 'reset-ms': {
        const id = Number(/^\/tasks\/(\d+)$/.exec(path)?.[1] ?? '1');
        send(
          res,
          200,
          { success: true, data: { ...task(id), items: [] } },
          { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Date.now() + 5000) },
        );
        return;
      }
      case 'down-later': {
        const key = path.startsWith('/tasks/') ? 'get' : 'list';
        if (!answered.has(key)) {
          answered.add(key);
          if (key === 'get')
            send(res, 200, { success: true, data: { ...task(1), status: 'processing', completed_at: null } });
          else
            send(res, 200, {
              success: true,
              data: [{ ...task(1), status: 'processing', completed_at: null }],
              meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 },
            });
          return;
        }
        res.writeHead(502, { 'Content-Type': 'text/html', ...RATE_HEADERS });
        res.end('<html>502</html>');
        return;
      }
      default:
        send(res, 404, { success: false, error: { code: 'not_found', message: `unknown mode ${mode}` } });
    }
  };

  const server = createServer(handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: (mode) => `${origin}/${mode}/api/v1`,
    counts,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
