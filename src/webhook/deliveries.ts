/**
 * The HTTP side of the listener: each request is checked (path, method, signature, size, how many bodies are held)
 * before its body is read, then handed to the EventHandler, and answered with one status line in the log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectAfterTraffic } from './collect.js';
import type { EventHandler } from './event-handler.js';
import { metaOf } from './received.js';
import { SIGNATURE_HEADER, SIMULATED_HEADER, signatureMatches } from './signature.js';

/**
 * Bytes of the deliveries held at once (by Content-Length, or `maxBody` when not declared): a burst of 1 MiB bodies is
 * taken 2 at a time, however many small ones may be in hand.
 */
const HELD_MAX_BYTES = 2 * 1024 * 1024;

const BUSY = { 'Retry-After': '1' };

export interface DeliverySettings {
  path: string;
  apiKey: string;
  maxBody: number;
  maxBodies: number;
  now: () => number;
  log: (line: string) => void;
}

/** Answers one request: the status, the JSON body, the log note, extra headers, and whether the event was shown. */
type Done = (status: number, body: object, note: string, headers?: Record<string, string>, shown?: boolean) => void;

export class Deliveries {
  /** Set when the listener stops: new deliveries get 503. */
  closing = false;
  private readonly handled = collectAfterTraffic();
  private bodies = 0;
  private heldBytes = 0;
  private active = 0;
  private settleActive: (() => void) | undefined;
  /** The warning about deliveries signed with another key was given, and no delivery has matched since. */
  private mismatchSaid = false;

  constructor(
    private readonly settings: DeliverySettings,
    private readonly handler: EventHandler,
  ) {}

  /** The server's request listener. */
  serve(req: IncomingMessage, res: ServerResponse): void {
    this.active++;
    this.handle(req, res)
      .catch((error: unknown) => {
        this.handler.logError(error);
        if (!res.headersSent) reply(res, 500, { ok: false, error: 'internal error' });
      })
      .finally(() => {
        this.active--;
        if (this.active === 0) this.settleActive?.();
      });
  }

  /** Requests being handled now. */
  get inProgress(): number {
    return this.active;
  }

  /** Resolves once no request is being handled. */
  requestsDone(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((resolve) => (this.settleActive = resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { now, log, maxBody, maxBodies } = this.settings;
    const started = now();
    const done: Done = (status, body, note, headers = {}, shown = false) => {
      reply(res, status, body, headers);
      // The event's own line already says it on this screen.
      if (!shown) log(`${req.method ?? '?'} ${pathOf(req)} → ${status} ${note} (${Math.round(now() - started)}ms)`);
    };
    if (this.refused(req, done)) return;
    const declared = Number(req.headers['content-length']);
    const weight = Number.isFinite(declared) && declared >= 0 ? declared : maxBody;
    if (this.bodies >= maxBodies || (this.bodies > 0 && this.heldBytes + weight > HELD_MAX_BYTES)) {
      this.handler.counts.refused++;
      // Node reads a refused body to its end and drops it: garbage all the same.
      this.handled(weight);
      done(
        503,
        { ok: false, error: 'busy' },
        `${this.bodies} deliveries in progress; the service will send it again`,
        BUSY,
      );
      return;
    }
    this.bodies++;
    this.heldBytes += weight;
    try {
      await this.deliver(req, done);
    } finally {
      this.bodies--;
      this.heldBytes -= weight;
      this.handled(weight);
    }
  }

  /** Answers a request that is refused before its body is read; false when it may be read. */
  private refused(req: IncomingMessage, done: Done): boolean {
    const { path, apiKey, maxBody } = this.settings;
    if (pathOf(req) !== path) {
      done(404, { ok: false, error: 'not found' }, 'wrong path');
      return true;
    }
    if (req.method !== 'POST') {
      done(405, { ok: false, error: 'method not allowed' }, 'only POST', { Allow: 'POST' });
      return true;
    }
    // Verified before a byte of the body is read: an unsigned sender costs us nothing.
    const presented = req.headers[SIGNATURE_HEADER];
    if (typeof presented !== 'string' || !signatureMatches(presented, apiKey)) {
      const why =
        typeof presented === 'string' ? 'signature does not match the API key' : 'no X-Webhook-Signature header';
      done(401, { ok: false, error: 'invalid signature' }, why);
      if (typeof presented === 'string' && !this.mismatchSaid) {
        // Once per episode (until a delivery matches again), not once per attempt: the likely cause and the way out.
        this.mismatchSaid = true;
        this.settings.log(
          "warning: deliveries are refused (401): their signature does not match the API key this listener checks them with. If the service's key was regenerated, restart `taskctl webhook listen` with the new key (`taskctl auth login`, or TASKCTL_API_KEY) and --catch-up for the events refused meanwhile.",
        );
      }
      return true;
    }
    this.mismatchSaid = false;
    if (this.closing) {
      done(503, { ok: false, error: 'shutting down' }, 'stopping; the service will send it again', BUSY);
      return true;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      done(413, { ok: false, error: 'body too large' }, `body of ${declared} bytes`);
      return true;
    }
    return false;
  }

  /** Reads the body and hands it to the event handler. */
  private async deliver(req: IncomingMessage, done: Done): Promise<void> {
    const { maxBody } = this.settings;
    const raw = await readBody(req, maxBody);
    if (raw === undefined) {
      done(413, { ok: false, error: 'body too large' }, `body over ${maxBody} bytes`);
      return;
    }
    const meta = metaOf(raw);
    if ('unreadable' in meta) {
      done(400, { ok: false, error: meta.unreadable }, meta.unreadable);
      return;
    }
    const simulated = simulationId(headerValue(req.headers[SIMULATED_HEADER]));
    const received = simulated === undefined ? meta : { ...meta, simulated };
    const outcome = await this.handler.handle(raw, received, headerValue(req.headers['user-agent']));
    const ok = outcome.status === 200;
    const answer = ok ? { ok: true } : { ok: false, error: outcome.note };
    done(outcome.status, answer, outcome.note, ok ? {} : BUSY, outcome.shown === true);
  }
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://listener').pathname;
  } catch {
    return '?';
  }
}

/** A simulated delivery's id as a key part: one line, bounded (it joins the duplicate key and the spool). */
function simulationId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const id = value
    .trim()
    .replace(/[^\w.-]/g, '')
    .slice(0, 64);
  return id === '' ? 'simulated' : id;
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

/**
 * The body as UTF-8, a leading BOM dropped (as the API client drops one: the event is the text after it), or undefined
 * once it passes `limit` bytes (reading stops there).
 */
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
    req.once('end', () =>
      resolve(
        Buffer.concat(chunks)
          .toString('utf8')
          .replace(/^\uFEFF/, ''),
      ),
    );
    req.once('error', reject);
  });
}
