/** `taskctl webhook simulate`: one delivery exactly as the service (and the sandbox) would send it. */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { WebhookEvent } from '../api/schemas.js';
import { errorCode } from '../api/request.js';
import { UnavailableError } from '../errors.js';
import { createRedactor } from '../lib/redact.js';
import { isBlockedPort, postFailure } from './forward.js';
import { SIMULATED_HEADER, webhookHeaders } from './signature.js';
import { checkTargetUrl } from './target-url.js';

/** The service's own answer deadline: a receiver must answer within 30 s. */
const SIMULATE_TIMEOUT_MS = 30_000;

export interface SimulateOptions {
  event: WebhookEvent;
  /** Receiver URL: https anywhere, http only on loopback (UsageError otherwise). */
  to: string;
  /** Sent as X-Webhook-Signature, as the service does. */
  apiKey: string;
  /** Default 30 000 ms. */
  timeoutMs?: number;
}

export interface SimulateResult {
  /** The receiver's HTTP status (the service counts only 200 as delivered). */
  status: number;
  durationMs: number;
}

/** The most of a receiver's answer read: only its status counts, so a receiver that answers without end is cut here. */
const ANSWER_MAX_BYTES = 1024 * 1024;

/** Reads the receiver's answer to its end (its time is part of the delivery's), or to ANSWER_MAX_BYTES, then drops it. */
async function drainAnswer(body: AsyncIterable<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > ANSWER_MAX_BYTES) break;
    }
  } catch {
    // Cut while it was read (the timeout, a reset): the status already came.
  }
}

/** POSTs the event, marked as simulated (a distinct delivery for the listener's duplicate filter); throws UsageError for a refused URL and UnavailableError when no answer came. */
export async function sendSimulatedEvent(options: SimulateOptions): Promise<SimulateResult> {
  const url = checkTargetUrl(options.to, 'webhook URL');
  const timeoutMs = options.timeoutMs ?? SIMULATE_TIMEOUT_MS;
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...webhookHeaders(options.apiKey), [SIMULATED_HEADER]: randomUUID() },
      body: JSON.stringify(options.event),
      // The key rides in a header: never let a redirect carry it to another place.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await drainAnswer(response.body);
    return { status: response.status, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const redact = createRedactor([options.apiKey]);
    const target = `${url.origin}${url.pathname}`;
    // Connection refused: a URL with nothing behind it, most often a listener not started yet.
    if (errorCode(error) === 'ECONNREFUSED') {
      throw new UnavailableError(
        redact(`could not deliver the event: nothing is listening at ${target}`),
        'Start `taskctl webhook listen` first, or pass --to with the URL your receiver listens at.',
      );
    }
    if (isBlockedPort(error)) {
      const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
      throw new UnavailableError(
        redact(
          `could not deliver the event to ${target}: port ${port} is one that fetch refuses to connect to (a port of another protocol)`,
        ),
        'Pass --to with a URL on another port (your receiver listening there).',
      );
    }
    throw new UnavailableError(
      redact(`could not deliver the event to ${target}: ${postFailure(error, timeoutMs).reason}`),
      'Check that the receiver is running and reachable (e.g. `taskctl webhook listen`).',
    );
  }
}
