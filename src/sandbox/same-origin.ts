/**
 * Who may use the dashboard and the admin API: a browser page on another site must not rotate the key or add faults
 * (Origin check on writes), and a DNS-rebinding page must not read deliveries (Host check on everything). `curl`,
 * which sends a loopback Host and no Origin, keeps working.
 */
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './loopback.js';

/** `127.0.0.1:8787` → {host, port}; `[::1]:8787` too. Undefined when it does not parse. */
function splitHostPort(text: string): { host: string; port: number | undefined } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match?.[1]) return undefined;
  const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1];
  return { host, port: match[2] === undefined ? undefined : Number(match[2]) };
}

/** The request's `Host` names this machine (localhost, 127/8, ::1) and the sandbox's own port. */
export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const header = req.headers.host;
  if (typeof header !== 'string') return false;
  const parsed = splitHostPort(header.trim());
  if (!parsed || !isLoopbackHost(parsed.host)) return false;
  return (parsed.port ?? 80) === port;
}

/** A request without `Origin` (curl, scripts), or whose `Origin` is this sandbox (any loopback name, same port). */
export function originAllowed(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (typeof origin !== 'string' || !origin.startsWith('http://')) return false;
  const parsed = splitHostPort(origin.slice('http://'.length));
  return parsed !== undefined && isLoopbackHost(parsed.host) && (parsed.port ?? 80) === port;
}
