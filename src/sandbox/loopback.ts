/** The sandbox talks only to this machine: admin callers and webhook receivers must be loopback. */
import { isIP } from 'node:net';

/** True for `localhost`, `*.localhost`, 127.0.0.0/8 and ::1 (bracketed or not). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isLoopbackAddress(host);
}

/** True for a socket's remote address on loopback (IPv4, IPv6 and IPv4-mapped IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
}

/** Validates a webhook URL: http(s) and a loopback host; returns an error message or undefined. */
export function checkWebhookUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `webhook URL "${url}" is not a valid URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `webhook URL "${url}" must use http or https`;
  }
  if (!isLoopbackHost(parsed.hostname)) {
    return `webhook URL "${url}" is not on this machine; the sandbox only delivers to loopback (localhost, 127.0.0.1, ::1)`;
  }
  return undefined;
}
