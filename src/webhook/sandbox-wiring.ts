/**
 * `webhook listen` against the sandbox wires itself up, as `stripe listen` does: it sets itself as the sandbox's webhook
 * URL through the admin API, records that in the cache dir (store/webhook-wirings.ts), and when it ends puts the
 * previous URL back only if the URL is still its own (compare, then restore), so a second listener or a change made in
 * the dashboard survives. A wiring left by a listener that was killed is undone by the next one.
 */
import { isLoopbackHost } from '../api/base-url.js';
import type { Wiring, WebhookWirings } from '../store/webhook-wirings.js';

/** The admin API answers at once on loopback; beyond this the base URL is taken not to be a sandbox. */
const ADMIN_TIMEOUT_MS = 3_000;

/** The sandbox's admin API: its webhook URL, read and set. */
export interface SandboxAdmin {
  /** The sandbox's origin (`http://127.0.0.1:8787`). */
  readonly origin: string;
  webhookUrl: () => Promise<string | null>;
  setWebhookUrl: (url: string | null) => Promise<void>;
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
  const call = async (method: 'GET' | 'POST', path: string, body?: object): Promise<Record<string, unknown>> => {
    const response = await fetch(`${origin}/__sandbox${path}`, {
      method,
      ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
    });
    const answer: unknown = await response.json().catch(() => undefined);
    const record = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${path}${messageOf(record)}`);
    if (!('webhookUrl' in record)) throw new Error(`${path} did not answer as the sandbox does`);
    return record;
  };
  return {
    origin,
    async webhookUrl() {
      const { webhookUrl } = await call('GET', '/state?tasks=false');
      return typeof webhookUrl === 'string' ? webhookUrl : null;
    },
    async setWebhookUrl(url) {
      await call('POST', '/webhook', { url });
    },
  };
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

/** Sets `url` as the sandbox's webhook URL, recorded first (a kill right after the set still leaves the record). */
export async function wire(deps: WiringDeps, url: string): Promise<Wiring> {
  const { admin, wirings, now } = deps;
  const previous = await admin.webhookUrl();
  const wiring = wirings.add({ sandbox: admin.origin, url, previous, at: now() });
  try {
    await admin.setWebhookUrl(url);
  } catch (error) {
    wirings.remove(wiring);
    throw error;
  }
  return wiring;
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
    const current = await admin.webhookUrl();
    outcome = current === wiring.url ? 'restored' : 'changed';
    if (outcome === 'restored') await admin.setWebhookUrl(previous);
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
