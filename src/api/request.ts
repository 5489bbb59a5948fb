/**
 * What one attempt produced, judged without side effects: a value, or the error to throw, the kind of failure and the
 * wait a retry would take. What each kind means (sent again? a write in doubt?) is retry-policy.ts's; client.ts does
 * the I/O and updates the rate limiter.
 */
import type { z } from 'zod';
import type { Redactor } from '../lib/redact.js';
import { formatDuration } from '../lib/durations.js';
import { CliError, MalformedResponseError, UnavailableError } from '../errors.js';
import { MAX_RESPONSE_BYTES } from './constants.js';
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
  inDoubt,
  rateLimitedFailure,
  retryAfterMs,
  retryDelay,
  transportFailure,
  type AskedWait,
  type Failure,
  type Method,
} from './resend-policy.js';
import { isAnswerTimeout, isCertificateCode, oneLineMessage, plainWords } from './transport.js';
import { ErrorResponseSchema, UNSAFE_ID_MARK, type ApiErrorBody } from './schemas.js';

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
  /** The base URL (`https://host/api/v1`), for the fix of an https URL that reached a plain-http server. */
  baseUrl: string;
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

function withCause(message: string, cause: unknown, hint?: string): UnavailableError {
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
function networkError(ctx: JudgeContext, ex: FailureExchange, failure: Failure, suffix: string): CliError {
  const { code } = ex;
  const label = requestLabel(ctx.endpoint);
  if (failure === 'deadline' || failure === 'not-sent-deadline') {
    const what =
      failure === 'not-sent-deadline'
        ? 'not sent: the deadline had passed'
        : `no answer from ${ctx.origin} before the deadline`;
    return withCause(`${label}: ${what}${suffix}`, ex.error, 'Allow more time with --timeout, or try again later.');
  }
  if (failure === 'too-large') {
    // An answer past the cap is unreadable like one of the wrong shape: the same server sends it again, so wait and
    // watch end at once too (each attempt would read 64 MiB more).
    const error = new MalformedResponseError(
      `${label}: ${ex.error instanceof Error ? ex.error.message : 'the answer is too large'}${suffix}`,
      `taskctl reads at most ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB per answer; check --base-url and any proxy in between.`,
    );
    error.cause = ex.error;
    return error;
  }
  if (failure === 'transport' && isAnswerTimeout(code)) {
    return withCause(
      `${label}: ${ctx.origin} did not send the complete answer within ${formatDuration(ctx.timeoutMs)}${suffix}`,
      ex.error,
      'The service is slow or unreachable: try again later, or raise --request-timeout.',
    );
  }
  if (failure === 'never-sent') {
    const text = `${label}: could not reach ${ctx.origin} (${plainWords(code)})${suffix}`;
    return withCause(text, ex.error, reachHint(ctx, code));
  }
  if (failure === 'transport') {
    return withCause(`${label} from ${ctx.origin}: ${plainWords(code)}${suffix}`, ex.error, reachHint(ctx, code));
  }
  const text = `${label}: the request to ${ctx.origin} failed (${ctx.scrub(oneLineMessage(ex.error))})${suffix}`;
  return withCause(text, ex.error, reachHint(ctx, code));
}

/** OpenSSL's answer to a server that does not speak TLS at all (plain HTTP on the port). */
const NOT_TLS_CODES: ReadonlySet<string> = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** A failed handshake in one line, without OpenSSL's internals; the private-CA hint only for a certificate refused. */
function tlsError(ctx: JudgeContext, ex: FailureExchange): UnavailableError {
  const label = requestLabel(ctx.endpoint);
  const { code } = ex;
  if (NOT_TLS_CODES.has(code)) {
    // Plain http is allowed on loopback only (base-url.ts), so only there is it the fix.
    const plain = ctx.baseUrl.replace(/^https:/i, 'http:');
    if (ctx.loopback) return withCause(`${label}: the server answered plain HTTP: use ${plain}`, ex.error);
    return withCause(
      `${label}: ${ctx.origin} answered plain HTTP, not TLS`,
      ex.error,
      'Check the port in --base-url: the service speaks HTTPS on its own port (plain http is for loopback only).',
    );
  }
  const text = `${label}: TLS connection to ${ctx.origin} failed (${code}: ${ctx.scrub(oneLineMessage(ex.error))})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return withCause(text, ex.error, 'The certificate names another host: check the host in --base-url.');
  if (isCertificateCode(code))
    return withCause(
      text,
      ex.error,
      'If the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate file.',
    );
  return withCause(
    text,
    ex.error,
    'Check --base-url (scheme, host, port) and any proxy in between (HTTPS_PROXY, NO_PROXY).',
  );
}

/** The error of a write whose outcome is unknown: a create reconciles; `taskctl api` reports it as in doubt (exit 8). */
function doubtError(
  ctx: JudgeContext,
  doubt: { detail: string; cause: unknown; rawMessage: string },
  ex: { sentAtMs: number; status: number | undefined },
): Error {
  if (ctx.raw) return outcomeUnknownError(doubt.rawMessage, doubt.cause, ctx.endpoint);
  return new AmbiguousCreateError(doubt.detail, { cause: doubt.cause, sentAtMs: ex.sentAtMs, status: ex.status });
}

/** A transport failure: its kind, and the error it ends in (a write in doubt is never an ordinary network error). */
export function judgeFailure<T>(ctx: JudgeContext, ex: FailureExchange, attempt: number): Verdict<T> {
  const { code } = ex;
  const failure = transportFailure(code, ex.neverSent === true);
  const base = { ok: false as const, failure, why: code, waitMs: retryDelay(failure, attempt, {}, ctx.random) };
  if (inDoubt(ctx.method, failure)) {
    const what = failure === 'too-large' ? 'the answer was too large to read' : plainWords(code);
    const detail = ex.status !== undefined ? `${what} while reading the HTTP ${ex.status} response` : what;
    const rawMessage = `${requestLabel(ctx.endpoint)}: ${detail}`;
    return { ...base, fail: () => doubtError(ctx, { detail, cause: ex.error, rawMessage }, ex) };
  }
  if (failure === 'tls') return { ...base, fail: () => tlsError(ctx, ex) };
  return { ...base, fail: (suffix) => networkError(ctx, ex, failure, suffix) };
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

/** A failed response as judge sees it, before the policy says whether a write is in doubt. */
interface Judged {
  failure: Failure;
  fail: (suffix: string) => Error;
  /** Short reason for the trace (`HTTP 503`). */
  why: string;
  /** What a write in doubt reports (`HTTP 502`, `unexpected response: …`). */
  doubt: string;
  /** The waits the answer asked for (429, 5xx). */
  asked?: AskedWait;
}

/** A complete response: parse with `schema`, and say what kind of failure anything else is. */
export function judgeResponse<T>(
  ctx: JudgeContext,
  schema: z.ZodType<T>,
  ex: ResponseExchange,
  attempt: number,
): Verdict<T> {
  const judged = judgeAnswer(ctx, schema, ex);
  if ('ok' in judged) return judged;
  const { failure, fail, why, doubt } = judged;
  const waitMs = retryDelay(failure, attempt, judged.asked ?? {}, ctx.random);
  const limited = failure === 'rate-limited' || failure === 'rate-limited-too-long';
  const base = { ok: false as const, failure, waitMs, why, ...(limited ? { blockUntilMs: ctx.now() + waitMs } : {}) };
  // The server answered, so the request arrived: a write that may have been carried out is reconciled, never resent.
  if (inDoubt(ctx.method, failure)) {
    const cause = fail('');
    return {
      ...base,
      why: doubt,
      fail: () => doubtError(ctx, { detail: doubt, cause, rawMessage: cause.message }, ex),
    };
  }
  return { ...base, fail };
}

function judgeAnswer<T>(
  ctx: JudgeContext,
  schema: z.ZodType<T>,
  ex: ResponseExchange,
): Judged | { ok: true; value: T } {
  const { status, headers } = ex;
  const contentType = headerValue(headers, 'content-type');
  const why = `HTTP ${status}`;

  if (status >= 300 && status < 400) {
    // Redirects are never followed, same origin or not: one rule is easy to trust, and the key must not travel.
    const location = headerValue(headers, 'location');
    const target = location === undefined ? undefined : ctx.scrub(location);
    const fail = () => redirectError(ctx.endpoint, status, target);
    // 303 (and 301/302, long turned into a GET by clients) is how a server answers a write it carried out ("see
    // there"). 307/308 ask for the same request to be made elsewhere: nothing was done here.
    return { failure: status <= 303 ? 'see-other' : 'refused', fail, why, doubt: `${why}, a redirect` };
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
      const doubt = nonJsonDetail(status, contentType, unreadable);
      return { failure: 'unreadable', fail: () => error, why, doubt };
    }
    const parsed = schema.safeParse(json.ok ? json.value : undefined);
    if (parsed.success) return { ok: true, value: parsed.data };
    const error = malformedResponseError(ctx.endpoint, rawIds(parsed.error.issues, ex.text));
    const doubt = `unexpected response: ${describeIssue(parsed.error.issues)}`;
    return { failure: 'unreadable', fail: () => error, why, doubt };
  }
  return judgeError(ctx, ex, json, unreadable);
}

/** A non-2xx answer, or a 2xx saying `success: false`. */
function judgeError(
  ctx: JudgeContext,
  ex: ResponseExchange,
  json: ParsedJson,
  unreadable: UnreadableReason | undefined,
): Judged {
  const { status, headers } = ex;
  const why = `HTTP ${status}`;
  const errorBody = json.ok ? ErrorResponseSchema.safeParse(json.value) : undefined;
  const body: ApiErrorBody | undefined = errorBody?.success
    ? { code: errorBody.data.code, message: ctx.scrub(errorBody.data.message) }
    : undefined;
  const contentType = headerValue(headers, 'content-type');
  const detailOption = unreadable === undefined ? {} : { detail: nonJsonDetail(status, contentType, unreadable) };
  const fail = (suffix: string) =>
    apiError(ctx.endpoint, status, body, { ...detailOption, suffix, authHint: ctx.authHint });
  const now = ctx.now();
  const date = headerValue(headers, 'date');
  const askedMs = retryAfterMs(headerValue(headers, 'retry-after'), now, date);

  if (classifyApiError(status, body?.code) === 'rateLimited') {
    const info = parseRateLimit(headers, now);
    const asked = { retryAfterMs: askedMs, resetInMs: info?.remaining === 0 ? info.resetAtMs - now : undefined };
    const failure = rateLimitedFailure(askedMs);
    const failTooLong = (suffix: string) => fail(`${suffix}; the server asks to wait ${formatDuration(askedMs ?? 0)}`);
    return { failure, fail: failure === 'rate-limited' ? fail : failTooLong, why, doubt: why, asked };
  }
  if (isServerFault(status, body?.code)) {
    const faultWhy = body?.code === 'internal_error' ? `HTTP ${status}, internal_error` : why;
    return { failure: 'server-fault', fail, why: faultWhy, doubt: faultWhy, asked: { retryAfterMs: askedMs } };
  }
  if (status === 408) return { failure: 'http-408', fail, why, doubt: why };
  // Definite answers (validation_error, insufficient_balance, not_found, unauthorized, unknown 4xx codes).
  return { failure: 'refused', fail, why, doubt: why };
}
