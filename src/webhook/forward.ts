import { errorCode } from '../api/request.js';
import { systemErrorWords } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { WEBHOOK_USER_AGENT } from '../api/constants.js';
import { SIGNATURE_HEADER, SIMULATED_HEADER } from './signature.js';

/** Below the service's 30 s answer deadline, so the service still hears our 502 in time. */
const FORWARD_TIMEOUT_MS = 25_000;

export interface ForwardRequest {
  to: URL;
  /** `completed task 7`, for the log line. */
  label: string;
  raw: string;
  /** The incoming delivery's User-Agent, passed on unchanged. */
  userAgent: string | undefined;
  /** A simulated delivery's X-Taskctl-Simulated, passed on so the app can tell it too. */
  simulated?: string | undefined;
  /** Passed on as X-Webhook-Signature, so the app can verify it as it would a real delivery. */
  apiKey: string;
  log: (line: string) => void;
  now: () => number;
  /** Default FORWARD_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Re-POSTs one verified event body to the local app; true when the app accepted it (2xx). Logs the outcome; never
 * rejects. The whole exchange, the app's answer body included, is bounded by the timeout.
 */
export async function forwardEvent(request: ForwardRequest): Promise<boolean> {
  const { to, log } = request;
  const timeoutMs = request.timeoutMs ?? FORWARD_TIMEOUT_MS;
  const label = `forward ${request.label} to ${to.origin}${to.pathname}`;
  const started = request.now();
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': request.userAgent ?? WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: request.apiKey,
        ...(request.simulated === undefined ? {} : { [SIMULATED_HEADER]: request.simulated }),
      },
      body: request.raw,
      // The key rides in a header: never let a redirect carry it somewhere else.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer body is not needed: dropped unread (a huge or endless one costs nothing).
    await response.body?.cancel().catch(() => undefined);
    const took = `${Math.round(request.now() - started)}ms`;
    const ok = response.status >= 200 && response.status < 300;
    log(ok ? `${label}: ${response.status} (${took})` : `${label} failed: HTTP ${response.status} (${took})`);
    return ok;
  } catch (error) {
    log(`${label} failed: ${describe(error, timeoutMs, to)}`);
    return false;
  }
}

/** What happened, and, when the app was not reached, the next step. */
function describe(error: unknown, timeoutMs: number, to: URL): string {
  const { reason, unreached } = postFailure(error, timeoutMs);
  return unreached ? `${reason}; check that the app is running and listens at ${to.host}` : reason;
}

/**
 * Why a POST to a local receiver failed, in plain words, never Node's "fetch failed: connect ECONNREFUSED" (forwarding
 * here, `webhook simulate`); `unreached` when it never got to the receiver, so the next step is to start it or fix the
 * URL.
 */
export function postFailure(error: unknown, timeoutMs: number): { reason: string; unreached: boolean } {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return { reason: `no answer within ${formatDuration(timeoutMs)}`, unreached: false };
  }
  if (isBlockedPort(error)) {
    // fetch's list of blocked ports (as browsers have): refused before any connection.
    return { reason: 'a port that fetch refuses to connect to (a port of another protocol)', unreached: false };
  }
  const words = systemErrorWords(error);
  const unknown = words === systemErrorWords(undefined);
  return {
    reason: unknown ? 'the request could not be sent' : words,
    unreached: unknown || UNREACHED.has(errorCode(error) ?? ''),
  };
}

/** fetch refused the URL's port before connecting: one of its blocked ports (1, 25, 6000, ...), as browsers have. */
export function isBlockedPort(error: unknown): boolean {
  return error instanceof Error && error.cause instanceof Error && error.cause.message === 'bad port';
}

/** Failures where the app was never reached: the next step is to start it, or fix --forward. */
const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);
