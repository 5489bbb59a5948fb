/** Webhook deliveries (docs/sandbox.md#webhooks): signed POSTs on the service's schedule, in the delivery log. */
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { WEBHOOK_USER_AGENT } from '../api/constants.js';
import { WebhookEventSchema } from '../api/schemas.js';
import { systemErrorWords } from '../errors.js';
import type { WebhookEvent } from '../api/schemas.js';
import { formatDuration } from '../lib/duration.js';
import { DeliveryLog, recordedHeaders } from './delivery-log.js';
import type { Delivery } from './delivery-log.js';
import type { TimerSet } from './timers.js';

/**
 * Delay before each attempt (docs/sandbox.md#webhooks; docs/openapi.json: WebhookFailed's `x-redelivery-delays-seconds`, a
 * test holds them equal); multiplied by the time scale.
 */
export const REDELIVERY_DELAYS_MS = [0, 5_000, 30_000, 120_000, 300_000, 600_000] as const;

export type { Delivery } from './delivery-log.js';

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
  /** Called after every change to the delivery log (the dashboard's live feed). */
  onChange?: () => void;
}

/** The receiver did not answer within the timeout: its message is already in words. */
class NoResponseError extends Error {}

/** Why an attempt failed, in words (the delivery log, the dashboard, the log line): never Node's error text. */
function attemptError(error: Error): string {
  return error instanceof NoResponseError ? error.message : systemErrorWords(error);
}

/** Why an attempt is sent: the redelivery schedule, a replay from the dashboard, or a test event. */
type AttemptKind = 'scheduled' | 'replay' | 'test';

export class WebhookDispatcher {
  readonly log: DeliveryLog;
  private readonly inFlight = new Set<ClientRequest>();
  /** The scheduled next attempt of each delivery in state `retrying`, so a successful replay can cancel it. */
  private readonly redeliveryTimers = new Map<number, NodeJS.Timeout | undefined>();
  /** Per task, the first attempt of its latest event: the next event's first attempt waits for it, keeping order. */
  private readonly taskChains = new Map<number, Promise<void>>();
  private closed = false;

  constructor(private readonly options: WebhookOptions) {
    this.log = new DeliveryLog(options.onChange);
  }

  send(url: string, event: WebhookEvent): Delivery {
    const record = this.record(url, event);
    const previous = this.taskChains.get(record.taskId) ?? Promise.resolve();
    const first = previous.then(async () => {
      await this.attempt(record, 'scheduled');
    });
    this.taskChains.set(record.taskId, first);
    void first.then(() => {
      if (this.taskChains.get(record.taskId) === first) this.taskChains.delete(record.taskId);
    });
    return record;
  }

  /** Sends a delivery again now, as one more attempt outside the schedule; resolves with the record after it. */
  async replay(id: number): Promise<Delivery | undefined> {
    const record = this.log.get(id);
    if (!record) return undefined;
    await this.attempt(record, 'replay');
    return structuredClone(record);
  }

  /** One signed test event (`X-Sandbox-Test: 1`), one attempt, never sent again; resolves with the record after it. */
  async test(url: string, event: WebhookEvent): Promise<Delivery> {
    const record = this.record(url, event, true);
    await this.attempt(record, 'test');
    return structuredClone(record);
  }

  list(): Delivery[] {
    return this.log.list();
  }

  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
  }

  private record(url: string, event: WebhookEvent, test = false): Delivery {
    const payload = WebhookEventSchema.parse(event);
    return this.log.add({
      event: payload.event,
      taskId: payload.task.id,
      url,
      state: 'sending',
      attempts: [],
      nextAttemptAt: new Date(this.options.now()).toISOString(),
      payload,
      headers: {},
      ...(test ? { test: true as const } : {}),
    });
  }

  private headers(body: string, kind: AttemptKind): Record<string, string> {
    return {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Webhook-Signature': this.options.currentKey(),
      ...(kind === 'test' ? { 'X-Sandbox-Test': '1' } : {}),
    };
  }

  /** One attempt; resolves when it has finished (and the next one, if any, is scheduled). */
  private attempt(record: Delivery, kind: AttemptKind): Promise<void> {
    const number = record.attempts.length + 1;
    const { timers, timeoutMs, now } = this.options;
    if (this.closed) return Promise.resolve();
    const sent = this.options.reshape ? this.options.reshape(record.payload) : record.payload;
    const body = JSON.stringify(sent);
    const headers = this.headers(body, kind);
    const startedAt = performance.now();
    const at = new Date(now()).toISOString();
    if (kind === 'scheduled') record.nextAttemptAt = null;
    record.headers = recordedHeaders(headers);
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
          ...(kind === 'replay' ? { replay: true as const } : {}),
        });
        this.afterAttempt(record, kind, statusCode, error);
        this.log.changed();
        resolve();
      };
      const url = new URL(record.url);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { method: 'POST', agent: false, headers });
      this.inFlight.add(req);
      // The whole exchange, body included, must finish within the timeout (docs/openapi.json, info: a receiver answers within 30 s).
      const timeout = timers.set(
        () => req.destroy(new NoResponseError(`no response within ${formatDuration(timeoutMs)}`)),
        timeoutMs,
      );
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', (error) => finish(res.statusCode ?? null, attemptError(error)));
      });
      req.on('error', (error) => finish(null, attemptError(error)));
      req.end(body);
    });
  }

  private afterAttempt(record: Delivery, kind: AttemptKind, statusCode: number | null, error: string | null): void {
    if (statusCode === 200) {
      record.state = 'delivered';
      record.nextAttemptAt = null;
      // A replay that got through makes the scheduled next attempt pointless.
      this.options.timers.clear(this.redeliveryTimers.get(record.id));
      this.redeliveryTimers.delete(record.id);
      return;
    }
    const outcome = error ?? `HTTP ${statusCode}`;
    const label = `webhook ${record.event} for task ${record.taskId} to ${record.url}`;
    if (kind === 'replay') {
      // A failed replay leaves the delivery as it was (still `retrying` on schedule, or still abandoned).
      this.options.log(`${label}: replay failed (${outcome})`);
      return;
    }
    if (kind === 'test') {
      record.state = 'abandoned';
      this.options.log(`${label}: test event failed (${outcome})`);
      return;
    }
    const scheduled = record.attempts.filter((a) => a.replay !== true).length;
    const delay = REDELIVERY_DELAYS_MS[scheduled];
    if (delay === undefined) {
      record.state = 'abandoned';
      this.redeliveryTimers.delete(record.id);
      this.options.log(`${label} abandoned after ${scheduled} failed attempts (last: ${outcome})`);
      return;
    }
    const wait = delay * this.options.timeScale;
    record.state = 'retrying';
    record.nextAttemptAt = new Date(this.options.now() + wait).toISOString();
    this.options.log(`${label} failed (${outcome}); attempt ${scheduled + 1} in ${formatDuration(wait)}`);
    const timer = this.options.timers.set(() => {
      this.redeliveryTimers.delete(record.id);
      // Delivered by a replay meanwhile: nothing left to send again.
      if (record.state === 'retrying') void this.attempt(record, 'scheduled');
    }, wait);
    this.redeliveryTimers.set(record.id, timer);
  }
}
