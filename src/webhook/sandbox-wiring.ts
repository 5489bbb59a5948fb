/**
 * `webhook listen` against the sandbox wires itself up, as `stripe listen` does: it sets itself as the sandbox's webhook
 * URL through the admin API, records that in the cache dir (store/webhook-wirings.ts), and when it ends puts the
 * previous URL back only if the URL is still its own: both are conditional sets, one request each (the sandbox compares
 * and sets at once, 409 otherwise), so a second listener or a change made in the dashboard is never overwritten. A
 * wiring left by a listener that was killed is undone by the next one.
 */
import { isLoopbackHost } from '../api/base-url.js';
import { errorWords, systemErrorWords } from '../errors.js';
import type { Wiring, WebhookWirings } from '../store/webhook-wirings.js';

/** The admin API answers at once on loopback, but a loaded machine may take seconds; beyond this the base URL is taken not
 * to be a sandbox (a real service answers its unknown path at once). */
const ADMIN_TIMEOUT_MS = 10_000;

/** The sandbox's admin API: its webhook URL, read and set. */
export interface SandboxAdmin {
  /** The sandbox's origin (`http://127.0.0.1:8787`). */
  readonly origin: string;
  webhookUrl: () => Promise<string | null>;
  /** Sets `url` if the sandbox's URL is still `expected`, in one request: false when it was not (nothing changed). */
  setWebhookUrl: (url: string | null, expected: string | null) => Promise<boolean>;
}

/** The admin API of the sandbox at `baseUrl`; undefined when the base URL is not loopback or is not a sandbox. */
export async function findSandbox(baseUrl: string): Promise<SandboxAdmin | undefined> {
  let origin: string;
  try {
    const url = new URL(baseUrl);
    if (!isLoopbackHost(url.hostname)) return undefined;
    origin = url.origin;
  } catch {
    return undefined;
  }
  const admin = adminApi(origin);
  try {
    await admin.webhookUrl();
    return admin;
  } catch {
    return undefined;
  }
}

function adminApi(origin: string): SandboxAdmin {
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body?: object,
  ): Promise<Record<string, unknown> | 'conflict'> => {
    let response: Response;
    try {
      response = await fetch(`${origin}/__sandbox${path}`, {
        method,
        ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
      });
    } catch (error) {
      const late = (error as { name?: unknown }).name === 'TimeoutError';
      throw new AdminAnswerError(
        `the sandbox did not answer${late ? ` within ${ADMIN_TIMEOUT_MS / 1000} s` : `: ${systemErrorWords(error)}`}`,
      );
    }
    const answer: unknown = await response.json().catch(() => undefined);
    const record = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
    if (response.status === 409 && 'webhookUrl' in record) return 'conflict';
    if (!response.ok)
      throw new AdminAnswerError(`the sandbox refused ${method} ${path} (HTTP ${response.status})${messageOf(record)}`);
    if (!('webhookUrl' in record))
      throw new AdminAnswerError(`${origin}/__sandbox${path} did not answer as the sandbox does`);
    return record;
  };
  return {
    origin,
    async webhookUrl() {
      const answer = await call('GET', '/state?tasks=false');
      return answer !== 'conflict' && typeof answer.webhookUrl === 'string' ? answer.webhookUrl : null;
    },
    async setWebhookUrl(url, expected) {
      return (await call('POST', '/webhook', { url, expected })) !== 'conflict';
    },
  };
}

/** The admin API could not be used: what happened, in words. */
class AdminAnswerError extends Error {}

/**
 * Why a wiring step failed, in words for a warning: the sandbox's answer (or that it did not answer), the record's
 * lock, or the system error of its file in the cache directory; never an errno name or a library's own text.
 */
export function wiringProblem(error: unknown): string {
  return error instanceof AdminAnswerError ? error.message : errorWords(error);
}

function messageOf(record: Record<string, unknown>): string {
  const error = record.error;
  const message = typeof error === 'object' && error !== null ? (error as Record<string, unknown>).message : undefined;
  return typeof message === 'string' ? `: ${message}` : '';
}

/**
 * The URL the sandbox should deliver to for a listener at `listenerUrl`: on 127.0.0.1 when it listens on every address,
 * as it is when it listens on loopback; undefined when the sandbox cannot reach it (it delivers to loopback only).
 */
export function wiringUrl(listenerUrl: string): string | undefined {
  const url = new URL(listenerUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '0.0.0.0' || host === '::') url.hostname = '127.0.0.1';
  else if (!isLoopbackHost(host)) return undefined;
  return url.href;
}

export interface WiringDeps {
  admin: SandboxAdmin;
  wirings: WebhookWirings;
  now: () => number;
  log: (line: string) => void;
}

/** Undoes the wirings of this sandbox left by listeners that no longer run (killed): newest first, each compared. */
export async function restoreLeftBehind(deps: WiringDeps): Promise<void> {
  const { admin, wirings, log } = deps;
  // Re-read after each one: removing a wiring rewrites the previous URL of the one that replaced it.
  for (let left = wirings.leftBehind(admin.origin); left.length > 0; left = wirings.leftBehind(admin.origin)) {
    const [wiring] = left;
    if (!wiring) break;
    const { outcome, previous } = await unwire(deps, wiring);
    if (outcome === 'unreachable') return;
    if (outcome === 'restored') {
      log(
        `sandbox at ${admin.origin}: webhook URL put back to ${shown(previous)} (left set by a listener that was killed, pid ${wiring.pid})`,
      );
    }
  }
}

/** A URL changed between the read and the set this many times in a row: the listener gives up wiring. */
const WIRE_ATTEMPTS = 3;

/**
 * Sets `url` as the sandbox's webhook URL if it is still the one read (so the previous URL recorded is the one
 * replaced), recorded first (a kill right after the set still leaves the record).
 */
export async function wire(deps: WiringDeps, url: string): Promise<Wiring> {
  const { admin, wirings, now } = deps;
  for (let attempt = 1; ; attempt++) {
    const previous = await admin.webhookUrl();
    const wiring = wirings.add({ sandbox: admin.origin, url, previous, at: now() });
    let set: boolean;
    try {
      set = await admin.setWebhookUrl(url, previous);
    } catch (error) {
      wirings.remove(wiring);
      throw error;
    }
    if (set) return wiring;
    wirings.remove(wiring);
    if (attempt === WIRE_ATTEMPTS) throw new Error('its webhook URL kept changing while it was being set');
  }
}

/**
 * Puts the previous URL back if the sandbox still delivers to `wiring.url` (`restored`); leaves a URL changed since
 * alone (`changed`). Unreachable, the record stays, and the next listener to start undoes it.
 */
export async function unwire(
  deps: WiringDeps,
  made: Wiring,
): Promise<{ outcome: 'restored' | 'changed' | 'unreachable'; previous: string | null }> {
  const { admin, wirings } = deps;
  // As recorded now: a listener wired before this one may have ended meanwhile, handing its previous URL on.
  const wiring = wirings.find(made) ?? made;
  const { previous } = wiring;
  let outcome: 'restored' | 'changed';
  try {
    outcome = (await admin.setWebhookUrl(previous, wiring.url)) ? 'restored' : 'changed';
  } catch {
    return { outcome: 'unreachable', previous };
  }
  wirings.remove(wiring);
  return { outcome, previous };
}

/** A webhook URL in a message, or "(none)". */
export function shown(url: string | null): string {
  return url ?? '(none)';
}
