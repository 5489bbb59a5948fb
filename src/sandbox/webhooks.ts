/** Webhook deliveries (spec section 6): signed POSTs with the spec's retry schedule, recorded for the admin API. */
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { WebhookEventSchema } from '../api/schemas.js';
import type { WebhookEvent } from '../api/schemas.js';
import type { TimerSet } from './timers.js';

/** Delay before each attempt (spec 6.4); multiplied by the time scale. */
const RETRY_DELAYS_MS = [0, 5_000, 30_000, 120_000, 300_000, 600_000] as const;
export const WEBHOOK_USER_AGENT = 'TaskService-Webhook/1.0';
/** Oldest finished deliveries are forgotten beyond this, so a long-running sandbox stays small. */
const MAX_KEPT_DELIVERIES = 5_000;

export interface DeliveryAttempt {
  attempt: number;
  /** ISO time the attempt started. */
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface Delivery {
  id: number;
  event: WebhookEvent['event'];
  taskId: number;
  url: string;
  state: 'pending' | 'delivered' | 'abandoned';
  attempts: DeliveryAttempt[];
  /** ISO time of the next scheduled attempt while pending. */
  nextAttemptAt: string | null;
  payload: WebhookEvent;
}

export interface WebhookOptions {
  timeScale: number;
  timeoutMs: number;
  now: () => number;
  /** Read at every attempt: rotating the key changes the signature of later attempts. */
  currentKey: () => string;
  log: (line: string) => void;
  timers: TimerSet;
  /** The body as sent, from the checked event (dialects add fields); default the event itself. */
  reshape?: (payload: WebhookEvent) => Record<string, unknown>;
}

interface PendingDelivery {
  record: Delivery;
  body: string;
}

export class WebhookDispatcher {
  private readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<ClientRequest>();
  /** Per task, the first attempt of its latest event: the next event's first attempt waits for it, keeping order. */
  private readonly taskChains = new Map<number, Promise<void>>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WebhookOptions) {}

  send(url: string, event: WebhookEvent): Delivery {
    const payload = WebhookEventSchema.parse(event);
    const record: Delivery = {
      id: this.nextId++,
      event: payload.event,
      taskId: payload.task.id,
      url,
      state: 'pending',
      attempts: [],
      nextAttemptAt: new Date(this.options.now()).toISOString(),
      payload,
    };
    this.remember(record);
    const sent = this.options.reshape ? this.options.reshape(payload) : payload;
    const pending: PendingDelivery = { record, body: JSON.stringify(sent) };
    const previous = this.taskChains.get(record.taskId) ?? Promise.resolve();
    const first = previous.then(() => this.attempt(pending));
    this.taskChains.set(record.taskId, first);
    void first.then(() => {
      if (this.taskChains.get(record.taskId) === first) this.taskChains.delete(record.taskId);
    });
    return record;
  }

  list(): Delivery[] {
    return structuredClone(this.deliveries);
  }

  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
  }

  private remember(record: Delivery): void {
    this.deliveries.push(record);
    if (this.deliveries.length > MAX_KEPT_DELIVERIES) {
      const index = this.deliveries.findIndex((d) => d.state !== 'pending');
      this.deliveries.splice(Math.max(index, 0), 1);
    }
  }

  /** One attempt; resolves when it has finished (and the next one, if any, is scheduled). */
  private attempt(pending: PendingDelivery): Promise<void> {
    const { record, body } = pending;
    const number = record.attempts.length + 1;
    const { timers, timeoutMs, now } = this.options;
    if (this.closed) return Promise.resolve();
    const startedAt = performance.now();
    const at = new Date(now()).toISOString();
    record.nextAttemptAt = null;
    return new Promise<void>((resolve) => {
      let settled = false;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        timers.clear(timeout);
        this.inFlight.delete(req);
        if (this.closed) {
          resolve();
          return;
        }
        record.attempts.push({
          attempt: number,
          at,
          statusCode,
          error,
          durationMs: Math.round(performance.now() - startedAt),
        });
        this.afterAttempt(pending, statusCode, error);
        resolve();
      };
      const url = new URL(record.url);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, {
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          'User-Agent': WEBHOOK_USER_AGENT,
          'X-Webhook-Signature': this.options.currentKey(),
        },
      });
      this.inFlight.add(req);
      // The whole exchange, body included, must finish within the timeout (spec: answer 200 within 30 s).
      const timeout = timers.set(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', (error) => finish(res.statusCode ?? null, error.message));
      });
      req.on('error', (error) => finish(null, error.message));
      req.end(body);
    });
  }

  private afterAttempt(pending: PendingDelivery, statusCode: number | null, error: string | null): void {
    const { record } = pending;
    if (statusCode === 200) {
      record.state = 'delivered';
      return;
    }
    const outcome = error ?? `HTTP ${statusCode}`;
    const label = `webhook ${record.event} for task ${record.taskId} to ${record.url}`;
    const delay = RETRY_DELAYS_MS[record.attempts.length];
    if (delay === undefined) {
      record.state = 'abandoned';
      this.options.log(`${label} abandoned after ${record.attempts.length} failed attempts (last: ${outcome})`);
      return;
    }
    const wait = delay * this.options.timeScale;
    record.nextAttemptAt = new Date(this.options.now() + wait).toISOString();
    this.options.log(`${label} failed (${outcome}); attempt ${record.attempts.length + 1} in ${Math.round(wait)} ms`);
    this.options.timers.set(() => void this.attempt(pending), wait);
  }
}
