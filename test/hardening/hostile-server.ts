/**
 * A hostile service for the hardening matrix (test/README.md, rows H1–H12): a node:http server on 127.0.0.1, port 0,
 * whose behaviour is the first segment of the base URL, so one server plays every part at once:
 * `${server.baseUrl('drip')}` is `http://127.0.0.1:PORT/drip/api/v1`. Every timer and socket ends with `close()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BIN, runProcess, type CliResult } from '../e2e/harness.js';
import { task } from './helpers.js';

export type HostileMode =
  /** Headers at once, then one byte of JSON whitespace every `dripMs` forever (never idle long enough to time out). */
  | 'drip'
  /** An endless chunked body, as fast as the client reads. */
  | 'flood-chunked'
  /** `Content-Length: 1 GiB`, and the bytes to go with it. */
  | 'flood-length'
  /** Valid JSON nested 1,000,000 deep (in `data`, or in an item's `data` for GET /tasks/:id). */
  | 'nest'
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
  | 'missing';

export interface HostileServer {
  origin: string;
  /** The base URL (with /api/v1) that selects `mode`. */
  baseUrl: (mode: HostileMode) => string;
  /** Requests received per mode, e.g. `counts.get('pages-growing')`. */
  readonly counts: Map<string, number>;
  close: () => Promise<void>;
}

const GIB = 1024 ** 3;
const DEEP = 1_000_000;
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

export async function hostileServer(options: { dripMs?: number } = {}): Promise<HostileServer> {
  const dripMs = options.dripMs ?? 200;
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
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
        flood(res, Buffer.alloc(64 * 1024, 'a'));
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

/** The bin under `/usr/bin/time`: its result, wall time and peak RSS in MB (NaN when /usr/bin/time is missing). */
export async function runMeasured(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CliResult & { ms: number; rssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-rss-'));
  const rssFile = join(dir, 'rss');
  const started = performance.now();
  try {
    const result = await runProcess('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env },
      timeoutMs,
      label: `taskctl ${args.join(' ')}`,
    });
    const ms = performance.now() - started;
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    const kb = Number(lines[lines.length - 1]);
    // /usr/bin/time reports a non-zero exit on its first line ("Command exited with non-zero status 8").
    return { ...result, ms, rssMb: kb / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
