/**
 * The one resend policy: which failures of an attempt are sent again and why, which leave a write in doubt, how long to
 * wait (backoff with jitter, Retry-After, the reset of a spent rate-limit window, clamped to a minute), and when the
 * deadline or the request's budget leaves no time for another attempt. Pure: request.ts sends, names the failure and
 * waits; follow's failed rounds take the backoff. docs/behaviour.md#resend-policy describes it for users.
 */
import { MAX_ATTEMPTS, type REQUEST_METHODS } from './constants.js';
import { parseHttpDate } from '../lib/http-date.js';

/**
 * Not a transport code: the client cut the attempt because the command's deadline (`wait --timeout`) came. Never
 * resent (there is no time left); a create cut this way may still have reached the server.
 */
export const DEADLINE_CODE = 'TASKCTL_DEADLINE';

/** Not a transport code: the whole exchange (connect, headers, complete body) outlasted `--request-timeout`. */
export const REQUEST_TIMEOUT_CODE = 'TASKCTL_REQUEST_TIMEOUT';
/** Not a transport code: the body grew past MAX_RESPONSE_BYTES and was abandoned unread. */
export const TOO_LARGE_CODE = 'TASKCTL_TOO_LARGE';
/** Not a transport code: an http:// attempt reached a port that speaks TLS (tls-port.ts); nothing was processed. */
export const TLS_PORT_CODE = 'TASKCTL_TLS_PORT';
/**
 * Not a transport code: undici closed the connection at an answer out of turn, an interim `100 Continue` it never asked
 * for (RFC 9110 lets a server send one) or bytes with no request waiting; its 'bad response'. The same server does it
 * again, so it is read as an answer HTTP cannot read (never resent; a create's outcome is then found out).
 */
export const OUT_OF_TURN_CODE = 'TASKCTL_OUT_OF_TURN';

/** A certificate the handshake refused (self-signed, unknown issuer, expired, another host's): a CA or host matter. */
export function isCertificateCode(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code);
}

/** GET is idempotent and may be resent; every other method is treated as a write, like a create. */
export type Method = (typeof REQUEST_METHODS)[number];

/** The kinds of failure of one attempt, named by request.ts without regard to the method. */
export type Failure =
  /** Refused, DNS, connect timeout: the request never reached the server. */
  | 'never-sent'
  /** The command's deadline had passed before the attempt was sent. */
  | 'not-sent-deadline'
  /** The TLS handshake failed, before the request was written. */
  | 'tls'
  /** Reset, closed or timed out after sending. */
  | 'transport'
  /** A transport failure without a recognised code. */
  | 'unknown-transport'
  /** The command's deadline cut the attempt in flight. */
  | 'deadline'
  /** The answer grew past the size cap and was abandoned. */
  | 'too-large'
  /** 429, with a wait of at most a minute. */
  | 'rate-limited'
  /** 429 asking for a wait longer than a minute. */
  | 'rate-limited-too-long'
  /** 5xx or `internal_error`. */
  | 'server-fault'
  /** 408: the server stopped waiting for the request. */
  | 'http-408'
  /**
   * The answer stopped early: a body shorter than its Content-Length (the connection closed), or a 2xx whose JSON
   * ends mid-document at the end of the stream. The next answer may well be whole.
   */
  | 'cut-off'
  /**
   * A 2xx that is not JSON, too deep, empty, or of the wrong shape, or a 3xx that redirects nowhere (304): the same
   * server would send it again.
   */
  | 'unreadable'
  /** 301, 302 or 303: how a server answers a write it carried out ("see there"); never followed. */
  | 'see-other'
  /** A definite answer: validation, balance, auth, not found, unknown 4xx codes, 307/308. */
  | 'refused';

/**
 * The write rule, in one place: a request the server may have seen is sent again only when it is a read. A write
 * (POST /tasks) could pay twice; its caller reconciles instead.
 */
function isIdempotent(method: Method): boolean {
  return method === 'GET';
}

/** Failures after which the server may have received the request and acted on it. */
const MAY_HAVE_ACTED: ReadonlySet<Failure> = new Set<Failure>([
  'transport',
  'unknown-transport',
  'deadline',
  'too-large',
  'server-fault',
  'cut-off',
  'unreadable',
  'see-other',
]);

/** A write whose outcome is unknown after this failure: never resent, reported as in doubt (a create reconciles). */
export function inDoubt(method: Method, failure: Failure): boolean {
  return !isIdempotent(method) && MAY_HAVE_ACTED.has(failure);
}

/**
 * Whether a failure is worth another attempt, in stripe-node's `_shouldRetry` shape: every kind, and why. The
 * attempt count, the deadline and the budget are checked by {@link decideResend}.
 */
export function shouldResend(method: Method, failure: Failure): boolean {
  switch (failure) {
    // Nothing left this machine (refused, DNS, connect timeout): even a create cannot be duplicated by resending.
    case 'never-sent':
      return true;
    // 429: the server refused without acting on the request, so even a create may be sent again after the wait.
    case 'rate-limited':
      return true;
    // A blip after sending (reset, closed, timed out; an answer cut off; a 5xx or internal_error; a 408): the next
    // attempt may well succeed, but the server may have seen the request, so only a read is simply sent again.
    case 'transport':
    case 'cut-off':
    case 'server-fault':
    case 'http-408':
      return isIdempotent(method);
    // A Retry-After beyond a minute is not worth waiting for in a CLI: report the server's wish instead.
    case 'rate-limited-too-long':
      return false;
    // The command's deadline has come: there is no time for another attempt.
    case 'deadline':
    case 'not-sent-deadline':
      return false;
    // A rejected certificate is rejected again, and the handshake failed before anything was sent.
    case 'tls':
      return false;
    // The same server would send the same oversized, unparsable or ill-shaped body again.
    case 'too-large':
    case 'unreadable':
      return false;
    // Redirects are never followed (the key must not travel), and a definite answer does not change when resent.
    case 'see-other':
    case 'refused':
      return false;
    // Transport failures without a recognised code are more likely a bug than a blip.
    case 'unknown-transport':
      return false;
  }
}

/** The failures after which an attempt provably never reached the server's handling (`createTask`'s onNotProcessed). */
export type NotProcessedFailure = 'never-sent' | 'rate-limited' | 'rate-limited-too-long' | 'tls';

/** `failure` when it proves the attempt was never processed: nothing was handed over, the handshake failed, or a 429. */
export function notProcessed(failure: Failure): NotProcessedFailure | undefined {
  switch (failure) {
    case 'never-sent':
    case 'rate-limited':
    case 'rate-limited-too-long':
    case 'tls':
      return failure;
    default:
      return undefined;
  }
}

/** How a run of resends grows: `firstMs × factor^n`, capped at `capMs`. */
interface BackoffSchedule {
  firstMs: number;
  factor: number;
  capMs: number;
}

/** The client's attempts: 0.5 s, 1 s, 2 s, 4 s, then 8 s at most. */
const REQUEST_BACKOFF: BackoffSchedule = { firstMs: 500, factor: 2, capMs: 8_000 };
/** Jitter takes away up to this fraction of the nominal delay. */
const BACKOFF_JITTER = 0.25;
/** A server's Retry-After is honoured up to this long; a longer 429 is given up on (rate-limited-too-long). */
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * Delay before resend number `resend` (0 = the first resend) on `schedule`: the nominal delay minus up to 25 % of random
 * jitter, so the result lies in `[0.75 × nominal, nominal]`. Subtractive jitter (openai-node's form) spreads clients
 * apart without ever exceeding the cap.
 */
export function backoffDelay(
  resend: number,
  random: () => number = Math.random,
  schedule: BackoffSchedule = REQUEST_BACKOFF,
): number {
  const n = Number.isFinite(resend) ? Math.max(0, Math.floor(resend)) : 0;
  const nominal = Math.min(schedule.firstMs * schedule.factor ** Math.min(n, 30), schedule.capMs);
  let r = random();
  if (!Number.isFinite(r)) r = 0;
  r = Math.min(Math.max(r, 0), 1);
  return Math.round(nominal * (1 - BACKOFF_JITTER * r));
}

/** What an answer asked for: its Retry-After (unclamped ms), and the time until its spent rate-limit window resets. */
export interface AskedWait {
  retryAfterMs?: number | undefined;
  resetInMs?: number | undefined;
}

/** A 429's kind: a Retry-After beyond a minute is not worth waiting for in a CLI, so the server's wish is reported. */
export function rateLimitedFailure(retryAfterMs: number | undefined): 'rate-limited' | 'rate-limited-too-long' {
  return retryAfterMs !== undefined && retryAfterMs > RETRY_AFTER_MAX_MS ? 'rate-limited-too-long' : 'rate-limited';
}

/** The wait before the attempt after `attempt` (1-based), if one is made. */
export function resendDelay(failure: Failure, attempt: number, asked: AskedWait, random: () => number): number {
  const backoff = backoffDelay(attempt - 1, random);
  switch (failure) {
    // A 429 says when: its Retry-After, else the reset of the spent window, else backoff; a minute at most.
    case 'rate-limited':
    case 'rate-limited-too-long':
      return clampServerWait(asked.retryAfterMs ?? asked.resetInMs ?? backoff, backoff);
    // A 5xx may say when to come back (a minute at most); the reset of a window is no promise of recovery.
    case 'server-fault':
      return asked.retryAfterMs === undefined ? backoff : clampServerWait(asked.retryAfterMs, backoff);
    default:
      return backoff;
  }
}

/**
 * A wait the server asked for, a minute at most; one of nothing (`Retry-After: 0`, a date already past, a window
 * already reset) is the client's own `backoff`: four attempts in 21 ms would only add to a struggling service's load.
 */
function clampServerWait(ms: number, backoff: number): number {
  return ms <= 0 ? backoff : Math.min(ms, RETRY_AFTER_MAX_MS);
}

/**
 * Retry-After as milliseconds from `nowMs`, unclamped: delta-seconds (`120`, `1.5`) or an HTTP-date. When the
 * response's `Date` header is given, an HTTP-date is measured against it (server clock skew cancels out). Garbage,
 * negative numbers and impossible dates give `undefined`; dates in the past give 0.
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
  const at = parseHttpDate(text);
  if (!Number.isFinite(at)) return undefined;
  const serverNow = dateHeader ? parseHttpDate(dateHeader) : Number.NaN;
  const reference = Number.isFinite(serverNow) ? serverNow : nowMs;
  return Math.max(0, at - reference);
}

/** Where a failed attempt stands when the next one is considered. */
interface ResendState {
  method: Method;
  failure: Failure;
  /** 1-based number of the attempt that failed. */
  attempt: number;
  /** The wait the next attempt would take ({@link resendDelay}). */
  waitMs: number;
  now: number;
  /** The command's deadline (epoch ms), if any. */
  deadline: number | undefined;
  /** True when a 429's wait moves the deadline on (a view with a budget of the service's time). */
  deadlineMovesWithWaits: boolean;
  /** When the request's own budget (`--request-timeout`, back-off included) ends. */
  budgetEnd: number;
}

/** `final`: not worth another attempt, or the attempts are spent; `deadline`, `budget`: no time left for one. */
export type ResendStop = 'final' | 'deadline' | 'budget';

/** Whether to make another attempt, or why not. */
export function decideResend(state: ResendState): { resend: true } | { resend: false; stop: ResendStop } {
  const { failure, waitMs, now, deadline } = state;
  // Worth it only for the failures above, and at most MAX_ATTEMPTS times in all.
  if (!shouldResend(state.method, failure) || state.attempt >= MAX_ATTEMPTS) return { resend: false, stop: 'final' };
  // A wait the server announced (429) is not the request's time: it moves a budget view's deadline and the budget.
  const serverWait = failure === 'rate-limited';
  // Never sleep past the command's deadline: fail now with what we know.
  if (!(serverWait && state.deadlineMovesWithWaits) && deadline !== undefined && now + waitMs > deadline)
    return { resend: false, stop: 'deadline' };
  // Back-off counts against --request-timeout: a resend that cannot start within it is not made.
  if (!serverWait && now + waitMs >= state.budgetEnd) return { resend: false, stop: 'budget' };
  return { resend: true };
}

/**
 * Transport failures that provably happen before a request reaches the server: nothing was received, so even a
 * non-idempotent POST may be sent again.
 */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', // nobody listening: the TCP handshake itself was refused
  'ENOTFOUND', // DNS: the host name did not resolve, so no connection was made
  'EAI_AGAIN', // DNS: temporary resolver failure, no connection was made
  'UND_ERR_CONNECT_TIMEOUT', // the TCP/TLS connection was never established
]);

/** Transport failures worth resending for an idempotent GET: the next attempt may well succeed. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
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
  REQUEST_TIMEOUT_CODE,
]);

/** TLS failures happen during the handshake (before the request is sent) and do not fix themselves when resent. */
function isTlsErrorCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code === 'UND_ERR_PRX_TLS' ||
    code === TLS_PORT_CODE ||
    isCertificateCode(code)
  );
}

/** The kind of a transport failure; `neverSent` when the client knows it did not even hand the request over. */
export function transportFailure(code: string, neverSent: boolean): Failure {
  if (isTlsErrorCode(code)) return 'tls';
  if (code === DEADLINE_CODE) return neverSent ? 'not-sent-deadline' : 'deadline';
  if (code === TOO_LARGE_CODE) return 'too-large';
  if (NEVER_SENT_CODES.has(code)) return 'never-sent';
  if (TRANSIENT_CODES.has(code)) return 'transport';
  return 'unknown-transport';
}
