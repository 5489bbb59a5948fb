/**
 * The retry rules (DESIGN.md section 5) as pure decisions: given what one attempt produced, either a value, or an
 * error to throw and whether another attempt may follow. No undici here; `client.ts` does the I/O.
 */
import type { z } from 'zod';
import { UnavailableError } from '../errors.js';
import type { Redactor } from '../output/redact.js';
import {
  AmbiguousCreateError,
  apiError,
  classifyApiError,
  describeIssue,
  isServerFault,
  malformedResponseError,
  nonJsonDetail,
  nonJsonResponseError,
  redirectError,
} from './errors.js';
import { headerValue, parseRateLimit, type RateLimiter } from './rate-limit.js';
import {
  backoffDelay,
  DEADLINE_CODE,
  formatSeconds,
  isTlsErrorCode,
  NEVER_SENT_CODES,
  parseRetryAfter,
  RETRY_AFTER_MAX_MS,
  retryAfterMs,
  TIMEOUT_CODES,
  TRANSIENT_CODES,
} from './retry.js';
import { ErrorResponseSchema, type ApiErrorBody } from './schemas.js';

export type Method = 'GET' | 'POST';
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** A full response to one attempt. */
export interface ResponseExchange {
  kind: 'response';
  status: number;
  headers: ResponseHeaders;
  text: string;
  /** When the request was sent, epoch ms. */
  sentAtMs: number;
}

/** A transport failure; `status` is set when the headers had arrived and the body then failed. */
export interface FailureExchange {
  kind: 'failure';
  error: unknown;
  code: string;
  status: number | undefined;
  sentAtMs: number;
  /** True when the client knows the request never left (it was not even handed to the connection). */
  neverSent?: boolean;
}

export type Exchange = ResponseExchange | FailureExchange;

/** After an attempt: a value, or `fail(suffix)` building the error to throw, and `retry` when another attempt may follow. */
export type Verdict<T> =
  { ok: true; value: T } | { ok: false; fail: (suffix: string) => Error; retry?: { delayMs: number; why: string } };

/** What the judge needs to know about the client. */
export interface JudgeContext {
  method: Method;
  /** `GET /balance`. */
  endpoint: string;
  /** `https://host`, for "could not reach" messages. */
  origin: string;
  /** True when `origin` is a loopback host (changes a hint). */
  loopback: boolean;
  /** Headers/body timeout of this request, for messages. */
  timeoutMs: number;
  /** Scrubs the API key from server text. */
  scrub: Redactor;
  limiter: RateLimiter;
  now: () => number;
  random: () => number;
}

/** 1-based attempt number → backoff for the retry that follows it. */
function backoffAfter(ctx: JudgeContext, attempt: number): number {
  return backoffDelay(attempt - 1, ctx.random);
}

function withCause(message: string, cause: unknown, hint: string): UnavailableError {
  const error = new UnavailableError(message, hint);
  error.cause = cause;
  return error;
}

function reachHint(ctx: JudgeContext, code: string): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Check the host name in the base URL (${ctx.origin}) and your DNS.`;
  if (code === 'ECONNREFUSED' && ctx.loopback) {
    return 'Nothing is listening there: start the sandbox with `taskctl sandbox`, or check --base-url.';
  }
  return 'Check your network, proxy settings (HTTPS_PROXY, NO_PROXY) and --base-url, then try again.';
}

function networkError(ctx: JudgeContext, ex: FailureExchange, suffix: string): UnavailableError {
  const { code } = ex;
  if (code === DEADLINE_CODE) {
    const what = ex.neverSent
      ? 'not sent: the deadline had passed'
      : `no answer from ${ctx.origin} before the deadline`;
    return withCause(
      `${ctx.endpoint}: ${what}${suffix}`,
      ex.error,
      'Allow more time with --timeout, or try again later.',
    );
  }
  if (TIMEOUT_CODES.has(code) && !NEVER_SENT_CODES.has(code)) {
    return withCause(
      `${ctx.endpoint}: ${ctx.origin} did not answer within ${formatSeconds(ctx.timeoutMs)} (${code})${suffix}`,
      ex.error,
      'The service is slow or unreachable: try again later, or raise --request-timeout.',
    );
  }
  if (NEVER_SENT_CODES.has(code)) {
    return withCause(
      `${ctx.endpoint}: could not reach ${ctx.origin} (${code})${suffix}`,
      ex.error,
      reachHint(ctx, code),
    );
  }
  if (TRANSIENT_CODES.has(code)) {
    const message = `${ctx.endpoint}: the connection to ${ctx.origin} failed (${code})${suffix}`;
    return withCause(message, ex.error, reachHint(ctx, code));
  }
  const message = ctx.scrub(ex.error instanceof Error ? ex.error.message : String(ex.error));
  const text = `${ctx.endpoint}: request to ${ctx.origin} failed (${code}: ${message})${suffix}`;
  return withCause(text, ex.error, reachHint(ctx, code));
}

/** A transport failure: what it means for this method. */
export function judgeFailure<T>(ctx: JudgeContext, ex: FailureExchange, attempt: number): Verdict<T> {
  const { code } = ex;
  if (isTlsErrorCode(code)) {
    // A rejected certificate is rejected again on retry; and the handshake failed, so nothing was sent.
    const message = ctx.scrub(ex.error instanceof Error ? ex.error.message : String(ex.error));
    return {
      ok: false,
      fail: () =>
        withCause(
          `${ctx.endpoint}: TLS connection to ${ctx.origin} failed (${code}: ${message})`,
          ex.error,
          'If the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate file.',
        ),
    };
  }
  if (code === DEADLINE_CODE && ex.neverSent) {
    // Not sent at all, so not ambiguous even for a create; and no time is left for another attempt.
    return { ok: false, fail: (suffix) => networkError(ctx, ex, suffix) };
  }
  const neverSent = NEVER_SENT_CODES.has(code);
  if (ctx.method === 'POST' && !neverSent) {
    // The request may have reached the server: resending could create a second task. Reconcile instead.
    const detail = ex.status !== undefined ? `${code} while reading the HTTP ${ex.status} response` : code;
    return {
      ok: false,
      fail: () => new AmbiguousCreateError(detail, { cause: ex.error, sentAtMs: ex.sentAtMs, status: ex.status }),
    };
  }
  const fail = (suffix: string) => networkError(ctx, ex, suffix);
  // POST gets here only when the request never left, so a retry cannot duplicate a task; a GET is idempotent.
  if (neverSent || TRANSIENT_CODES.has(code)) {
    return { ok: false, fail, retry: { delayMs: backoffAfter(ctx, attempt), why: code } };
  }
  // Failures without a recognised code are not retried: they are more likely a bug than a blip.
  return { ok: false, fail };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function ambiguous<T>(detail: string, cause: unknown, ex: ResponseExchange): Verdict<T> {
  return {
    ok: false,
    fail: () => new AmbiguousCreateError(detail, { cause, sentAtMs: ex.sentAtMs, status: ex.status }),
  };
}

/** A complete response: parse with `schema`, map failures, and decide about retrying. */
export function judgeResponse<T>(
  ctx: JudgeContext,
  schema: z.ZodType<T>,
  ex: ResponseExchange,
  attempt: number,
): Verdict<T> {
  const { status, headers } = ex;
  const isCreate = ctx.method === 'POST';
  const contentType = headerValue(headers, 'content-type');

  if (status >= 300 && status < 400) {
    // Redirects are never followed, same origin or not: one rule is easy to trust, and the key must not travel.
    const location = headerValue(headers, 'location');
    const target = location === undefined ? undefined : ctx.scrub(location);
    return { ok: false, fail: () => redirectError(ctx.endpoint, status, target) };
  }

  const json = parseJson(ex.text);
  // A 2xx carrying `success: false` is a failure all the same.
  const saysFailure = json.ok && (json.value as { success?: unknown } | null)?.success === false;
  if (status >= 200 && status < 300 && !saysFailure) {
    if (!json.ok) {
      const error = nonJsonResponseError(ctx.endpoint, status, contentType);
      // The server answered a create but we cannot read it: a task may well exist.
      if (isCreate) return ambiguous(nonJsonDetail(status, contentType), error, ex);
      // An unreadable 2xx is not retried: the same server would send the same body again.
      return { ok: false, fail: () => error };
    }
    const parsed = schema.safeParse(json.value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const error = malformedResponseError(ctx.endpoint, parsed.error.issues);
    if (isCreate) return ambiguous(`unexpected response: ${describeIssue(parsed.error.issues)}`, error, ex);
    return { ok: false, fail: () => error };
  }

  const errorBody = json.ok ? ErrorResponseSchema.safeParse(json.value) : undefined;
  const body: ApiErrorBody | undefined = errorBody?.success
    ? { code: errorBody.data.code, message: ctx.scrub(errorBody.data.message) }
    : undefined;
  const detailOption = json.ok ? {} : { detail: nonJsonDetail(status, contentType) };
  const fail = (suffix: string) => apiError(ctx.endpoint, status, body, { ...detailOption, suffix });
  const now = ctx.now();
  const date = headerValue(headers, 'date');

  if (classifyApiError(status, body?.code) === 'rateLimited') {
    const askedMs = retryAfterMs(headerValue(headers, 'retry-after'), now, date);
    const info = parseRateLimit(headers, now);
    const resetMs = info !== undefined && info.remaining === 0 ? info.resetAtMs - now : undefined;
    const waitMs = Math.max(0, Math.min(askedMs ?? resetMs ?? backoffAfter(ctx, attempt), RETRY_AFTER_MAX_MS));
    // Tell the shared limiter: nothing goes out before the server said it may.
    ctx.limiter.limited(now + waitMs);
    if (askedMs !== undefined && askedMs > RETRY_AFTER_MAX_MS) {
      // Waiting more than a minute is not worth it in a CLI: report the server's wish instead.
      return { ok: false, fail: (suffix) => fail(`${suffix}; the server asks to wait ${formatSeconds(askedMs)}`) };
    }
    // 429: the server refused the request without acting on it, so even a create may be sent again.
    return { ok: false, fail, retry: { delayMs: waitMs, why: `HTTP ${status}` } };
  }

  if (isServerFault(status, body?.code)) {
    const why = body?.code === 'internal_error' ? `HTTP ${status}, internal_error` : `HTTP ${status}`;
    // 5xx / internal_error on a create: the server may have stored the task before failing.
    if (isCreate) return ambiguous(why, fail(''), ex);
    // 5xx / internal_error on a GET: usually transient, and reading twice is harmless.
    const delayMs = parseRetryAfter(headerValue(headers, 'retry-after'), now, date) ?? backoffAfter(ctx, attempt);
    return { ok: false, fail, retry: { delayMs, why } };
  }

  if (status === 408 && !isCreate) {
    // 408: the server timed the request out before handling it; a GET may simply be sent again.
    return { ok: false, fail, retry: { delayMs: backoffAfter(ctx, attempt), why: 'HTTP 408' } };
  }

  // Definite answers (validation_error, insufficient_balance, not_found, unauthorized, other 4xx): no retry.
  return { ok: false, fail };
}
