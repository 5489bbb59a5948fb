/**
 * What `webhook listen` says and does about the service's webhook URL at start: against the sandbox it wires itself
 * (webhook/sandbox-wiring.ts) and returns how to undo that; against another service it says where the URL is set.
 */
import { normaliseBaseUrl } from '../api/base-url.js';
import { cacheDirectory } from '../store/cache-dir.js';
import { WebhookWirings } from '../store/webhook-wirings.js';
import type { SandboxAdmin, WiringDeps } from '../webhook/sandbox-wiring.js';
import type { Output, Runtime, Service } from './capabilities.js';

/** Undoes the wiring (restores the previous URL if the URL is still the listener's); never throws. */
export type Unwire = () => Promise<void>;

/** Wires the listener at `listenerUrl` to the sandbox (unless `wire` is false), or says what to do by hand. */
export async function wireListener(
  ctx: Output & Runtime & Service,
  listenerUrl: string,
  wire: boolean,
): Promise<Unwire | undefined> {
  const baseUrl = await configuredBaseUrl(ctx);
  const wiring = await import('../webhook/sandbox-wiring.js');
  const admin = baseUrl === undefined ? undefined : await wiring.findSandbox(baseUrl);
  if (!admin) {
    tellTunnel(ctx, listenerUrl);
    return undefined;
  }
  const url = wiring.wiringUrl(listenerUrl);
  if (!wire) {
    const dead = await deadListenerUrl(ctx, admin);
    if (dead !== undefined) {
      ctx.printer.warn(
        `the sandbox's webhook URL points at ${dead}, a taskctl listener that has ended: drop --no-wire to take it over (or set it in its dashboard at ${admin.origin}/)`,
      );
      return undefined;
    }
  }
  if (!wire || url === undefined) {
    const why = wire ? `the sandbox delivers only to loopback, and this listener is on ${listenerUrl}` : '--no-wire';
    ctx.printer.info(
      `the sandbox's webhook URL is left as it is (${why}); set it in its dashboard at ${admin.origin}/`,
    );
    return undefined;
  }
  const deps: WiringDeps = {
    admin,
    wirings: new WebhookWirings(cacheDirectory(ctx.env)),
    now: () => ctx.clock.now(),
    log: (line) => ctx.printer.info(line),
  };
  return wireSandbox(ctx, deps, url);
}

/**
 * The sandbox's webhook URL when it is one a `taskctl webhook listen` set and that listener has ended (killed before it
 * could put the URL back): nothing receives its events. Undefined when not, or when it cannot be told.
 */
async function deadListenerUrl(ctx: Runtime, admin: SandboxAdmin): Promise<string | undefined> {
  try {
    const current = await admin.webhookUrl();
    if (current === null) return undefined;
    const left = new WebhookWirings(cacheDirectory(ctx.env)).leftBehind(admin.origin);
    return left.some((wiring) => wiring.url === current) ? current : undefined;
  } catch {
    return undefined; // the sandbox not answering: the line below says where the URL is set
  }
}

/** The base URL in force, or undefined when none is set or it is not one (listen itself needs only the key). */
async function configuredBaseUrl(ctx: Service): Promise<string | undefined> {
  const { baseUrl } = await ctx.settings();
  if (baseUrl === undefined) return undefined;
  try {
    return normaliseBaseUrl(baseUrl.value);
  } catch {
    return undefined;
  }
}

/** Undoes wirings left by killed listeners, then sets `url`; on failure says so and goes on unwired. */
async function wireSandbox(ctx: Output, deps: WiringDeps, url: string): Promise<Unwire | undefined> {
  const { restoreLeftBehind, wire, unwire, shown, wiringProblem } = await import('../webhook/sandbox-wiring.js');
  const { admin } = deps;
  try {
    await restoreLeftBehind(deps);
    const wiring = await wire(deps, url);
    ctx.printer.info(
      `sandbox at ${admin.origin}: webhook URL set to ${url} (was ${shown(wiring.previous)}; put back when this stops, unless changed meanwhile; --no-wire to leave it)`,
    );
    return async () => {
      try {
        const { outcome, previous } = await unwire(deps, wiring);
        ctx.printer.info(unwiredText(admin, outcome, previous, shown));
      } catch (error) {
        // The record could not be updated (its lock held): the next listener finds it and puts the URL back.
        ctx.printer.warn(`could not put the sandbox's webhook URL back (${wiringProblem(error)})`);
      }
    };
  } catch (error) {
    ctx.printer.warn(
      `could not set the sandbox's webhook URL (${wiringProblem(error)}); set it to ${url} in its dashboard at ${admin.origin}/`,
    );
    return undefined;
  }
}

function unwiredText(
  admin: SandboxAdmin,
  outcome: 'restored' | 'changed' | 'unreachable',
  previous: string | null,
  shown: (url: string | null) => string,
): string {
  if (outcome === 'restored') return `sandbox at ${admin.origin}: webhook URL put back to ${shown(previous)}`;
  if (outcome === 'changed') return `sandbox at ${admin.origin}: webhook URL changed meanwhile; left as it is`;
  return `sandbox at ${admin.origin} not reachable: its webhook URL is put back by the next \`taskctl webhook listen\``;
}

/** Another service delivers only to the HTTPS URL set in its dashboard: this listener needs a tunnel to be reached. */
function tellTunnel(ctx: Output, listenerUrl: string): void {
  const { port, pathname } = new URL(listenerUrl);
  ctx.printer.info(
    `the service delivers webhooks to the public HTTPS URL set in its web dashboard (not through the API): expose this listener with a tunnel (e.g. \`cloudflared tunnel --url http://127.0.0.1:${port}\`) and set the dashboard's webhook URL to the tunnel's https address + ${pathname}`,
  );
}
