/**
 * The local webhook receiver behind `taskctl webhook listen`: verifies each delivery's signature, answers at once, then
 * hands the event on (callback, optional forward to a local app, optional command), each event once.
 *
 * Every correctly signed JSON body is acknowledged with 200, whatever its shape: a 400 would make the service retry a
 * delivery that can never change, then drop it. A shape that is not the spec's is handed on as received, with a warning.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEventSchema } from '../api/schemas.js';
import type { WebhookEvent } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import type { Env } from '../output/io.js';
import { createRedactor } from '../output/redact.js';
import { systemClock } from '../core/time.js';
import type { Clock } from '../core/time.js';
import { RecentKeys } from './dedupe.js';
import { runExec } from './exec.js';
import { forwardEvent } from './forward.js';
import { SerialQueue } from './serial-queue.js';
import { SIGNATURE_HEADER, signatureMatches } from './signature.js';
import { checkTargetUrl } from './target-url.js';

const DEFAULT_LISTEN_PORT = 8788;
const DEFAULT_LISTEN_HOST = '127.0.0.1';
/** Largest body accepted; real events are a few hundred bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Deliveries remembered for de-duplication. */
const DEDUPE_CAPACITY = 10_000;
/** Commands waiting to run beyond this are dropped (and logged) rather than piling up without bound. */
const EXEC_QUEUE_LIMIT = 1_000;

export interface WebhookListenerOptions {
  /** Default 8788; 0 picks a free port (see `url`). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Path deliveries are accepted on; default '/'. */
  path?: string;
  /** The account's API key: the value X-Webhook-Signature must carry. */
  apiKey: string;
  /** Called once per (task id, event) (or per distinct body when it names neither), after the 200 has been sent; a
   * throw or rejection is logged. */
  onEvent: (received: ReceivedEvent, raw: string) => void | Promise<void>;
  /** Re-POST each verified body here (https, or http on loopback; checked at start). */
  forwardTo?: string | undefined;
  /** Shell command run per event, one at a time, with the event JSON on stdin. */
  exec?: string | undefined;
  /** Status lines (for stderr). Never contain the signature or the key. */
  log?: (line: string) => void;
  /** For the durations in log lines; default the system clock. */
  clock?: Clock;
  /** Environment for `exec` commands; default process.env. */
  env?: Env;
}

/** One accepted delivery. */
export interface ReceivedEvent {
  /** The body as parsed JSON, every field kept. */
  body: unknown;
  /** The body read as the spec's event (unknown fields dropped); undefined when its shape is not the spec's. */
  event: WebhookEvent | undefined;
  /** The first way the shape differs from the spec's (`task.platform: ...`); undefined when it is the spec's. */
  problem: string | undefined;
  /** The event name and the task id, when the body carries them, whatever else it lacks. */
  name: string | undefined;
  taskId: string | undefined;
}

export interface WebhookListener {
  /** `http://host:port/path`, with the real port when 0 was asked for. */
  url: string;
  /** Stops accepting, then waits for events already accepted to be handed on (callbacks, forwards, commands). */
  close: () => Promise<void>;
}

export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const { apiKey } = options;
  if (apiKey.length === 0)
    throw new UsageError('no API key to verify webhook signatures with', 'Run `taskctl auth login` first.');
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const path = options.path ?? '/';
  if (!path.startsWith('/')) throw new UsageError(`--path "${path}" must start with /`);
  const forwardTo = options.forwardTo === undefined ? undefined : checkTargetUrl(options.forwardTo, '--forward-to');
  const clock = options.clock ?? systemClock;
  const env = options.env ?? process.env;
  // Every line goes through the redactor too, so even a bug that interpolated the key could not print it.
  const redact = createRedactor([apiKey]);
  const log = (line: string): void => options.log?.(redact(line));
  const logError = (error: unknown): void => log(`error: ${error instanceof Error ? error.message : String(error)}`);

  const seen = new RecentKeys(DEDUPE_CAPACITY);
  const handlers = new SerialQueue(logError);
  const forwards = new SerialQueue(logError);
  const commands = new SerialQueue(logError, EXEC_QUEUE_LIMIT);

  const dispatch = (received: ReceivedEvent, raw: string, userAgent: string | undefined): void => {
    const { name, taskId } = received;
    handlers.push(() => options.onEvent(received, raw));
    if (forwardTo)
      forwards.push(() =>
        forwardEvent({ to: forwardTo, name, taskId, raw, userAgent, apiKey, log, now: () => clock.now() }),
      );
    if (options.exec !== undefined) {
      const command = options.exec;
      const queued = commands.push(() => runExec(command, { name, taskId }, raw, env, log));
      if (!queued) log(`exec skipped for ${describeEvent(name, taskId)}: ${EXEC_QUEUE_LIMIT} commands already waiting`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = clock.now();
    const done = (status: number, body: object, note: string, headers: Record<string, string> = {}): void => {
      reply(res, status, body, headers);
      log(`${req.method ?? '?'} ${pathOf(req)} → ${status} ${note} (${Math.round(clock.now() - started)}ms)`);
    };

    if (pathOf(req) !== path) {
      done(404, { ok: false, error: 'not found' }, 'wrong path');
      return;
    }
    if (req.method !== 'POST') {
      done(405, { ok: false, error: 'method not allowed' }, 'only POST', { Allow: 'POST' });
      return;
    }
    // Verified before a byte of the body is read: an unsigned sender costs us nothing.
    const presented = req.headers[SIGNATURE_HEADER];
    if (typeof presented !== 'string' || !signatureMatches(presented, apiKey)) {
      const why =
        typeof presented === 'string' ? 'signature does not match the API key' : 'no X-Webhook-Signature header';
      done(401, { ok: false, error: 'invalid signature' }, why);
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      done(413, { ok: false, error: 'body too large' }, `body of ${declared} bytes`);
      return;
    }
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined) {
      done(413, { ok: false, error: 'body too large' }, `body over ${MAX_BODY_BYTES} bytes`);
      return;
    }

    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      done(400, { ok: false, error: 'body is not JSON' }, 'body is not JSON');
      return;
    }
    const received = readEvent(json);
    const { name, taskId } = received;
    const key =
      name !== undefined && taskId !== undefined
        ? `${taskId}:${name}`
        : `body:${createHash('sha256').update(raw).digest('hex')}`;
    const fresh = seen.add(key);
    // Answer first: the service wants a 200 within 30 s, and a slow handler or command must never delay it.
    done(200, { ok: true }, `${describeEvent(name, taskId)}${fresh ? '' : ' (repeat delivery; already handled)'}`);
    if (fresh && received.problem !== undefined)
      log(
        `warning: ${describeEvent(name, taskId)} is not the spec's event shape (${received.problem}); passed on as received`,
      );
    if (fresh) dispatch(received, raw, headerValue(req.headers['user-agent']));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logError(error);
      if (!res.headersSent) reply(res, 500, { ok: false, error: 'internal error' });
    });
  });
  // A sender that trickles its body cannot hold a connection open forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_LISTEN_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', logError);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await Promise.all([handlers.idle(), forwards.idle(), commands.idle()]);
      })();
      return closing;
    },
  };
}

/** The body as the spec's event when it is one; otherwise what it says about itself, and what is off. */
function readEvent(body: unknown): ReceivedEvent {
  const parsed = WebhookEventSchema.safeParse(body);
  const record = isRecord(body) ? body : {};
  const task = isRecord(record.task) ? record.task : {};
  const name = typeof record.event === 'string' ? record.event : undefined;
  const taskId = typeof task.id === 'number' || typeof task.id === 'string' ? String(task.id) : undefined;
  if (parsed.success) return { body, event: parsed.data, problem: undefined, name, taskId };
  const issue = parsed.error.issues[0];
  const problem = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unexpected shape';
  return { body, event: undefined, problem, name, taskId };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `completed task 7`, or what is known of it. */
function describeEvent(name: string | undefined, taskId: string | undefined): string {
  return `${clip(name ?? 'event')} task ${clip(taskId ?? '(no id)')}`;
}

/** Sender-chosen text in a log line: one line, bounded (the printer neutralises what remains). */
function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://listener').pathname;
  } catch {
    return '?';
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function reply(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const extra: Record<string, string> = { ...headers };
  // Error answers may leave a body unread: close the connection rather than read what we refused.
  if (status !== 200) extra.Connection = 'close';
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
    ...extra,
  });
  res.end(text);
}

/** The body as UTF-8, or undefined once it passes `limit` bytes (reading stops there). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}
