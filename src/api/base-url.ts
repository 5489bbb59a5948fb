/**
 * The base URL rule: HTTPS only, except plain HTTP to a loopback host, because the API key
 * travels in a header and must never cross a network in clear text.
 */
import { UsageError } from '../errors.js';
import { API_PREFIX } from './constants.js';

const HTTPS_HINT = 'Use https://, or http:// only for a loopback address (localhost, 127.0.0.1, ::1).';

/**
 * True for hosts that never leave this machine: `localhost`, `127.0.0.0/8`, `::1` (with or without brackets) and the
 * IPv4-mapped form of 127/8. Names such as `foo.localhost` are not trusted: a resolver may send them anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isLoopbackIPv4(h)) return true;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1); the URL parser writes it as ::ffff:7f00:1.
  const mapped = /^::ffff:(.+)$/.exec(h);
  if (mapped?.[1]) {
    const tail = mapped[1];
    if (isLoopbackIPv4(tail)) return true;
    return /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(tail);
  }
  return false;
}

function isLoopbackIPv4(h: string): boolean {
  const parts = h.split('.');
  if (parts.length !== 4) return false;
  if (!parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return false;
  return parts[0] === '127';
}

/**
 * Validates and normalises a user-given base URL:
 * trims; requires `https:` (or `http:` for a loopback host); rejects credentials, query and fragment;
 * appends `/api/v1` when there is no path; removes trailing slashes. Throws `UsageError` (exit 2) otherwise.
 *
 * `normaliseBaseUrl('https://api.example.com/')` → `'https://api.example.com/api/v1'`
 */
export function normaliseBaseUrl(raw: string): string {
  const text = raw.trim();
  if (text === '') {
    const hint = 'Set it with --base-url, TASKCTL_BASE_URL or `taskctl auth login --base-url URL`.';
    throw new UsageError('the base URL is empty', hint);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid base URL "${text}"`, 'Use a full URL such as https://api.example.com/api/v1.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    // `localhost:8787` parses as the scheme "localhost:"; say what was probably meant.
    const guess = /^[a-z0-9.-]+:\d+/i.test(text) ? ` Did you mean https://${text} (or http:// for localhost)?` : '';
    throw new UsageError(`unsupported base URL scheme "${url.protocol}" in "${text}"`, `${HTTPS_HINT}${guess}`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing to use ${url.origin}: plain HTTP would send the API key in clear text`, HTTPS_HINT);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      'the base URL must not contain a user name or password',
      'Remove them from the URL; the API key is set with `taskctl auth login` or TASKCTL_API_KEY.',
    );
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
    throw new UsageError(
      `the base URL must not have a query or fragment: "${text}"`,
      'Use scheme, host, port and path only, e.g. https://api.example.com/api/v1.',
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path === '' ? API_PREFIX : path}`;
}
