/**
 * One attempt on the wire: the request built, sent, and its whole body read within the attempt's timeout, the
 * command's deadline and the size cap. The rate limiter and the retries are call.ts's.
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { formatDuration } from '../lib/durations.js';
import { redactHeaders } from '../lib/redact.js';
import { MAX_ATTEMPTS, MAX_RESPONSE_BYTES } from './constants.js';
import type { StreamedJson } from './json-stream.js';
import type { Exchange, ResponseExchange, ResponseHeaders } from './request.js';
import { headerValue, parseRateLimit } from './rate-limit.js';
import type { Method, NotProcessedFailure } from './resend-policy.js';
import { DEADLINE_CODE, errorCode, REQUEST_TIMEOUT_CODE, TOO_LARGE_CODE } from './transport.js';
import { attemptTimeoutFor, type Wire } from './wire.js';

/**
 * Why an attempt of a create provably never reached the server: the failure's kind (`never-sent`: refused, DNS,
 * connect timeout; `rate-limited`: a 429; `tls`: the handshake failed), a short reason (`ECONNREFUSED`, `HTTP 429`),
 * and whether another attempt follows (false: the call rejects with the error).
 */
interface NotProcessed {
  failure: NotProcessedFailure;
  why: string;
  retrying: boolean;
}

/** What `createTask` tells its caller of each attempt, synchronously (a journal may fsync in them). */
export interface CreateTaskObserver {
  /**
   * The attempt is handed to the connection now (`sentAtMs`, the client's clock), after every rate-limit wait: from
   * here on it may reach the server. Called once per attempt; an attempt cut before it (Ctrl-C or the deadline during
   * a wait) calls nothing and the call rejects.
   */
  onDispatch?: (attempt: number, sentAtMs: number) => void;
  /** The dispatched attempt provably never reached the server; `reason.retrying` says whether another one follows. */
  onNotProcessed?: (attempt: number, reason: NotProcessed) => void;
}

export interface RequestSpec<T> {
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
export type AttemptResult = Exchange & { rateLimit?: ReturnType<typeof parseRateLimit> };

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
export async function sendAttempt(
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
  try {
    const response = await wire.dispatcher.request({
      origin: wire.origin,
      path,
      method: spec.method,
      headers,
      body: body ?? null,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: cut.signal,
    });
    status = response.statusCode;
    const responseHeaders: ResponseHeaders = response.headers;
    wire.serverClock.note(headerValue(responseHeaders, 'date'), sentAtMs);
    rateLimit = parseRateLimit(responseHeaders, clock.now());
    traceResponse(wire, status, responseHeaders, clock.now() - sentAtMs);
    const length = headerValue(responseHeaders, 'content-length');
    const { text, parsed } = await readBounded(response.body, length, spec.raw !== true);
    return { kind: 'response', status, headers: responseHeaders, text, parsed, sentAtMs, rateLimit };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const code = errorCode(error) ?? 'network error';
    const during = status !== undefined ? ` while reading the HTTP ${status} body` : '';
    wire.trace?.(`! ${spec.method} ${spec.path} failed: ${code}${during} (${clock.now() - sentAtMs} ms)`);
    return { kind: 'failure', error, code, status, sentAtMs, rateLimit };
  } finally {
    cut.dispose();
  }
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
  contentLength: string | undefined,
  streamable: boolean,
): Promise<{ text: string; parsed?: StreamedParse }> {
  const announced = contentLength === undefined ? Number.NaN : Number(contentLength);
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
    if (total > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw tooLarge('');
    }
    const text = decoder.decode(chunk, { stream: true });
    if (stream) stream.push(text);
    else parts.push(text);
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
