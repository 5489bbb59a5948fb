/**
 * The webhook delivery log the dashboard shows (as the service's own dashboard does: "timestamps, HTTP status codes, response times, payloads
 * and retry history"): bounded, filterable by state, with the request headers as sent and the signature masked.
 */
import type { WebhookEvent } from '../api/schemas.js';

/** Oldest finished deliveries are forgotten beyond this, so a long-running sandbox stays small. */
const MAX_KEPT_DELIVERIES = 5_000;

/**
 * `sending`: the first attempt has not finished; `retrying`: an attempt failed and the next is scheduled
 * (`nextAttemptAt`); `delivered`: an attempt got HTTP 200; `abandoned`: every attempt failed (a test event has one).
 * These names are the admin API's (docs/sandbox.md, "Admin API") and the dashboard's filter: `retrying` stays, the one
 * place the sandbox says retry for a delivery sent again (src/README.md, "Words kept apart").
 */
const DELIVERY_STATES = ['sending', 'retrying', 'delivered', 'abandoned'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

interface DeliveryAttempt {
  attempt: number;
  /** ISO time the attempt started. */
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** True for an attempt sent by `POST /__sandbox/deliveries/:id/replay`, outside the redelivery schedule. */
  replay?: true;
}

export interface Delivery {
  id: number;
  event: WebhookEvent['event'];
  taskId: number;
  url: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** ISO time of the next scheduled attempt while `retrying`. */
  nextAttemptAt: string | null;
  payload: WebhookEvent;
  /** The request headers of the latest attempt, `X-Webhook-Signature` masked (it is the API key). */
  headers: Record<string, string>;
  /** True for `POST /__sandbox/webhook/test` events (sent with `X-Sandbox-Test: 1`, never sent again). */
  test?: true;
}

/** `sk_s…0000`: enough to tell two keys apart, not enough to use one. */
function maskSecret(value: string): string {
  return value.length <= 8 ? '••••' : `${value.slice(0, 4)}…${value.slice(-4)}`;
}

/** Headers as recorded: the signature header masked, the others as sent. */
export function recordedHeaders(headers: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    shown[name] = name.toLowerCase() === 'x-webhook-signature' ? maskSecret(value) : value;
  }
  return shown;
}

export function isDeliveryState(value: string): value is DeliveryState {
  return (DELIVERY_STATES as readonly string[]).includes(value);
}

export class DeliveryLog {
  /** Oldest first (ids ascend). */
  private readonly deliveries: Delivery[] = [];
  private readonly byId = new Map<number, Delivery>();
  private nextId = 1;

  /** @param onChange called after every change (a new delivery, an attempt, a state), for the dashboard's live feed. */
  constructor(private readonly onChange: () => void = () => {}) {}

  add(record: Omit<Delivery, 'id'>): Delivery {
    const delivery: Delivery = { id: this.nextId++, ...record };
    this.deliveries.push(delivery);
    this.byId.set(delivery.id, delivery);
    if (this.deliveries.length > MAX_KEPT_DELIVERIES) {
      const index = this.deliveries.findIndex((d) => d.state !== 'sending' && d.state !== 'retrying');
      const [dropped] = this.deliveries.splice(Math.max(index, 0), 1);
      if (dropped) this.byId.delete(dropped.id);
    }
    this.onChange();
    return delivery;
  }

  get(id: number): Delivery | undefined {
    return this.byId.get(id);
  }

  /** Marks a change made to a record in place. */
  changed(): void {
    this.onChange();
  }

  /** Copies, oldest first; only those in `state` when given. */
  list(state?: DeliveryState): Delivery[] {
    const chosen = state === undefined ? this.deliveries : this.deliveries.filter((d) => d.state === state);
    return structuredClone(chosen);
  }
}
