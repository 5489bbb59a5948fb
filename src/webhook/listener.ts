/**
 * The local webhook receiver behind `taskctl webhook listen`. It never loses an event it acknowledged:
 *
 * - the 200 is sent only once the event is handled: printed, forwarded to the app and accepted there (2xx) when
 *   `forwardTo` is set, given a place in the exec queue when `exec` is set, and on disk when `spool` is set; otherwise
 *   the service gets 502 (forward failed) or 503 (queue full, too many bodies at once, stdout not being read), does not
 *   count the delivery, and retries it later;
 * - an event is marked as seen only when acknowledged, so the service's retry of a delivery that failed here is handled;
 *   a repeat of an acknowledged one is printed as a duplicate and not handed on again (unless `dedupe` is off);
 * - memory is bounded: a body cap, a cap on bodies held at once, a queue bounded in events and bytes, a bounded
 *   duplicate filter, and stdout back-pressure.
 *
 * Every correctly signed JSON body is accepted whatever its shape (a 400 would make the service retry a delivery that
 * can never change, then drop it); a shape that is not the spec's is handed on as received, with a warning.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEventSchema } from '../api/schemas.js';
import type { WebhookEvent } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import type { Env } from '../output/io.js';
import { createRedactor } from '../lib/redact.js';
import { systemClock } from '../lib/time.js';
import type { Clock } from '../lib/time.js';
import { collectAfterTraffic } from './collect.js';
import { DEDUPE_WINDOW_MS, RecentKeys } from './dedupe.js';
import { runExec } from './exec.js';
import { ExecQueue } from './exec-queue.js';
import type { ExecJob, Reservation } from './exec-queue.js';
import { forwardEvent } from './forward.js';
import { SIGNATURE_HEADER, signatureMatches } from './signature.js';
import { Spool } from './spool.js';
import { checkTargetUrl } from './target-url.js';
import { listenOn } from '../net/listen.js';

const DEFAULT_LISTEN_PORT = 8788;
const DEFAULT_LISTEN_HOST = '127.0.0.1';
/** Largest body accepted by default; real events are a few hundred bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Default `--queue`: events waiting for (or running) their command. */
export const DEFAULT_QUEUE = 100;
/** Deliveries held at once (being read or forwarded): beyond it a delivery gets 503 before it is read. */
export const MAX_BODIES_AT_ONCE = 64;
/**
 * Bytes of the deliveries held at once (by Content-Length, or `maxBody` when not declared): a burst of 1 MiB bodies is
 * taken 2 at a time, however many small ones may be in hand.
 */
const HELD_MAX_BYTES = 2 * 1024 * 1024;
/** Bytes of bodies the exec queue holds at most, whatever `--queue` says. */
const QUEUE_MAX_BYTES = 8 * 1024 * 1024;

export interface WebhookListenerOptions {
  /** Default 8788; 0 picks a free port (see `url`). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Path deliveries are accepted on; default '/'. */
  path?: string;
  /** The account's API key: the value X-Webhook-Signature must carry. */
  apiKey: string;
  /**
   * Prints an event, synchronously, before it is acknowledged: once per event, and again for each repeat delivery
   * with `duplicate` set (not handed on then). A throw is a 500 for that delivery (not acknowledged). Returns true when
   * the event was printed where the delivery's status line would be read too (a terminal): that line is then left out,
   * so a person sees each event once.
   */
  onEvent: (received: ReceivedEvent, note: { duplicate: boolean }) => unknown;
  /** False while output cannot be written (stdout not read): deliveries get 503 until it drains. Default: always. */
  canPrint?: () => boolean;
  /** Re-POST each verified body here (https, or http on loopback; checked at start); 200 only after its 2xx. */
  forwardTo?: string | undefined;
  /** Forward timeout; default 25 s (below the service's 30 s). */
  forwardTimeoutMs?: number;
  /** Shell command run per event, with the event JSON on stdin. */
  exec?: string | undefined;
  /** Commands running at once; default 1 (one at a time, in arrival order). */
  execConcurrency?: number;
  /** Events waiting for or running their command, at most; default 100. A full queue answers 503. */
  queue?: number;
  /** Largest body; default 1 MiB (413 beyond). */
  maxBody?: number;
  /** Deliveries held at once; default 64 (503 beyond), and at most 2 MiB of them. */
  maxBodiesAtOnce?: number;
  /** Repeats of an acknowledged event are not handed on again; default true. */
  dedupe?: boolean;
  /** File that makes acknowledged events durable (see spool.ts); replayed at start. */
  spool?: string | undefined;
  /** Status lines (for stderr). Never contain the signature or the key. */
  log?: (line: string) => void;
  /** For durations in log lines and the duplicate window; default the system clock. */
  clock?: Clock;
  /** Environment for `exec` commands; default process.env. */
  env?: Env;
}

/** One accepted delivery. */
export interface ReceivedEvent {
  /** The body as parsed JSON, every field kept (parsed when first read). */
  readonly body: unknown;
  /** The body exactly as received. */
  raw: string;
  /** The body read as the spec's event (unknown fields dropped); undefined when its shape is not the spec's. */
  event: WebhookEvent | undefined;
  /** The first way the shape differs from the spec's (`task.platform: ...`); undefined when it is the spec's. */
  problem: string | undefined;
  /** The event name and the task id, when the body carries them, whatever else it lacks. */
  name: string | undefined;
  taskId: string | undefined;
  /** True for an event built by `--catch-up` (the envelope's `"synthesised": true`). */
  synthesised: boolean;
}

/** What happened to one delivery: the HTTP status it got and why. */
export interface Outcome {
  status: number;
  note: string;
  /** `onEvent` printed it and said it is on the same screen as the log: no status line for it. */
  shown?: boolean;
}

export interface ListenerCounts {
  /** Events acknowledged and handed on (printed, forwarded, queued). */
  acknowledged: number;
  /** Repeats of acknowledged events (printed as duplicates). */
  duplicates: number;
  /** Deliveries refused with 502/503 (the service retries them). */
  refused: number;
  /** Commands that finished. */
  executed: number;
}

export interface WebhookListener {
  /** `http://host:port/path`, with the real port when 0 was asked for. */
  url: string;
  /** Handles a body as if delivered (catch-up's synthesised events): the same printing, forwarding, queue and filter. */
  inject: (raw: string) => Promise<Outcome>;
  /** Events replayed from the spool at start (their commands queued again). */
  replayed: number;
  counts: () => ListenerCounts;
  /** Stops accepting (new deliveries get 503), lets deliveries in progress finish, then runs the queue to its end. */
  close: () => Promise<void>;
  /** Gives up the queue now: commands running are stopped; returns the events whose command did not run or finish. */
  abandon: () => Promise<ExecJob[]>;
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
  const now = (): number => clock.now();
  const env = options.env ?? process.env;
  const maxBody = options.maxBody ?? MAX_BODY_BYTES;
  const maxBodies = options.maxBodiesAtOnce ?? MAX_BODIES_AT_ONCE;
  const dedupe = options.dedupe ?? true;
  const canPrint = options.canPrint ?? (() => true);
  // Every line goes through the redactor too, so even a bug that interpolated the key could not print it.
  const redact = createRedactor([apiKey]);
  const log = (line: string): void => options.log?.(redact(line));
  const logError = (error: unknown): void => log(`error: ${error instanceof Error ? error.message : String(error)}`);

  const counts: ListenerCounts = { acknowledged: 0, duplicates: 0, refused: 0, executed: 0 };
  const seen = new RecentKeys(now);
  /** Deliveries being handled, by key: a repeat arriving meanwhile waits for the first one's outcome. */
  const inFlight = new Map<string, Promise<boolean>>();
  let spool: Spool | undefined;
  const command = options.exec;
  const queue =
    command === undefined
      ? undefined
      : new ExecQueue({
          limit: options.queue ?? DEFAULT_QUEUE,
          maxBytes: QUEUE_MAX_BYTES,
          concurrency: options.execConcurrency ?? 1,
          run: (job, stop) => runExec(command, { name: job.name, taskId: job.taskId }, job.raw, env, log, stop),
          onDone: (job) => {
            counts.executed++;
            if (job.spoolId !== undefined) spool?.done(job.spoolId);
          },
        });

  let replayed = 0;
  if (options.spool !== undefined) {
    const opened = await Spool.open(
      options.spool,
      () => now() - DEDUPE_WINDOW_MS,
      () => seen.entries(),
    );
    spool = opened.spool;
    for (const [key, at] of opened.seen) seen.add(key, at);
    for (const job of opened.pending) {
      if (!queue) break;
      // Acknowledged before a stop or a crash and not run to its end: they run first, beyond the limit if need be.
      queue.push(job);
      replayed++;
    }
    if (replayed > 0) log(`spool: running the commands of ${replayed} acknowledged event(s) left from the last run`);
  }

  /** The one path every event takes, delivered or synthesised. */
  /**
   * The event as printed. Its body is parsed again from `raw` only if the printer reads it (the JSON formats print
   * `raw` itself), so a big body is not held parsed during a forward, nor parsed twice for nothing.
   */
  const print = (raw: string, meta: EventMeta, duplicate: boolean): boolean => {
    let parsed: { value: unknown } | undefined;
    const received = Object.defineProperty({ ...meta, raw }, 'body', {
      enumerable: true,
      get: (): unknown => (parsed ??= { value: JSON.parse(raw) as unknown }).value,
    }) as ReceivedEvent;
    return options.onEvent(received, { duplicate }) === true;
  };

  const handleEvent = async (raw: string, received: EventMeta, userAgent: string | undefined): Promise<Outcome> => {
    const { name, taskId } = received;
    const label = describeEvent(name, taskId);
    const key =
      name !== undefined && taskId !== undefined
        ? `${taskId}:${name}`
        : `body:${createHash('sha256').update(raw).digest('hex')}`;
    if (dedupe) {
      const earlier = inFlight.get(key);
      // The same event is being handled right now (a replay racing a retry): its outcome decides.
      if (earlier && (await earlier.catch(() => false))) return duplicate(raw, received, label);
      if (seen.has(key)) return duplicate(raw, received, label);
    }
    if (!canPrint()) return refuse(503, 'output is not being read (stdout is full); the service will retry');
    if (dedupe && seen.isFull()) return refuse(503, 'the duplicate filter is full; the service will retry');
    let place: Reservation | undefined;
    if (queue) {
      place = queue.reserve(Buffer.byteLength(raw));
      if (!place) return refuse(503, `the exec queue is full (${queue.size} events); the service will retry`);
    }
    let shown = false;
    const attempt = (async (): Promise<boolean> => {
      try {
        if (forwardTo) {
          const forwarded = await forwardEvent({
            to: forwardTo,
            label,
            raw,
            userAgent,
            apiKey,
            log,
            now,
            ...(options.forwardTimeoutMs === undefined ? {} : { timeoutMs: options.forwardTimeoutMs }),
          });
          if (!forwarded) return false;
        }
        const at = now();
        const job: ExecJob = { label, name, taskId, raw };
        if (spool) {
          if (place) job.spoolId = await spool.addJob(job, key, at);
          else await spool.addSeen(key, at);
        }
        shown = print(raw, received, false);
        if (dedupe) seen.add(key, at);
        place?.commit(job);
        place = undefined;
        return true;
      } finally {
        place?.release();
      }
    })();
    if (dedupe) inFlight.set(key, attempt);
    let ok: boolean;
    try {
      ok = await attempt;
    } catch (error) {
      logError(error);
      counts.refused++;
      return { status: 500, note: `${label}: not handled (${(error as Error).message})` };
    } finally {
      if (inFlight.get(key) === attempt) inFlight.delete(key);
    }
    if (!ok) return refuse(502, `${label}: the app did not accept it; the service will retry`);
    counts.acknowledged++;
    // A synthesised event leaves out what the API did not say: that is by design, not worth a warning.
    if (received.problem !== undefined && !received.synthesised)
      log(`warning: ${label} is not the spec's event shape (${received.problem}); passed on as received`);
    return { status: 200, note: `${label}${received.synthesised ? ' (synthesised)' : ''}`, shown };
  };

  const duplicate = (raw: string, received: EventMeta, label: string): Outcome => {
    const shown = print(raw, received, true);
    counts.duplicates++;
    return { status: 200, note: `${label} (duplicate; already handled, not handed on again)`, shown };
  };
  const refuse = (status: number, note: string): Outcome => {
    counts.refused++;
    return { status, note };
  };

  const handled = collectAfterTraffic();
  let closing = false;
  let bodies = 0;
  let heldBytes = 0;
  let active = 0;
  let settleActive: (() => void) | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = now();
    const done = (
      status: number,
      body: object,
      note: string,
      headers: Record<string, string> = {},
      shown = false,
    ): void => {
      reply(res, status, body, headers);
      // The event's own line already says it on this screen.
      if (!shown) log(`${req.method ?? '?'} ${pathOf(req)} → ${status} ${note} (${Math.round(now() - started)}ms)`);
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
    const busy = { 'Retry-After': '1' };
    if (closing) {
      done(503, { ok: false, error: 'shutting down' }, 'stopping; the service will retry', busy);
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      done(413, { ok: false, error: 'body too large' }, `body of ${declared} bytes`);
      return;
    }
    const weight = Number.isFinite(declared) && declared >= 0 ? declared : maxBody;
    if (bodies >= maxBodies || (bodies > 0 && heldBytes + weight > HELD_MAX_BYTES)) {
      counts.refused++;
      // Node reads a refused body to its end and drops it: garbage all the same.
      handled(weight);
      done(503, { ok: false, error: 'busy' }, `${bodies} deliveries in progress; the service will retry`, busy);
      return;
    }
    bodies++;
    heldBytes += weight;
    try {
      const raw = await readBody(req, maxBody);
      if (raw === undefined) {
        done(413, { ok: false, error: 'body too large' }, `body over ${maxBody} bytes`);
        return;
      }
      const meta = metaOf(raw);
      if (!meta) {
        done(400, { ok: false, error: 'body is not JSON' }, 'body is not JSON');
        return;
      }
      const outcome = await handleEvent(raw, meta, headerValue(req.headers['user-agent']));
      const ok = outcome.status === 200;
      const answer = ok ? { ok: true } : { ok: false, error: outcome.note };
      done(outcome.status, answer, outcome.note, ok ? {} : busy, outcome.shown === true);
    } finally {
      bodies--;
      heldBytes -= weight;
      handled(weight);
    }
  };

  const server = createServer((req, res) => {
    active++;
    handle(req, res)
      .catch((error: unknown) => {
        logError(error);
        if (!res.headersSent) reply(res, 500, { ok: false, error: 'internal error' });
      })
      .finally(() => {
        active--;
        if (active === 0) settleActive?.();
      });
  });
  // A sender that trickles its body cannot hold a connection open forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  await listenOn(server, options.port ?? DEFAULT_LISTEN_PORT, host);
  server.on('error', logError);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;

  const requestsDone = (): Promise<void> =>
    active === 0 ? Promise.resolve() : new Promise((resolve) => (settleActive = resolve));

  let closed: Promise<void> | undefined;
  const stopServer = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });

  return {
    url,
    replayed,
    counts: () => ({ ...counts }),
    async inject(raw) {
      const meta = metaOf(raw);
      return meta ? handleEvent(raw, meta, undefined) : { status: 400, note: 'not JSON' };
    },
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = stopServer();
        await requestsDone();
        server.closeAllConnections();
        await stopped;
        await queue?.idle();
        await spool?.close();
      })();
      return closed;
    },
    async abandon() {
      closing = true;
      const left = queue?.abandon() ?? [];
      server.closeAllConnections();
      await stopServer();
      await queue?.idle();
      await spool?.close();
      return left;
    },
  };
}

/** What the listener keeps of an event while handling it: all but the body (a big body is held once, as text). */
type EventMeta = Omit<ReceivedEvent, 'body' | 'raw'>;

/** What `raw` says about itself, or undefined when it is not JSON; the parsed body is not kept. */
function metaOf(raw: string): EventMeta | undefined {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return readEvent(body);
}

/** The body as the spec's event when it is one; otherwise what it says about itself, and what is off. */
function readEvent(body: unknown): EventMeta {
  const record = isRecord(body) ? body : {};
  const synthesised = record.synthesised === true;
  const parsed = WebhookEventSchema.safeParse(body);
  const task = isRecord(record.task) ? record.task : {};
  const name = typeof record.event === 'string' ? record.event : undefined;
  const taskId = typeof task.id === 'number' || typeof task.id === 'string' ? String(task.id) : undefined;
  if (parsed.success) return { event: parsed.data, problem: undefined, name, taskId, synthesised };
  const issue = parsed.error.issues[0];
  const problem = issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unexpected shape';
  return { event: undefined, problem, name, taskId, synthesised };
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
        chunks.length = 0;
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
