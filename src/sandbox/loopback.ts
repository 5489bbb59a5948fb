/**
 * The sandbox talks only to this machine: admin callers and webhook receivers must be loopback. One rule for the
 * client and the sandbox: `isLoopbackHost` of src/api/base-url.ts (which does not trust `*.localhost`).
 */
import { isLoopbackHost } from '../api/base-url.js';

export { isLoopbackHost };

/** True for a socket's remote address on loopback (IPv4 127/8, ::1 and IPv4-mapped IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && address !== '' && isLoopbackHost(address);
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
