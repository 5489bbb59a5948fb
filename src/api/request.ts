/**
 * One request, from its first attempt to its value or its error: attempts paced by the rate limiter, each one sent and
 * its whole body read within the attempt's cut, the command's deadline and the size cap; each answer judged (what it
 * means, without side effects); resent or given up on as the resend policy says (resend-policy.ts), within the request's
 * one budget (`--request-timeout`). client.ts names the endpoints; wire.ts holds what a client's requests share.
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { CliError, MalformedResponseError, RateLimitError, UnavailableError, systemErrorWords } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { redactHeaders, type Redactor } from '../lib/redact.js';
import {
  MAX_ATTEMPTS,
  MAX_RESPONSE_BYTES,
  NO_ANSWER_NOTICE_MS,
  REQUEST_BUDGET_MS,
  GET_TIMEOUT_MS,
  POST_TIMEOUT_MS,
} from './constants.js';
import {
  AmbiguousCreateError,
  apiError,
  classifyApiError,
  cutOffError,
  cutOffWords,
  describeIssue,
  endpointLabel,
  isServerFault,
  MALFORMED_ANSWER_HINT,
  malformedResponseError,
  nonJsonDetail,
  nonJsonResponseError,
  outcomeUnknownError,
  outOfTurnError,
  redirectError,
  requestLabel,
  type BodyHeaders,
  type UnreadableReason,
} from './api-errors.js';
import type { StreamedJson } from './json-stream.js';
import { parseResponseJson, type JsonRefusal, type ParsedJson } from './response-json.js';
import { headerValue, parseRateLimit } from './rate-limit.js';
import {
  DEADLINE_CODE,
  decideResend,
  inDoubt,
  isCertificateCode,
  notProcessed,
  rateLimitedFailure,
  REQUEST_TIMEOUT_CODE,
  retryAfterMs,
  resendDelay,
  TLS_PORT_CODE,
  OUT_OF_TURN_CODE,
  TOO_LARGE_CODE,
  transportFailure,
  type AskedWait,
  type Failure,
  type Method,
  type NotProcessedFailure,
  type ResendStop,
} from './resend-policy.js';
import { ErrorResponseSchema, UNSAFE_ID_MARK, type ApiErrorBody } from './schemas.js';
import type { ApiClientOptions, Wire } from './wire.js';

// ── The request: attempts within one budget ──────────────────────────────────────────────────────────────────────

/**
 * When a view's calls must end (epoch ms; undefined = never). With `pausesForRateLimit` it moves on by every wait for
 * the rate limit, shared by the view's calls (`withBudget`); otherwise it is fixed (`withDeadline`).
 */
export interface Deadline {
  at: number | undefined;
  readonly pausesForRateLimit: boolean;
}

type Failed<T> = Exclude<Verdict<T>, { ok: true }>;

export async function call<T>(wire: Wire, spec: RequestSpec<T>, limit: Deadline): Promise<T> {
  const { clock, limiter } = wire;
  const budgetMs = budgetFor(wire.options, spec.method);
  const ctx = judgeContext(wire, spec, budgetMs);
  // The budget counts from the first attempt; waits for the rate limit (the limiter's, a 429's) are added to it.
  let budgetEnd = clock.now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    budgetEnd += await waitForLimiter(wire, limit);
    const deadline = limit.at;
    let verdict: Verdict<T>;
    try {
      const ex = await sendAttempt(wire, spec, attempt, deadline, budgetEnd);
      // Cut by the deadline's timer: the deadline is reached, though the clock may read a moment before it (a timer
      // can fire a little early by the clock), so no later call of this view or client sends with a millisecond left.
      if (ex.kind === 'failure' && ex.code === DEADLINE_CODE && limit.at !== undefined)
        limit.at = Math.min(limit.at, clock.now());
      if (spec.seen) spec.seen.last = ex.kind === 'response' ? ex : undefined;
      verdict = judge(ctx, spec, ex, attempt);
      // The limiter learns from every answer in this one place: the budget headers, and a 429's "not before".
      limiter.update(ex.rateLimit);
      if (!verdict.ok && verdict.blockUntilMs !== undefined) limiter.limited(verdict.blockUntilMs);
    } finally {
      limiter.release();
    }
    if (verdict.ok) return verdict.value;
    const decision = decideResend({
      method: spec.method,
      failure: verdict.failure,
      attempt,
      waitMs: verdict.waitMs,
      now: clock.now(),
      deadline: limit.at,
      deadlineMovesWithWaits: limit.pausesForRateLimit,
      budgetEnd,
    });
    tellObserver(spec, attempt, verdict, decision.resend);
    if (!decision.resend) throw giveUp(wire, verdict, attempt, decision.stop, budgetMs);
    // A wait the server announced (429) is not the request's time: the budget, and a budget view's deadline, move on.
    // A 429 that stated no wait is resent after backoff, within the budget like any other failure.
    if (verdict.failure === 'rate-limited' && verdict.stated === true) {
      budgetEnd += verdict.waitMs;
      if (limit.pausesForRateLimit && limit.at !== undefined) limit.at += verdict.waitMs;
    }
    await backOff(wire, verdict, attempt);
  }
}

function judgeContext(wire: Wire, spec: RequestSpec<unknown>, budgetMs: number): JudgeContext {
  return {
    method: spec.method,
    endpoint: endpointLabel(spec.method, spec.path),
    origin: wire.origin,
    baseUrl: wire.options.baseUrl,
    loopback: wire.loopback,
    // Messages name the limit that applies: the GET's whole budget, or a write's attempt timeout.
    timeoutMs: Number.isFinite(budgetMs) ? budgetMs : attemptTimeoutFor(wire.options, spec.method),
    attemptTimeoutMs: attemptTimeoutFor(wire.options, spec.method),
    raw: spec.raw,
    scrub: wire.scrub,
    now: () => wire.clock.now(),
    random: wire.random,
    authHint: wire.options.authHint,
  };
}

function judge<T>(ctx: JudgeContext, spec: RequestSpec<T>, ex: AttemptResult, attempt: number): Verdict<T> {
  return ex.kind === 'response' ? judgeResponse(ctx, spec.schema, ex, attempt) : judgeFailure<T>(ctx, ex, attempt);
}

/** Waits until the limiter lets an attempt go; answers how long that took (a view's budget deadline moves by it). */
async function waitForLimiter(wire: Wire, limit: Deadline): Promise<number> {
  const { clock } = wire;
  const waitStart = clock.now();
  await wire.limiter.acquire(wire.signal, limit.pausesForRateLimit ? undefined : limit.at, (waitMs, reason) => {
    wire.notices.announce(waitMs, `for ${reason}`);
  });
  const waited = clock.now() - waitStart;
  if (limit.pausesForRateLimit && limit.at !== undefined) limit.at += waited;
  if (waited > 0) wire.trace?.(`* waited ${formatDuration(waited)} for the rate-limit budget`);
  return waited;
}

/** A create's observer hears of each attempt that provably never reached the server, and whether another follows. */
function tellObserver<T>(spec: RequestSpec<T>, attempt: number, verdict: Failed<T>, resending: boolean): void {
  const failure = notProcessed(verdict.failure);
  if (failure) spec.observer?.onNotProcessed?.(attempt, { failure, why: verdict.why, resending });
}

/** How a request ended: the attempts made, and why no other followed (`budget`: its `budgetMs` was spent). */
export interface Ending {
  attempts: number;
  stop: ResendStop;
  budgetMs: number;
}

/**
 * An ending in words, after the error's own: the attempts (when more than one) and why no other followed, in one place
 * for every error (` after 2 attempts (no time left to try again before the deadline)`). A timeout's error names its
 * time already (`did not answer within 35s`): `timed` puts the attempts beside it (` (2 attempts)`), where a budget spent
 * is that same time, so not said twice.
 */
export function endingWords(end: Ending | undefined, timed = false): string {
  if (end === undefined) return '';
  const attempts = end.attempts > 1 ? `${end.attempts} attempts` : '';
  const noTime =
    end.stop === 'deadline'
      ? 'no time left to try again before the deadline'
      : end.stop === 'budget' && !timed
        ? `no time left to try again within --request-timeout ${formatDuration(end.budgetMs)}`
        : '';
  if (timed) {
    const words = [attempts, noTime].filter((w) => w !== '').join('; ');
    return words === '' ? '' : ` (${words})`;
  }
  return `${attempts === '' ? '' : ` after ${attempts}`}${noTime === '' ? '' : ` (${noTime})`}`;
}

/** The error a call ends with, saying why there was no further attempt. */
function giveUp<T>(wire: Wire, verdict: Failed<T>, attempt: number, stop: ResendStop, budgetMs: number): Error {
  if (stop === 'deadline') wire.trace?.(`* not trying again (${verdict.why}): the deadline comes first`);
  if (stop === 'budget') {
    wire.trace?.(`* not trying again (${verdict.why}): the request's ${formatDuration(budgetMs)} budget is spent`);
  }
  return verdict.fail({ attempts: attempt, stop, budgetMs });
}

/**
 * The trace names the failure by its code (`ECONNRESET`, `HTTP 503`); a person reads its words (`words`), first, and
 * short: a spinner's line is cut at the terminal's width, and `trying again in 0.5s` must still be on it at 80 columns.
 */
async function backOff<T>(wire: Wire, verdict: Failed<T>, attempt: number): Promise<void> {
  const { waitMs, why, words } = verdict;
  const wait = formatDuration(waitMs);
  wire.trace?.(`* trying again in ${wait} (${why}), attempt ${attempt + 1}/${MAX_ATTEMPTS}`);
  wire.options.onResend?.(`${words}; trying again in ${wait} (attempt ${attempt + 1}/${MAX_ATTEMPTS})`);
  const what =
    verdict.failure === 'rate-limited' && verdict.stated === true
      ? 'for the rate limit (the server asked to wait)'
      : `before trying again: ${words}`;
  wire.notices.announce(waitMs, what);
  await wire.clock.sleep(waitMs, wire.signal);
}

/**
 * One attempt's cut: anything but a GET may store or change things before answering, so it gets the longer one. A GET's
 * is 30 s, or, under a longer budget, all of it but what the default leaves for a resend (5 s): an answer that needs
 * 2 minutes to arrive is read within `--request-timeout 3m`, never cut at 30 s four times.
 */
function attemptTimeoutFor(options: ApiClientOptions, method: Method): number {
  if (method !== 'GET') return options.requestTimeoutMs ?? POST_TIMEOUT_MS;
  const budgetMs = options.requestTimeoutMs ?? REQUEST_BUDGET_MS;
  const attemptMs = options.attemptTimeoutMs ?? Math.max(GET_TIMEOUT_MS, budgetMs - RESEND_ROOM_MS);
  return Math.min(attemptMs, budgetMs);
}

/** How much later than an attempt's own cut undici's header and body timeouts are set: more than their coarseness. */
export const UNDICI_TIMER_SLACK_MS = 1_000;

/** What the default budget leaves after one cut attempt (35 s − 30 s): room for a quick resend. */
const RESEND_ROOM_MS = REQUEST_BUDGET_MS - GET_TIMEOUT_MS;

/** A GET's whole budget (attempts and back-off); writes have none beyond their attempt timeout. */
function budgetFor(options: ApiClientOptions, method: Method): number {
  return method === 'GET' ? (options.requestTimeoutMs ?? REQUEST_BUDGET_MS) : Number.POSITIVE_INFINITY;
}

// ── One attempt on the wire ────────────────────────────────────────────────────────────────────────────────

/**
 * Why an attempt of a create provably never reached the server: the failure's kind (`never-sent`: refused, DNS,
 * connect timeout; `rate-limited`: a 429; `tls`: the handshake failed), a short reason (`ECONNREFUSED`, `HTTP 429`),
 * and whether another attempt follows (false: the call rejects with the error).
 */
interface NotProcessed {
  failure: NotProcessedFailure;
  why: string;
  resending: boolean;
}

/** What `createTask` tells its caller of each attempt, synchronously (a journal may fsync in them). */
export interface CreateTaskObserver {
  /**
   * The attempt is handed to the connection now (`sentAtMs`, the client's clock), after every rate-limit wait: from
   * here on it may reach the server. Called once per attempt; an attempt cut before it (Ctrl-C or the deadline during
   * a wait) calls nothing and the call rejects.
   */
  onDispatch?: (attempt: number, sentAtMs: number) => void;
  /** The dispatched attempt provably never reached the server; `reason.resending` says whether another one follows. */
  onNotProcessed?: (attempt: number, reason: NotProcessed) => void;
}

interface RequestSpec<T> {
  method: Method;
  /** Relative to the base URL, e.g. `/tasks/42`. */
  path: string;
  query?: Record<string, number | undefined>;
  body?: unknown;
  /** A body already serialised (`taskctl api --input`): sent byte for byte instead of `body`. */
  bodyText?: string | undefined;
  schema: z.ZodType<T>;
  /** `taskctl api`: see JudgeContext.raw. */
  raw?: boolean | undefined;
  /** Receives each attempt's response (undefined after a transport failure), so `request` can return the last one. */
  seen?: { last?: ResponseExchange | undefined };
  /** `createTask`'s observer: each attempt's dispatch, and the attempts that provably never reached the server. */
  observer?: CreateTaskObserver | undefined;
}

/** An exchange, with the rate-limit headers its answer carried. */
type AttemptResult = Exchange & { rateLimit?: ReturnType<typeof parseRateLimit> };

/** The statuses that point elsewhere (RFC 9110 15.4); another 3xx is an answer out of turn. */
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** A wait a server states beyond this is said as "more than a week", not in hours by the million. */
const WEEK_MS = 7 * 86_400_000;

/** The longest delay setTimeout accepts (2^31 − 1 ms); longer ones fire immediately. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Response headers shown in `--verbose` traces. */
const TRACED_RESPONSE_HEADERS = [
  'content-type',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'location',
];

/** An error with a `code` of ours, handled by `judgeFailure` like a transport code. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const deadlineError = (when: 'before sending' | 'in flight') =>
  codedError(
    `the deadline passed ${when === 'in flight' ? 'before the answer came' : 'before the request was sent'}`,
    DEADLINE_CODE,
  );

/**
 * One attempt: send, read the whole body within the request timeout, the deadline and the size cap. Never throws
 * except on abort (the signal's reason).
 */
async function sendAttempt(
  wire: Wire,
  spec: RequestSpec<unknown>,
  attempt: number,
  deadline: number | undefined,
  budgetEnd: number,
): Promise<AttemptResult> {
  const { clock, signal } = wire;
  const { path, body, headers } = requestOf(wire, spec);
  const sentAtMs = clock.now();
  if (deadline !== undefined && sentAtMs >= deadline) {
    // Nothing was sent: even a create may fail here without any doubt about its outcome.
    const error = deadlineError('before sending');
    return { kind: 'failure', error, code: DEADLINE_CODE, status: undefined, sentAtMs, neverSent: true };
  }
  traceRequest(wire, spec.method, path, headers, body, attempt);
  // Outside the try: an observer that fails (a journal that cannot write) stops the send, and is not a network error.
  spec.observer?.onDispatch?.(attempt, sentAtMs);
  const timeoutMs = attemptTimeoutFor(wire.options, spec.method);
  const cut = attemptCut(wire, { timeoutMs, sentAtMs, deadline, budgetEnd });
  let status: number | undefined;
  let rateLimit: ReturnType<typeof parseRateLimit>;
  let announced = Number.NaN;
  const received = { bytes: 0 };
  const soFar = () => (status === undefined ? undefined : received.bytes);
  const noAnswer = noAnswerNotice(wire, spec.method, { timeoutMs, sentAtMs, deadline, budgetEnd }, soFar);
  try {
    const response = await wire.dispatcher.request({
      origin: wire.origin,
      path,
      method: spec.method,
      headers,
      body: body ?? null,
      // The attempt's own cut (above) ends it; undici's timers only stand behind it. They tick each half second and
      // date a timer from the tick before the one that starts it, so on a connection kept alive they may fire up to
      // half a second early: --request-timeout 1s cut at 0.5 s.
      headersTimeout: timeoutMs + UNDICI_TIMER_SLACK_MS,
      bodyTimeout: timeoutMs + UNDICI_TIMER_SLACK_MS,
      signal: cut.signal,
    });
    status = response.statusCode;
    const responseHeaders: ResponseHeaders = response.headers;
    wire.serverClock.note(headerValue(responseHeaders, 'date'), sentAtMs);
    rateLimit = parseRateLimit(responseHeaders, clock.now());
    traceResponse(wire, status, responseHeaders, clock.now() - sentAtMs);
    const length = headerValue(responseHeaders, 'content-length');
    announced = length === undefined ? Number.NaN : Number(length);
    const { text, parsed } = await readBounded(response.body, announced, spec.raw !== true, received);
    const bytes = received.bytes;
    return { kind: 'response', status, headers: responseHeaders, text, parsed, bytes, sentAtMs, rateLimit };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const transportCode = isOutOfTurn(error) ? OUT_OF_TURN_CODE : (errorCode(error) ?? parserCode(error));
    const tlsPort = status === undefined && (await tlsPortOf(wire.origin, error, transportCode));
    const code = tlsPort ? TLS_PORT_CODE : transportCode;
    const during = status !== undefined ? ` while reading the HTTP ${status} body` : '';
    wire.trace?.(`! ${spec.method} ${spec.path} failed: ${code}${during} (${clock.now() - sentAtMs} ms)`);
    const cutOff = status !== undefined && received.bytes < announced && closedEarly(code);
    const cut = cutOff ? { cutOff: { bytes: received.bytes, of: announced } } : {};
    // An attempt that ran out of its own time, with the budget and the deadline further off: the error names that cut.
    const ownCut = isAnswerTimeout(code) && timeoutMs < Math.min(budgetEnd, deadline ?? Infinity) - sentAtMs;
    const attempt = ownCut && Number.isFinite(budgetEnd) ? { attemptCutMs: timeoutMs } : {};
    return { kind: 'failure', error, code, status, sentAtMs, rateLimit, ...cut, ...attempt };
  } finally {
    noAnswer();
    cut.dispose();
  }
}

/**
 * After NO_ANSWER_NOTICE_MS of an attempt without its complete answer, `onNoAnswer` hears how long and when the request
 * gives up at the latest: a GET at its budget's end (a later attempt included), a write at its attempt's timeout,
 * either at the deadline; and `received`, what came of the body once the headers did (an answer still coming in is
 * not "no answer"). Returns what ends the notice (the attempt's end).
 */
function noAnswerNotice(
  wire: Wire,
  method: Method,
  at: { timeoutMs: number; sentAtMs: number; deadline: number | undefined; budgetEnd: number },
  received: () => number | undefined,
): () => void {
  const { onNoAnswer } = wire.options;
  if (onNoAnswer === undefined || wire.clock.after === undefined) return () => undefined;
  const givesUpAt = Math.min(
    at.deadline ?? Number.POSITIVE_INFINITY,
    method === 'GET' ? at.budgetEnd : at.sentAtMs + at.timeoutMs,
  );
  if (givesUpAt - at.sentAtMs <= NO_ANSWER_NOTICE_MS) return () => undefined;
  let end: (() => void) | undefined;
  const cancel = wire.clock.after(NO_ANSWER_NOTICE_MS, () => {
    end = onNoAnswer(NO_ANSWER_NOTICE_MS, givesUpAt, received);
  });
  return () => {
    cancel();
    end?.();
  };
}

/** True when a plain-http attempt that failed before any answer reached a port that speaks TLS (tls-port.ts). */
async function tlsPortOf(origin: string, error: unknown, code: string): Promise<boolean> {
  const parserError = error instanceof Error && error.name === 'HTTPParserError';
  if (!origin.startsWith('http:') || (!parserError && code !== 'UND_ERR_SOCKET')) return false;
  return (await import('./tls-port.js')).answeredInTls(origin, error, code);
}

/**
 * A body that ended before its Content-Length because the connection closed (reset, closed, an unknown transport
 * error): cut off. A timeout is not (the server was slow, not cut), nor our own cuts (deadline, size cap).
 */
function closedEarly(code: string): boolean {
  const failure = transportFailure(code, false);
  return (failure === 'transport' || failure === 'unknown-transport') && !isAnswerTimeout(code);
}

/** The request's path under the base URL with its query, its body as text, and its headers. */
function requestOf(wire: Wire, spec: RequestSpec<unknown>) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(spec.query ?? {}))
    if (value !== undefined) search.set(name, String(value));
  const path = `${wire.basePath}${spec.path}${search.size > 0 ? `?${search.toString()}` : ''}`;
  const body = spec.bodyText ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body));
  const headers: Record<string, string> = {
    ...wire.headers,
    ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  return { path, body, headers };
}

/**
 * One timer bounds the whole attempt (connect, headers and the complete body): a server that drips a byte a second,
 * or never stops sending, is cut at the attempt's timeout (shortened to what is left of the request's budget), or
 * earlier at the command's deadline. Ctrl-C cuts it too.
 */
function attemptCut(
  wire: Wire,
  at: { timeoutMs: number; sentAtMs: number; deadline: number | undefined; budgetEnd: number },
): { signal: AbortSignal; dispose: () => void } {
  const { signal } = wire;
  const cut = new AbortController();
  const forwardAbort = () => {
    cut.abort(signal?.reason);
  };
  signal?.addEventListener('abort', forwardAbort, { once: true });
  const untilDeadline = at.deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, at.deadline - at.sentAtMs);
  const attemptMs = Math.max(0, Math.min(at.timeoutMs, at.budgetEnd - at.sentAtMs));
  const deadlineFirst = untilDeadline < attemptMs;
  const cutAfterMs = Math.min(untilDeadline, attemptMs);
  const reason = () =>
    deadlineFirst
      ? deadlineError('in flight')
      : codedError(`no complete answer within ${formatDuration(at.timeoutMs)}`, REQUEST_TIMEOUT_CODE);
  // Beyond setTimeout's range (~24.8 days) Node would fire at once; no request lives that long anyway.
  const timer = cutAfterMs > MAX_TIMER_MS ? undefined : setTimeout(() => cut.abort(reason()), cutAfterMs);
  return {
    signal: cut.signal,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    },
  };
}

function traceRequest(
  wire: Wire,
  method: Method,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  attempt: number,
): void {
  const { trace } = wire;
  if (!trace) return;
  trace(`> ${method} ${wire.origin}${path}${attempt > 1 ? ` (attempt ${attempt}/${MAX_ATTEMPTS})` : ''}`);
  for (const [name, value] of Object.entries(redactHeaders(headers))) trace(`> ${name}: ${value}`);
  if (body !== undefined) trace(`> (JSON body, ${Buffer.byteLength(body)} bytes)`);
}

function traceResponse(wire: Wire, status: number, headers: ResponseHeaders, elapsedMs: number): void {
  const { trace } = wire;
  if (!trace) return;
  trace(`< ${status} (${elapsedMs} ms)`);
  const shown: Record<string, string> = {};
  for (const name of TRACED_RESPONSE_HEADERS) {
    const value = headerValue(headers, name);
    if (value !== undefined) shown[name] = value;
  }
  for (const [name, value] of Object.entries(redactHeaders(shown))) trace(`< ${name}: ${value}`);
}

const MIB = 1024 * 1024;
/** Bodies up to this size are read as text and parsed whole; larger ones are parsed as they stream in. */
const STREAM_FROM_BYTES = MIB;
type StreamedParse = ReturnType<StreamedJson['end']>;

/**
 * Reads a body within MAX_RESPONSE_BYTES: refused up front by its Content-Length, else counted while streaming and
 * abandoned (the stream destroyed, the connection dropped) the moment it passes the cap. Never buffers more.
 */
async function readBounded(
  body: Dispatcher.ResponseData['body'],
  announced: number,
  streamable: boolean,
  received: { bytes: number },
): Promise<{ text: string; parsed?: StreamedParse }> {
  const tooLarge = (extra: string) =>
    codedError(`the answer is larger than ${MAX_RESPONSE_BYTES / MIB} MiB${extra}`, TOO_LARGE_CODE);
  if (announced > MAX_RESPONSE_BYTES) {
    body.destroy();
    throw tooLarge(` (${Math.ceil(announced / MIB)} MiB announced)`);
  }
  // Decoded chunk by chunk (a character split across chunks is held by the decoder), so the bytes are never held next
  // to their text: peak memory is the text, not twice the body. TextDecoder drops a leading BOM, as `text()` did.
  // Past STREAM_FROM_BYTES the text is not kept at all: it is parsed as it comes (json-stream.ts), so a large answer is
  // held once, as its parsed value.
  const decoder = new TextDecoder();
  let parts: string[] = [];
  let stream: StreamedJson | undefined;
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    received.bytes = total;
    if (total > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw tooLarge('');
    }
    const text = decoder.decode(chunk, { stream: true });
    if (stream) {
      stream.push(text);
      // Refused already (too deep, too many objects): the rest of the body would change nothing.
      if (stream.refused() !== undefined) {
        body.destroy();
        return { text: '', parsed: stream.end() };
      }
    } else parts.push(text);
    if (!stream && streamable && total > STREAM_FROM_BYTES) {
      stream = await streamFrom(parts);
      parts = [];
    }
  }
  const rest = decoder.decode();
  if (stream) {
    stream.push(rest);
    return { text: '', parsed: stream.end() };
  }
  parts.push(rest);
  return { text: parts.join('') };
}

/** A parser fed with the text read so far, for an answer too large to hold as text and parse whole. */
async function streamFrom(parts: readonly string[]): Promise<StreamedJson> {
  // V8 lets garbage grow the heap to a multiple of what is live before it collects; in its memory-saving mode it
  // collects sooner (1,000,000 items in ndjson: 433 -> 281 MB peak). Only for this run. node:v8 only here: a static
  // import would cost every command 2-3 ms of start-up.
  process.getBuiltinModule('node:v8').setFlagsFromString('--optimize-for-size');
  const { streamJson } = await import('./json-stream.js');
  const stream = streamJson();
  for (const part of parts) stream.push(part);
  return stream;
}

// ── What an answer means ────────────────────────────────────────────────────────────────────────────────

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
  /** The body's length in bytes, as received. */
  bytes: number;
  /** When the request was sent, epoch ms. */
  sentAtMs: number;
}

/** A transport failure; `status` is set when the headers had arrived and the body then failed. */
interface FailureExchange {
  kind: 'failure';
  error: unknown;
  code: string;
  status: number | undefined;
  sentAtMs: number;
  /** True when the client knows the request never left (it was not even handed to the connection). */
  neverSent?: boolean;
  /** The connection closed after `bytes` of the `of` bytes its Content-Length announced. */
  cutOff?: { bytes: number; of: number };
  /** A GET attempt that timed out at its own cut (ms), the request's budget not yet spent. */
  attemptCutMs?: number;
}

type Exchange = ResponseExchange | FailureExchange;

/** After an attempt: a value, or how it failed, `fail(ending)` building the error, and the wait a resend would take. */
type Verdict<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      failure: Failure;
      /** The error the request ends with; without an ending, this attempt's alone (the first, nothing more said). */
      fail: (end?: Ending) => Error;
      /** The delay before another attempt, if one is made: the server's Retry-After, or backoff. */
      waitMs: number;
      /** Short reason for the trace (`HTTP 503`, `ECONNRESET`). */
      why: string;
      /**
       * The reason in a few words, for what a person reads of a resend (a spinner's text, a wait's notice): `no answer
       * in 30s`, `connection reset`, `server error (HTTP 503)`. Never a code.
       */
      words: string;
      /** After a 429: nothing may be sent before this (epoch ms); the client tells the rate limiter. */
      blockUntilMs?: number;
      /** After a 429: the wait is one the server stated (Retry-After, a readable reset), not backoff. */
      stated?: true;
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
  /** One attempt's timeout, for the words of a resend after it (`no answer in 30s`); default `timeoutMs`. */
  attemptTimeoutMs?: number | undefined;
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
  if (code === 'ECONNREFUSED' && ctx.loopback) return refusedOnLoopback(ctx.origin);
  return 'Check your network, proxy settings (HTTPS_PROXY, NO_PROXY) and --base-url, then try again.';
}

/** The sandbox's port when none is given (sandbox/defaults.ts). */
const SANDBOX_PORT = '8787';

/**
 * Nothing listens at a loopback base URL: the sandbox is the fix only where it can listen (plain http, a port it may
 * take): `taskctl sandbox` on its own port, `--port N` on another one; else the base URL is the thing to check.
 */
function refusedOnLoopback(origin: string): string {
  const url = new URL(origin);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (url.protocol === 'http:' && port === SANDBOX_PORT)
    return 'Nothing is listening there: start the sandbox with `taskctl sandbox`, or check --base-url.';
  // Ports below 1024 need privileges a sandbox should not have; the sandbox speaks plain http only.
  if (url.protocol === 'http:' && Number(port) >= 1024)
    return `Nothing is listening on port ${port}: start the sandbox there with \`taskctl sandbox --port ${port}\`, or check --base-url.`;
  return `Nothing is listening on port ${port}: check --base-url (the sandbox listens on port ${SANDBOX_PORT} unless told otherwise).`;
}

/** A transport failure in plain words; the code itself is in the `--verbose` trace. */
function networkError(ctx: JudgeContext, ex: FailureExchange, failure: Failure, end?: Ending): CliError {
  const { code } = ex;
  const suffix = endingWords(end);
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
    // Said by what came: no answer at all (a stopped server: no status line), or an answer whose body did not end.
    const what = ex.status === undefined ? 'did not answer' : 'did not finish its answer';
    // Said by what ran out: the request's whole time (`within 3m`), or its last attempt's own cut, the budget not spent.
    if (ex.attemptCutMs !== undefined) {
      const last = (end?.attempts ?? 1) > 1 ? 'its last attempt' : 'its attempt';
      return withCause(
        `${label}: ${ctx.origin} ${what}: ${last} was cut at ${formatDuration(ex.attemptCutMs)}${endingWords(end, true)}`,
        ex.error,
        `The service is slow or unreachable: try again later, or raise --request-timeout (one attempt may take all of it but ${formatDuration(RESEND_ROOM_MS)}).`,
      );
    }
    return withCause(
      `${label}: ${ctx.origin} ${what} within ${formatDuration(ctx.timeoutMs)}${endingWords(end, true)}`,
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
  if (isUnreadableHttp(code)) {
    // The answer came but HTTP itself could not read it: the same server sends it again, so it is final (not resent;
    // wait and watch end at once), advised like a body that is not the API's.
    const error = new MalformedResponseError(`${label}: ${plainWords(code)}${suffix}`, MALFORMED_ANSWER_HINT);
    error.cause = ex.error;
    return error;
  }
  const text = `${label}: the request to ${ctx.origin} failed (${ctx.scrub(oneLineMessage(ex.error))})${suffix}`;
  return withCause(text, ex.error, reachHint(ctx, code));
}

/** OpenSSL's answer to a server that does not speak TLS at all (plain HTTP on the port). */
const NOT_TLS_CODES: ReadonlySet<string> = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** What a failed handshake means: the certificate's problem (errors.ts's words), a refusal, or the handshake. */
function tlsWords(code: string): string {
  const words = systemErrorWords(code);
  if (words !== systemErrorWords(undefined)) return words;
  if (isCertificateCode(code)) return 'its TLS certificate is not trusted here';
  return code.includes('ALERT') ? 'the server refused the handshake' : 'the handshake failed';
}

/** A failed handshake in one line, without OpenSSL's internals; the private-CA hint only for a certificate refused. */
function tlsError(ctx: JudgeContext, ex: FailureExchange): UnavailableError {
  const label = requestLabel(ctx.endpoint);
  const { code } = ex;
  if (code === TLS_PORT_CODE) {
    return withCause(`${label}: the server answered in TLS: use ${ctx.baseUrl.replace(/^http:/i, 'https:')}`, ex.error);
  }
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
  // The code itself is in the `--verbose` trace; people get its meaning.
  const text = `${label}: TLS connection to ${ctx.origin} failed: ${tlsWords(code)}`;
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
  const { code, cutOff } = ex;
  const failure = cutOff ? 'cut-off' : transportFailure(code, ex.neverSent === true);
  const waitMs = resendDelay(failure, attempt, {}, ctx.random);
  const base = { ok: false as const, failure, why: code, words: transportWords(ctx, ex, failure), waitMs };
  if (cutOff && ex.status !== undefined) {
    const words = cutOffWords(ex.status, cutOff.bytes, cutOff.of);
    const cut = {
      ...base,
      why: `${code}, cut off after ${cutOff.bytes} of ${cutOff.of} bytes`,
      words: CUT_OFF_WORDS,
    };
    if (!inDoubt(ctx.method, failure))
      return { ...cut, fail: (end) => cutOffError(ctx.endpoint, words, endingWords(end)) };
    const detail = `${words.words}, ${words.particulars}`;
    const rawMessage = `${requestLabel(ctx.endpoint)}: ${detail}`;
    return { ...cut, fail: () => doubtError(ctx, { detail, cause: ex.error, rawMessage }, ex) };
  }
  if (inDoubt(ctx.method, failure)) {
    const what = failure === 'too-large' ? 'the answer was too large to read' : plainWords(code);
    const detail = ex.status !== undefined ? `${what} while reading the HTTP ${ex.status} response` : what;
    const rawMessage = `${requestLabel(ctx.endpoint)}: ${detail}`;
    return { ...base, fail: () => doubtError(ctx, { detail, cause: ex.error, rawMessage }, ex) };
  }
  if (failure === 'tls') return { ...base, fail: () => tlsError(ctx, ex) };
  return { ...base, fail: (end) => networkError(ctx, ex, failure, end) };
}

/** What the answer's headers say of its body, for the message when it cannot be read. */
function bodyHeaders(headers: ResponseHeaders): BodyHeaders {
  return {
    contentType: headerValue(headers, 'content-type'),
    contentEncoding: headerValue(headers, 'content-encoding'),
  };
}

/** `taskctl api` shows any 2xx body, except one that claims to be JSON and is cut off or is not JSON. */
function rawBodyAcceptable(why: UnreadableReason, contentType: string | undefined): boolean {
  return why === 'empty' || why === 'too deep' || why === 'too large' || !/json/i.test(contentType ?? '');
}

/** `truncated` when the text is the start of a JSON document that stops early, else the parser's reason. */
function unreadableReason(text: string, why: JsonRefusal): UnreadableReason {
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
      message: `task id ${raw} is beyond 2^53, where a task id cannot be held exactly`,
    };
  });
}

/** A failed response as judge sees it, before the policy says whether a write is in doubt. */
interface Judged {
  failure: Failure;
  fail: (end?: Ending) => Error;
  /** Short reason for the trace (`HTTP 503`). */
  why: string;
  /** The reason in a few words, for a resend's notice (`server error (HTTP 503)`). */
  words: string;
  /** What a write in doubt reports (`HTTP 502`, `unexpected response: …`). */
  doubt: string;
  /** The waits the answer asked for (429, 5xx). */
  asked?: AskedWait;
}

/** Whether a 429 said how long to wait: a Retry-After, or the reset of its empty window, that could be read. */
function statedWait(asked: AskedWait | undefined): boolean {
  return asked?.retryAfterMs !== undefined || asked?.resetInMs !== undefined;
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
  const { failure, fail, why, words, doubt } = judged;
  const waitMs = resendDelay(failure, attempt, judged.asked ?? {}, ctx.random);
  const limited = failure === 'rate-limited' || failure === 'rate-limited-too-long';
  const base = {
    ok: false as const,
    failure,
    waitMs,
    why,
    words,
    ...(limited ? { blockUntilMs: ctx.now() + waitMs } : {}),
    ...(limited && statedWait(judged.asked) ? { stated: true as const } : {}),
  };
  // The server answered, so the request arrived: a write that may have been carried out is reconciled, never resent.
  if (inDoubt(ctx.method, failure)) {
    const cause = fail();
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

  if (status >= 300 && status < 400 && !REDIRECTS.has(status)) {
    // A 3xx that points nowhere (300, 304 to a request that named no version, 305, 306): no answer to this request,
    // and a write may have been carried out all the same (a create reconciles).
    const words = 'an answer no request asked for';
    const fail = () => outOfTurnError(ctx.endpoint, status);
    return { failure: 'unreadable', fail, why, words: `${words} (HTTP ${status})`, doubt: `${why}, ${words}` };
  }
  if (REDIRECTS.has(status)) {
    // Redirects are never followed, same origin or not: one rule is easy to trust, and the key must not travel.
    const location = headerValue(headers, 'location');
    const target = location === undefined ? undefined : ctx.scrub(location);
    const fail = () => redirectError(ctx.endpoint, status, target);
    // 303 (and 301/302, long turned into a GET by clients) is how a server answers a write it carried out ("see
    // there"). 307/308 ask for the same request to be made elsewhere: nothing was done here.
    const words = `redirect (HTTP ${status})`;
    return { failure: status <= 303 ? 'see-other' : 'refused', fail, why, words, doubt: `${why}, a redirect` };
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
      if (unreadable === 'truncated') {
        // The answer began as the API's and stopped early: sent again like a reset, never blamed on --base-url.
        const words = cutOffWords(status, ex.bytes);
        const fail = (end?: Ending) => cutOffError(ctx.endpoint, words, endingWords(end));
        const doubt = `${words.words}, ${words.particulars}`;
        return { failure: 'cut-off', fail, why: `${why}, cut off`, words: CUT_OFF_WORDS, doubt };
      }
      const answer = bodyHeaders(headers);
      const error = nonJsonResponseError(ctx.endpoint, status, answer, unreadable);
      const doubt = nonJsonDetail(status, answer, unreadable);
      return { failure: 'unreadable', fail: () => error, why, words: UNREADABLE_WORDS, doubt };
    }
    const parsed = schema.safeParse(json.ok ? json.value : undefined);
    if (parsed.success) return { ok: true, value: parsed.data };
    const error = malformedResponseError(ctx.endpoint, rawIds(parsed.error.issues, ex.text));
    const doubt = `unexpected response: ${describeIssue(parsed.error.issues)}`;
    return { failure: 'unreadable', fail: () => error, why, words: UNREADABLE_WORDS, doubt };
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
  const limited = classifyApiError(status, body?.code) === 'rateLimited';
  // A 429 is the rate limit whatever its body (the contract leaves its content type open): said as one.
  const detailOption =
    unreadable === undefined || limited ? {} : { detail: nonJsonDetail(status, bodyHeaders(headers), unreadable) };
  const now = ctx.now();
  const date = headerValue(headers, 'date');
  const askedMs = retryAfterMs(headerValue(headers, 'retry-after'), now, date);
  /** What to do after the last attempt: try again once the wait the server stated is over (years are not a time). */
  const tryAgain = (waitMs: number | undefined) =>
    waitMs === undefined || waitMs <= 0
      ? ''
      : `; try again in ${waitMs > WEEK_MS ? 'more than a week' : formatDuration(waitMs)}`;
  const fail = (end?: Ending, tail = '') =>
    apiError(ctx.endpoint, status, body, { ...detailOption, suffix: endingWords(end), tail, authHint: ctx.authHint });

  if (limited) {
    const info = parseRateLimit(headers, now);
    // An empty window's reset is a wait the server stated only when it sent one it can read (else: backoff).
    const stated = info?.remaining === 0 && info.resetAssumed !== true;
    const asked = { retryAfterMs: askedMs, resetInMs: stated ? info.resetAtMs - now : undefined };
    const failure = rateLimitedFailure(askedMs);
    // The window the refusal states (Retry-After first, unclamped; else an empty window's reset), for `auth status`:
    // none when it ends past the last instant a date can hold (a Retry-After of 10^18 seconds).
    const waitMs = askedMs ?? asked.resetInMs;
    const resetAtMs =
      waitMs !== undefined && Number.isFinite(new Date(now + waitMs).getTime()) ? now + waitMs : undefined;
    const withWindow = (error: CliError): CliError => {
      if (error instanceof RateLimitError && resetAtMs !== undefined)
        error.window = { resetAtMs, ...(info !== undefined && { limit: info.limit }) };
      return error;
    };
    const failLimited = (end?: Ending) => withWindow(fail(end, tryAgain(waitMs)));
    const words = `rate limited (HTTP ${status})`;
    return { failure, fail: failLimited, why, words, doubt: why, asked };
  }
  if (isServerFault(status, body?.code)) {
    const faultWhy = body?.code === 'internal_error' ? `HTTP ${status}, internal_error` : why;
    // `internal_error` said with another status (a 200 with `success: false`) is the service's failure all the same.
    const words = `server error (HTTP ${status})`;
    const asked = { retryAfterMs: askedMs };
    const failFault = (end?: Ending) => fail(end, tryAgain(askedMs));
    return { failure: 'server-fault', fail: failFault, why: faultWhy, words, doubt: faultWhy, asked };
  }
  if (status === 408) return { failure: 'http-408', fail, why, words: 'timed out (HTTP 408)', doubt: why };
  // Definite answers (validation_error, insufficient_balance, not_found, unauthorized, unknown 4xx codes).
  return { failure: 'refused', fail, why, words: `refused (HTTP ${status})`, doubt: why };
}

// ── Transport failures in plain words ──────────────────────────────────────────────────────────────────────

/** Codes meaning "the connection was made, and the server did not answer in time". */
const ANSWER_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  REQUEST_TIMEOUT_CODE,
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

/** True when the server was reached but did not answer, or finish its answer, in time. */
function isAnswerTimeout(code: string): boolean {
  return ANSWER_TIMEOUT_CODES.has(code);
}

/**
 * The limit on an answer's headers, in KiB: undici's `maxHeaderSize`, Node's `http.maxHeaderSize` (16 KiB unless
 * `--max-http-header-size` says otherwise; node:http is not loaded here only to read it).
 */
const MAX_HEADER_KIB = 16;
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
  // Answers HTTP itself cannot read (isUnreadableHttp): undici's parser refused them. Any other HPE_ code: NOT_HTTP.
  UND_ERR_HEADERS_OVERFLOW: `the service's answer headers are too large (over ${MAX_HEADER_KIB} KiB)`,
  UND_ERR_RES_EXCEEDED_MAX_SIZE: "the service's answer is too large",
  HPE_INVALID_HEADER_TOKEN: "the service's answer headers hold invalid characters",
  [OUT_OF_TURN_CODE]: 'the service sent an interim HTTP 1xx answer, or an answer no request asked for',
};

/** Any answer llhttp refused (an `HPE_` code) that PLAIN_WORDS does not name more closely. */
const NOT_HTTP_WORDS = "the service's answer is not valid HTTP";

/** An answer that arrived but that HTTP cannot read: undici's parser errors, an answer over its size caps. */
function isUnreadableHttp(code: string): boolean {
  return (
    code.startsWith('HPE_') ||
    code === 'UND_ERR_HEADERS_OVERFLOW' ||
    code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' ||
    code === OUT_OF_TURN_CODE
  );
}

/**
 * The code of an answer undici's parser refused without naming one (its HTTPParserError for a bad header character,
 * or bytes that are no HTTP at all carries none): read as llhttp's, so it is said in words, never undici's.
 */
function parserCode(error: unknown): string {
  if (!(error instanceof Error) || error.name !== 'HTTPParserError') return 'network error';
  return /header (value|token)/i.test(error.message) ? 'HPE_INVALID_HEADER_TOKEN' : 'HPE_INVALID';
}

/** undici's own words for closing the connection at an answer out of turn (OUT_OF_TURN_CODE). */
function isOutOfTurn(error: unknown): boolean {
  if (errorCode(error) !== 'UND_ERR_SOCKET' || !(error instanceof Error)) return false;
  return error.message === 'bad response' || error.message === 'bad upgrade';
}

/** A 2xx that cannot be read (never sent again: the same server sends it again). */
const UNREADABLE_WORDS = 'unreadable answer';
/** An answer that stopped early (how far it came is in the error, and in `--verbose`). */
const CUT_OFF_WORDS = 'answer cut off';

/** Transport codes in a few words, for a resend's notice (the messages of errors say more: PLAIN_WORDS). */
const SHORT_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'name lookup failed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ECONNABORTED: 'connection aborted',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  EHOSTDOWN: 'host down',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: CUT_OFF_WORDS,
  [DEADLINE_CODE]: 'deadline reached',
  UND_ERR_HEADERS_OVERFLOW: 'answer headers too large',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'answer too large',
  [OUT_OF_TURN_CODE]: 'answer out of turn',
};

/**
 * A transport failure in a few words, for a resend's notice: the attempt's timeout named (`no answer in 30s`), else
 * the code's words; a code without words is none for a person (`connection failed`; `--verbose` has the code).
 */
function transportWords(ctx: JudgeContext, ex: FailureExchange, failure: Failure): string {
  const { code } = ex;
  if (failure === 'tls') return 'TLS handshake failed';
  if (failure === 'too-large') return 'answer too large';
  if (isAnswerTimeout(code) && code !== 'ETIMEDOUT') {
    const limit = formatDuration(ctx.attemptTimeoutMs ?? ctx.timeoutMs);
    // Headers came and the body did not end: an answer begun, not none.
    return ex.status === undefined ? `no answer in ${limit}` : `partial answer in ${limit}`;
  }
  if (Object.hasOwn(SHORT_WORDS, code)) return SHORT_WORDS[code] ?? code;
  return isUnreadableHttp(code) ? 'not valid HTTP' : 'connection failed';
}

/** `connection refused` for ECONNREFUSED; an unknown code is returned as it is (better than nothing). */
function plainWords(code: string): string {
  if (Object.hasOwn(PLAIN_WORDS, code)) return PLAIN_WORDS[code] ?? code;
  return code.startsWith('HPE_') ? NOT_HTTP_WORDS : code;
}

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

/**
 * An error's message on one line. OpenSSL's form (`80FC…:error:0A00010B:SSL routines:ssl3_get_record:wrong version
 * number:../deps/openssl/…:350:` and a newline) is reduced to its reason (`wrong version number`).
 */
function oneLineMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const reason = /error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/i.exec(text)?.[1];
  return (reason ?? text).replace(/\s+/g, ' ').trim();
}
