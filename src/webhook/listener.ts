/**
 * The local webhook receiver behind `taskctl webhook listen`. It never loses an event it acknowledged:
 *
 * - the 200 is sent only once the event is handled: printed, forwarded to the app and accepted there (2xx) when
 *   `forwardTo` is set, given a place in the exec queue when `exec` is set, and on disk when `spool` is set; otherwise
 *   the service gets 502 (forward failed) or 503 (queue full, too many bodies at once, stdout not being read), does not
 *   count the delivery, and sends it again later;
 * - an event is marked as seen only when acknowledged, so the service's next attempt at a delivery that failed here is
 *   handled; a repeat of an acknowledged one is printed as a duplicate and not handed on again (unless `dedupe` is off);
 * - memory is bounded: a body cap, a cap on bodies held at once, a queue bounded in events and bytes, a bounded
 *   duplicate filter, and stdout back-pressure.
 *
 * Every correctly signed JSON body is accepted whatever its shape (a 400 would make the service send again a delivery
 * that can never change, then drop it); a shape that is not docs/openapi.json's (webhooks) is handed on as received,
 * with a warning.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import type { Env } from '../output/io.js';
import { createRedactor } from '../lib/redact.js';
import { systemClock } from '../lib/time.js';
import type { Clock } from '../lib/time.js';
import { Deliveries } from './deliveries.js';
import { EventHandler, type ListenerCounts, type Outcome } from './event-handler.js';
import type { ExecJob } from './exec-queue.js';
import { metaOf, type ReceivedEvent } from './received.js';
import { checkTargetUrl } from './target-url.js';
import { listenOn } from '../net/listen.js';

const DEFAULT_LISTEN_PORT = 8788;
const DEFAULT_LISTEN_HOST = '127.0.0.1';
/** Largest body accepted by default; real events are a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Default `--queue`: events waiting for (or running) their command. */
const DEFAULT_QUEUE = 100;
/** Deliveries held at once (being read or forwarded): beyond it a delivery gets 503 before it is read. */
const MAX_BODIES_AT_ONCE = 64;
/** A delivery's headers arrive within this, its whole request within REQUEST_TIMEOUT_MS, or the connection is closed. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

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
  /**
   * Resolves once what `onEvent` printed has been written; a rejection (stdout's reader gone) is a 500 for that delivery,
   * not acknowledged, so the service delivers it again. Default: written at once.
   */
  written?: () => Promise<void>;
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
  /** Time a connection has to send a request's headers; default 10 s (then it is closed). */
  headersTimeoutMs?: number;
}

export interface WebhookListener {
  /** `http://host:port/path`, with the real port when 0 was asked for. */
  url: string;
  /**
   * Handles a body as if delivered (catch-up's synthesised events): the same printing, forwarding, queue and filter,
   * but waiting for room in the exec queue (at most half of it, so live deliveries keep the rest) rather than refused:
   * nobody would send it again. Status 0 when `signal` aborted that wait.
   */
  inject: (raw: string, signal?: AbortSignal) => Promise<Outcome>;
  /** The exec queue's places catch-up may hold at once: half of `queue`, at least one. */
  catchUpShare: number;
  /** Events replayed from the spool at start (their commands queued again). */
  replayed: number;
  counts: () => ListenerCounts;
  /** Events in hand: deliveries being handled, and events waiting for or running their command. */
  inHand: () => number;
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
  // Every line goes through the redactor too, so even a bug that interpolated the key could not print it.
  const redact = createRedactor([apiKey]);
  const log = (line: string): void => options.log?.(redact(line));
  const handler = new EventHandler({
    apiKey,
    forwardTo,
    forwardTimeoutMs: options.forwardTimeoutMs,
    exec: options.exec,
    execConcurrency: options.execConcurrency ?? 1,
    queue: options.queue ?? DEFAULT_QUEUE,
    dedupe: options.dedupe ?? true,
    canPrint: options.canPrint ?? (() => true),
    onEvent: options.onEvent,
    written: options.written ?? (() => Promise.resolve()),
    log,
    now,
    env: options.env ?? process.env,
  });
  const replayed = options.spool === undefined ? 0 : await handler.openSpool(options.spool);
  const deliveries = new Deliveries(
    {
      path,
      apiKey,
      maxBody: options.maxBody ?? MAX_BODY_BYTES,
      maxBodies: options.maxBodiesAtOnce ?? MAX_BODIES_AT_ONCE,
      now,
      log,
    },
    handler,
  );

  // A sender that trickles its headers or body cannot hold a connection open: Node checks the two timeouts every
  // `connectionsCheckingInterval` (30 s by default, which would let a stalled connection live three times its 10 s).
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(
    { connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 2)) },
    (req, res) => deliveries.serve(req, res),
  );
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = headersTimeout;

  try {
    await listenOn(server, options.port ?? DEFAULT_LISTEN_PORT, host);
  } catch (error) {
    // Not listening: the spool's lock is not kept by a listener that never started.
    await handler.spool?.close().catch(() => undefined);
    throw error;
  }
  server.on('error', (error) => handler.logError(error));
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;

  let closed: Promise<void> | undefined;
  const stopServer = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  const { queue } = handler;
  const catchUpShare = Math.max(1, Math.ceil((options.queue ?? DEFAULT_QUEUE) / 2));

  return {
    url,
    replayed,
    counts: () => ({ ...handler.counts }),
    inHand: () => deliveries.inProgress + (queue?.size ?? 0),
    catchUpShare,
    async inject(raw, signal = new AbortController().signal) {
      const meta = metaOf(raw);
      return 'unreadable' in meta
        ? { status: 400, note: meta.unreadable }
        : handler.handle(raw, meta, undefined, { share: catchUpShare, signal });
    },
    close() {
      closed ??= (async () => {
        deliveries.closing = true;
        const stopped = stopServer();
        await deliveries.requestsDone();
        server.closeAllConnections();
        await stopped;
        await queue?.idle();
        await handler.spool?.close();
      })();
      return closed;
    },
    async abandon() {
      deliveries.closing = true;
      const left = queue?.abandon() ?? [];
      server.closeAllConnections();
      await stopServer();
      await queue?.idle();
      await handler.spool?.close();
      return left;
    },
  };
}
