/**
 * What one attempt produced, judged without side effects: a value, or the error to throw, what kind of failure it was
 * and how long the server asked to wait. Whether to retry is decided once, by `shouldRetry` in `client.ts`, which also
 * does the I/O and updates the rate limiter.
 */
import type { z } from 'zod';
import type { Redactor } from '../lib/redact.js';
import { CliError, MalformedResponseError, UnavailableError } from '../errors.js';
import { MAX_RESPONSE_BYTES, type REQUEST_METHODS } from './constants.js';
import {
  AmbiguousCreateError,
  apiError,
  classifyApiError,
  describeIssue,
  isServerFault,
  malformedResponseError,
  nonJsonDetail,
  nonJsonResponseError,
  outcomeUnknownError,
  redirectError,
  requestLabel,
  type UnreadableReason,
} from './errors.js';
import { parseResponseJson, type ParsedJson } from './json.js';
import { headerValue, parseRateLimit } from './rate-limit.js';
import {
  backoffDelay,
  DEADLINE_CODE,
  formatSeconds,
  isTlsErrorCode,
  NEVER_SENT_CODES,
  parseRetryAfter,
  plainWords,
  RETRY_AFTER_MAX_MS,
  retryAfterMs,
  TIMEOUT_CODES,
  TOO_LARGE_CODE,
  TRANSIENT_CODES,
} from './retry.js';
import { ErrorResponseSchema, UNSAFE_ID_MARK, type ApiErrorBody } from './schemas.js';

/** GET is idempotent and may be resent; every other method is treated like a create (never resent once it may have arrived). */
export type Method = (typeof REQUEST_METHODS)[number];
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** A full response to one attempt. */
export interface ResponseExchange {
  kind: 'response';
  status: number;
  headers: ResponseHeaders;
  /** The body as text; empty when it was large and parsed while streaming (`parsed`). */
  text: string;
  /** A large body, parsed as it streamed in (the text was never held whole). */
  parsed?: (ParsedJson & { truncated?: boolean }) | undefined;
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

/**
 * The kinds of failure `shouldRetry` (client.ts) decides on. `ambiguous`: a create that may have reached the server.
 */
export type Failure =
  | 'never-sent'
  | 'transport'
  | 'unknown-transport'
  | 'deadline'
  | 'tls'
  | 'too-large'
  | 'ambiguous'
  | 'rate-limited'
  | 'rate-limited-too-long'
  | 'server-fault'
  | 'http-408'
  | 'unreadable'
  | 'refused';

/** After an attempt: a value, or how it failed, `fail(suffix)` building the error, and the wait a retry would take. */
export type Verdict<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      failure: Failure;
      fail: (suffix: string) => Error;
      /** The delay before another attempt, if one is made: the server's Retry-After, or backoff. */
      waitMs: number;
      /** Short reason for the trace (`HTTP 503`, `ECONNRESET`). */
      why: string;
      /** After a 429: nothing may be sent before this (epoch ms); the client tells the rate limiter. */
      blockUntilMs?: number;
    };

/** What the judge needs to know about the client. */
export interface JudgeContext {
  method: Method;
  /** `GET /balance`. */
  endpoint: string;
  /** `https://host`, for "could not reach" messages. */
  origin: string;
  /** True when `origin` is a loopback host (changes a hint). */
  loopback: boolean;
  /**
   * `taskctl api`: any 2xx body is the answer (text, empty, JSON of any shape) unless it is declared JSON and does not
   * parse; an outcome in doubt is reported as such (exit 8), since there is no create to reconcile. Default false.
   */
  raw?: boolean | undefined;
  /** The whole-request timeout of this request, for messages. */
  timeoutMs: number;
  /** Scrubs the API key from server text. */
  scrub: Redactor;
  now: () => number;
  random: () => number;
  /** The hint of a 401 (where the key came from); default AUTH_HINT. */
  authHint?: string | undefined;
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

/** A transport failure in plain words; the code itself is in the `--verbose` trace. */
function networkError(ctx: JudgeContext, ex: FailureExchange, suffix: string): UnavailableError {
  const { code } = ex;
  const label = requestLabel(ctx.endpoint);
  if (code === DEADLINE_CODE) {
    const what = ex.neverSent
      ? 'not sent: the deadline had passed'
      : `no answer from ${ctx.origin} before the deadline`;
    return withCause(`${label}: ${what}${suffix}`, ex.error, 'Allow more time with --timeout, or try again later.');
  }
  if (code === TOO_LARGE_CODE) {
    // An answer past the cap is unreadable like one of the wrong shape: the same server sends it again, so wait and
    // watch end at once too (each attempt would read 64 MiB more).
    const error = new MalformedResponseError(
      `${label}: ${ex.error instanceof Error ? ex.error.message : 'the answer is too large'}${suffix}`,
      `taskctl reads at most ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB per answer; check --base-url and any proxy in between.`,
    );
    error.cause = ex.error;
    return error;
  }
  if (TIMEOUT_CODES.has(code) && !NEVER_SENT_CODES.has(code)) {
    return withCause(
      `${label}: ${ctx.origin} did not send the complete answer within ${formatSeconds(ctx.timeoutMs)}${suffix}`,
      ex.error,
      'The service is slow or unreachable: try again later, or raise --request-timeout.',
    );
  }
  if (NEVER_SENT_CODES.has(code)) {
    return withCause(
      `${label}: could not reach ${ctx.origin} (${plainWords(code)})${suffix}`,
      ex.error,
      reachHint(ctx, code),
    );
  }
  if (TRANSIENT_CODES.has(code)) {
    return withCause(`${label} from ${ctx.origin}: ${plainWords(code)}${suffix}`, ex.error, reachHint(ctx, code));
  }
  const message = ctx.scrub(ex.error instanceof Error ? ex.error.message : String(ex.error));
  const text = `${label}: the request to ${ctx.origin} failed (${message})${suffix}`;
  return withCause(text, ex.error, reachHint(ctx, code));
}

/** A transport failure: what it means for this method. */
export function judgeFailure<T>(ctx: JudgeContext, ex: FailureExchange, attempt: number): Verdict<T> {
  const { code } = ex;
  const base = { ok: false as const, why: code, waitMs: backoffAfter(ctx, attempt) };
  if (isTlsErrorCode(code)) {
    const message = ctx.scrub(ex.error instanceof Error ? ex.error.message : String(ex.error));
    const fail = () =>
      withCause(
        `${requestLabel(ctx.endpoint)}: TLS connection to ${ctx.origin} failed (${code}: ${message})`,
        ex.error,
        'If the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate file.',
      );
    return { ...base, failure: 'tls', fail };
  }
  if (code === DEADLINE_CODE && ex.neverSent) {
    // Not sent at all, so not ambiguous even for a create.
    return { ...base, failure: 'deadline', fail: (suffix) => networkError(ctx, ex, suffix) };
  }
  const neverSent = NEVER_SENT_CODES.has(code);
  if (ctx.method !== 'GET' && !neverSent) {
    const what = code === TOO_LARGE_CODE ? 'the answer was too large to read' : plainWords(code);
    const detail = ex.status !== undefined ? `${what} while reading the HTTP ${ex.status} response` : what;
    const fail = ctx.raw
      ? () => outcomeUnknownError(`${requestLabel(ctx.endpoint)}: ${detail}`, ex.error, ctx.endpoint)
      : () => new AmbiguousCreateError(detail, { cause: ex.error, sentAtMs: ex.sentAtMs, status: ex.status });
    return { ...base, failure: 'ambiguous', fail };
  }
  const fail = (suffix: string) => networkError(ctx, ex, suffix);
  if (code === DEADLINE_CODE) return { ...base, failure: 'deadline', fail };
  if (code === TOO_LARGE_CODE) return { ...base, failure: 'too-large', fail };
  if (neverSent) return { ...base, failure: 'never-sent', fail };
  if (TRANSIENT_CODES.has(code) || TIMEOUT_CODES.has(code)) return { ...base, failure: 'transport', fail };
  return { ...base, failure: 'unknown-transport', fail };
}

/** An answer that leaves a non-GET request's outcome in doubt: never resent. `cause` is the error as a GET would see it. */
function ambiguous<T>(
  ctx: JudgeContext,
  detail: string,
  cause: CliError,
  ex: ResponseExchange,
  waitMs: number,
): Verdict<T> {
  const fail = ctx.raw
    ? () => outcomeUnknownError(cause.message, cause, ctx.endpoint)
    : () => new AmbiguousCreateError(detail, { cause, sentAtMs: ex.sentAtMs, status: ex.status });
  return { ok: false, failure: 'ambiguous', fail, waitMs, why: detail };
}

/** `taskctl api` shows any 2xx body, except one that claims to be JSON and is cut off or is not JSON. */
function rawBodyAcceptable(why: UnreadableReason, contentType: string | undefined): boolean {
  return why === 'empty' || why === 'too deep' || !/json/i.test(contentType ?? '');
}

/** `truncated` when the text is the start of a JSON document that stops early, else the parser's reason. */
function unreadableReason(text: string, why: 'invalid' | 'too deep' | 'empty'): UnreadableReason {
  if (why !== 'invalid') return why;
  try {
    JSON.parse(text);
  } catch (error) {
    // The parser stopped at the very end of the text: a document that began well and was cut off.
    const at = error instanceof Error ? /at position (\d+)/.exec(error.message)?.[1] : undefined;
    const message = error instanceof Error ? error.message : '';
    if (/end of (JSON )?input/i.test(message) || Number(at) >= text.trimEnd().length) return 'truncated';
  }
  return 'not JSON';
}

/**
 * An id beyond 2^53 was rounded by JSON.parse before the schema saw it: name the digits the server sent instead, found
 * in the body's text (a body large enough to be parsed while streaming has no text: the rounded value stays).
 */
function rawIds<T extends { message: string }>(issues: readonly T[], text: string): T[] {
  return issues.map((issue) => {
    if (!issue.message.includes(UNSAFE_ID_MARK) || text === '') return issue;
    const rounded = Number(/(\d+) is beyond/.exec(issue.message)?.[1]);
    const raw = [...text.matchAll(/"id"\s*:\s*(\d{16,})/g)].map((m) => m[1]).find((d) => Number(d) === rounded);
    if (raw === undefined) return issue;
    return {
      ...issue,
      message: `Invalid input: task id ${raw} is beyond 2^53, where a task id cannot be held exactly`,
    };
  });
}

/** A complete response: parse with `schema`, and say what kind of failure anything else is. */
export function judgeResponse<T>(
  ctx: JudgeContext,
  schema: z.ZodType<T>,
  ex: ResponseExchange,
  attempt: number,
): Verdict<T> {
  const { status, headers } = ex;
  // Anything but a GET may have acted on the server: an answer in doubt must not lead to sending it again.
  const isCreate = ctx.method !== 'GET';
  const contentType = headerValue(headers, 'content-type');
  const backoff = backoffAfter(ctx, attempt);
  const why = `HTTP ${status}`;

  if (status >= 300 && status < 400) {
    // Redirects are never followed, same origin or not: one rule is easy to trust, and the key must not travel.
    const location = headerValue(headers, 'location');
    const target = location === undefined ? undefined : ctx.scrub(location);
    // 303 (and 301/302, long turned into a GET by clients) is how a server answers a write it carried out ("see
    // there"): a create answered so may have made a task, so it is reconciled, never exit 8. 307/308 ask for the same
    // request to be made elsewhere: nothing was done here.
    if (isCreate && status <= 303) {
      return ambiguous(ctx, `${why}, a redirect`, redirectError(ctx.endpoint, status, target), ex, backoff);
    }
    return {
      ok: false,
      failure: 'refused',
      fail: () => redirectError(ctx.endpoint, status, target),
      waitMs: backoff,
      why,
    };
  }

  const json = ex.parsed ?? parseResponseJson(ex.text);
  const unreadable = json.ok
    ? undefined
    : ex.parsed
      ? ex.parsed.truncated
        ? 'truncated'
        : json.why === 'invalid'
          ? 'not JSON'
          : json.why
      : unreadableReason(ex.text, json.why);
  // A 2xx carrying `success: false` is a failure all the same.
  const saysFailure = json.ok && (json.value as { success?: unknown } | null)?.success === false;
  if (status >= 200 && status < 300 && !saysFailure) {
    if (unreadable !== undefined && !(ctx.raw === true && rawBodyAcceptable(unreadable, contentType))) {
      const error = nonJsonResponseError(ctx.endpoint, status, contentType, unreadable);
      // The server answered a create but we cannot read it: a task may well exist.
      if (isCreate) return ambiguous(ctx, nonJsonDetail(status, contentType, unreadable), error, ex, backoff);
      return { ok: false, failure: 'unreadable', fail: () => error, waitMs: backoff, why };
    }
    const parsed = schema.safeParse(json.ok ? json.value : undefined);
    if (parsed.success) return { ok: true, value: parsed.data };
    const error = malformedResponseError(ctx.endpoint, rawIds(parsed.error.issues, ex.text));
    if (isCreate)
      return ambiguous(ctx, `unexpected response: ${describeIssue(parsed.error.issues)}`, error, ex, backoff);
    return { ok: false, failure: 'unreadable', fail: () => error, waitMs: backoff, why };
  }

  const errorBody = json.ok ? ErrorResponseSchema.safeParse(json.value) : undefined;
  const body: ApiErrorBody | undefined = errorBody?.success
    ? { code: errorBody.data.code, message: ctx.scrub(errorBody.data.message) }
    : undefined;
  const detailOption = unreadable === undefined ? {} : { detail: nonJsonDetail(status, contentType, unreadable) };
  const fail = (suffix: string) =>
    apiError(ctx.endpoint, status, body, { ...detailOption, suffix, authHint: ctx.authHint });
  const now = ctx.now();
  const date = headerValue(headers, 'date');

  if (classifyApiError(status, body?.code) === 'rateLimited') {
    const askedMs = retryAfterMs(headerValue(headers, 'retry-after'), now, date);
    const info = parseRateLimit(headers, now);
    const resetMs = info?.remaining === 0 ? info.resetAtMs - now : undefined;
    const waitMs = Math.max(0, Math.min(askedMs ?? resetMs ?? backoff, RETRY_AFTER_MAX_MS));
    const blockUntilMs = now + waitMs;
    if (askedMs !== undefined && askedMs > RETRY_AFTER_MAX_MS) {
      const failTooLong = (suffix: string) => fail(`${suffix}; the server asks to wait ${formatSeconds(askedMs)}`);
      return { ok: false, failure: 'rate-limited-too-long', fail: failTooLong, waitMs, why, blockUntilMs };
    }
    return { ok: false, failure: 'rate-limited', fail, waitMs, why, blockUntilMs };
  }

  if (isServerFault(status, body?.code)) {
    const faultWhy = body?.code === 'internal_error' ? `HTTP ${status}, internal_error` : why;
    if (isCreate) return ambiguous(ctx, faultWhy, fail(''), ex, backoff);
    const waitMs = parseRetryAfter(headerValue(headers, 'retry-after'), now, date) ?? backoff;
    return { ok: false, failure: 'server-fault', fail, waitMs, why: faultWhy };
  }

  if (status === 408) return { ok: false, failure: 'http-408', fail, waitMs: backoff, why };

  // Definite answers (validation_error, insufficient_balance, not_found, unauthorized, unknown 4xx codes).
  return { ok: false, failure: 'refused', fail, waitMs: backoff, why };
}
