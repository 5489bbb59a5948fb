/**
 * Pure retry helpers (DESIGN.md section 5): backoff with jitter, Retry-After parsing, and the classification of
 * transport error codes. No I/O here; the client decides, these only compute.
 */

/** First retry waits about this long; each further retry doubles it. */
const BACKOFF_BASE_MS = 500;
/** Backoff never grows beyond this. */
export const BACKOFF_CAP_MS = 8_000;
/** Jitter takes away up to this fraction of the nominal delay. */
const BACKOFF_JITTER = 0.25;
/** A server's Retry-After is honoured up to this long; longer requests are clamped (or given up on by the client). */
export const RETRY_AFTER_MAX_MS = 60_000;

/**
 * Delay before retry number `attempt` (0 = the first retry): nominal `min(500 ms × 2^attempt, 8 s)`, minus up to 25 %
 * of random jitter, so the result lies in `[0.75 × nominal, nominal]`.
 * Subtractive jitter (openai-node's form) spreads clients apart without ever exceeding the documented cap.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const n = Number.isFinite(attempt) ? Math.max(0, Math.floor(attempt)) : 0;
  const nominal = Math.min(BACKOFF_BASE_MS * 2 ** Math.min(n, 30), BACKOFF_CAP_MS);
  let r = random();
  if (!Number.isFinite(r)) r = 0;
  r = Math.min(Math.max(r, 0), 1);
  return Math.round(nominal * (1 - BACKOFF_JITTER * r));
}

/**
 * Retry-After as milliseconds from `nowMs`, unclamped: delta-seconds (`120`, `1.5`) or an HTTP-date.
 * When the response's `Date` header is given, an HTTP-date is measured against it (server clock skew cancels out).
 * Garbage, negative numbers and impossible dates give `undefined`; dates in the past give 0.
 */
export function retryAfterMs(
  value: string | null | undefined,
  nowMs: number,
  dateHeader?: string | null,
): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) ? ms : undefined;
  }
  // An HTTP-date always contains letters (day or month names); this rejects "-5", "1e3" and the like.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  const serverNow = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  const reference = Number.isFinite(serverNow) ? serverNow : nowMs;
  return Math.max(0, at - reference);
}

/** {@link retryAfterMs} clamped to 0..60 s: the wait the client actually honours. */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
  dateHeader?: string | null,
): number | undefined {
  const ms = retryAfterMs(value, nowMs, dateHeader);
  return ms === undefined ? undefined : Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS);
}

/**
 * Transport failures that provably happen before a request reaches the server: nothing was received, so even a
 * non-idempotent POST may be sent again.
 */
export const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', // nobody listening: the TCP handshake itself was refused
  'ENOTFOUND', // DNS: the host name did not resolve, so no connection was made
  'EAI_AGAIN', // DNS: temporary resolver failure, no connection was made
  'UND_ERR_CONNECT_TIMEOUT', // the TCP/TLS connection was never established
]);

/** Transport failures worth retrying for an idempotent GET: the next attempt may well succeed. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  ...NEVER_SENT_CODES,
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * Not a transport code: the client cut the attempt because the command's deadline (`wait --timeout`) came. Never
 * retried (there is no time left); a create cut this way may still have reached the server.
 */
export const DEADLINE_CODE = 'TASKCTL_DEADLINE';

/** Not a transport code: the whole exchange (connect, headers, complete body) outlasted `--request-timeout`. */
export const REQUEST_TIMEOUT_CODE = 'TASKCTL_REQUEST_TIMEOUT';
/** Not a transport code: the body grew past MAX_RESPONSE_BYTES and was abandoned unread. */
export const TOO_LARGE_CODE = 'TASKCTL_TOO_LARGE';

/** Codes meaning "the server did not answer in time". */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  REQUEST_TIMEOUT_CODE,
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** Transport codes in plain words, for messages (the codes themselves stay in `--verbose`). */
const PLAIN_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'the name lookup failed for now',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer within the request timeout',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled past the request timeout',
  [REQUEST_TIMEOUT_CODE]: 'no complete answer within the request timeout',
  [DEADLINE_CODE]: 'no answer before the deadline',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection closed while sending',
  ECONNABORTED: 'the connection was aborted',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENETDOWN: 'the network is down',
  EHOSTDOWN: 'the host is down',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  UND_ERR_CLOSED: 'the connection closed before the answer was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was shorter or longer than announced',
};

/** `connection refused` for ECONNREFUSED; an unknown code is returned as it is (better than nothing). */
export function plainWords(code: string): string {
  return Object.hasOwn(PLAIN_WORDS, code) ? (PLAIN_WORDS[code] ?? code) : code;
}

/** TLS failures happen during the handshake (before the request is sent) and do not fix themselves on retry. */
export function isTlsErrorCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code === 'UND_ERR_PRX_TLS' ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)
  );
}

/** Waits in trace lines and messages: the one duration format (lib/durations.ts). */
export { formatDuration as formatSeconds } from '../lib/durations.js';

/** The `code` of an error or of the first error in its `cause` chain (undici and Node set one on network errors). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
