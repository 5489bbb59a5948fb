/**
 * The one HTTP client (STYLE.md: "one client owns the wire"). Auth headers, User-Agent, timeouts, proxies, retries,
 * rate limiting, zod parsing and error mapping live here once; commands get typed results or CliErrors.
 * It pulls in undici: load it lazily (`await import('../api/client.js')`).
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { AuthError, UsageError } from '../errors.js';
import { systemClock, type Clock } from '../lib/time.js';
import { formatDuration as formatSeconds } from '../lib/durations.js';
import { neutralise } from '../lib/sanitize.js';
import { createRedactor, redactHeaders } from '../lib/redact.js';
import { isLoopbackHost } from './base-url.js';
import {
  CONNECT_TIMEOUT_MS,
  GET_TIMEOUT_MS,
  MAX_ATTEMPTS,
  MAX_RESPONSE_BYTES,
  POST_TIMEOUT_MS,
  REQUEST_BUDGET_MS,
  WAIT_NOTICE_MS,
} from './constants.js';
import { createDispatcher } from './dispatcher.js';
import type { StreamedJson } from './json-stream.js';
import { endpointLabel, otherTaskError } from './errors.js';
import {
  judgeFailure,
  judgeResponse,
  type Exchange,
  type JudgeContext,
  type ResponseExchange,
  type ResponseHeaders,
} from './judge.js';
import { apiRequestPath } from './request-path.js';
import { headerValue, parseRateLimit, RateLimiter } from './rate-limit.js';
import { decideRetry, notProcessed, type Method, type NotProcessedFailure } from './retry-policy.js';
import { DEADLINE_CODE, errorCode, REQUEST_TIMEOUT_CODE, TOO_LARGE_CODE } from './transport.js';
import {
  AnyBodySchema,
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  type Balance,
  type CreateTaskRequest,
  type PageMeta,
  type Service,
  type Task,
} from './schemas.js';

// create.ts loads the client lazily and catches this from the same chunk.
export { AmbiguousCreateError } from './errors.js';

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

export interface ApiClientOptions {
  /** Normalised base URL including `/api/v1` (see `normaliseBaseUrl`). */
  baseUrl: string;
  /** The API key. Sent only in the auth header; scrubbed from every trace line and server message. */
  apiKey: string;
  /** How the key is sent. Default `'x-api-key'` (`X-API-Key: <key>`); `'bearer'` sends `Authorization: Bearer <key>`. */
  authScheme?: 'x-api-key' | 'bearer';
  /** `taskctl/<version> node/<version>`. */
  userAgent: string;
  /**
   * `--request-timeout`: the budget of one logical request, all its attempts and back-off included (announced
   * rate-limit waits excluded); default 35 s. One attempt is cut at 30 s or the budget's end, whichever is first.
   * POST and other writes keep their own 60 s per attempt (they are resent only when never sent, or after a 429); a
   * flag value sets that too. Also caps the 10 s connect timeout.
   */
  requestTimeoutMs?: number;
  /** One GET attempt's cut within the budget. Default 30 s; tests and tools lower it to see a retry after a cut. */
  attemptTimeoutMs?: number;
  /** Time source for backoff, rate-limit waits and the deadline. Default: `systemClock`. */
  clock?: Clock;
  /** Jitter source. Default: `Math.random`. */
  random?: () => number;
  /** Epoch ms: the client never sleeps past it and fails with the error it has instead. Default: no deadline. */
  deadline?: number;
  /** Ctrl-C: aborts the request in flight and any wait; the signal's reason is thrown unchanged. Default: none. */
  signal?: AbortSignal;
  /** `--verbose`: receives request, response and retry lines, secrets redacted. Default: no tracing. */
  trace?: (line: string) => void;
  /** Tests inject a MockAgent (not closed by `close()`). Default: `createDispatcher(baseUrl, env, ...)`. */
  dispatcher?: Dispatcher;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` (any case) are read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** The per-process limiter, shared between clients. Default: a new one on `clock`. */
  rateLimiter?: RateLimiter;
  /**
   * Hears, before it starts, of every wait longer than WAIT_NOTICE_MS (the rate-limit budget, a Retry-After), once per
   * wait however many requests share it: `waiting 25s for the rate limit (100 requests/min)…`. Default: silence.
   */
  onWait?: (waitMs: number, message: string) => void;
  /** Hears of every retry before its wait: `could not reach … (connection refused); retrying in 1s (attempt 2/4)`. */
  onRetry?: (message: string) => void;
  /** The hint of a refused key (401), naming where the key came from (core/settings keyRefusedHint). */
  authHint?: string;
}

/** What `request` answers: the final response as it came, and the error the command exits with when it failed. */
export interface RawResponse {
  status: number;
  headers: ResponseHeaders;
  /** The body, decoded as UTF-8 (a BOM dropped); never parsed or reshaped. */
  text: string;
  /** Set when the response is a failure by the client's rules (status, `success: false`, unreadable JSON, redirect). */
  error: Error | undefined;
}

/**
 * Why an attempt of a create provably never reached the server: the failure's kind (`never-sent`: refused, DNS,
 * connect timeout; `rate-limited`: a 429; `tls`: the handshake failed), a short reason (`ECONNREFUSED`, `HTTP 429`),
 * and whether another attempt follows (false: the call rejects with the error).
 */
export interface NotProcessed {
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

export interface RequestInit {
  /** Query pairs, appended after any query already in the path; names may repeat. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** A JSON body, sent as it is with `Content-Type: application/json` (the caller validates it). */
  body?: string | undefined;
}

export interface ApiClient {
  /** GET /services. */
  listServices: () => Promise<Service[]>;
  /** GET /balance (either documented response form). */
  getBalance: () => Promise<Balance>;
  /**
   * POST /tasks. Retried only when the request provably never reached the server, or on 429. When it may have
   * reached the server and the outcome is unknown, throws `AmbiguousCreateError`: reconcile, never resend blindly.
   */
  createTask: (req: CreateTaskRequest, observer?: CreateTaskObserver) => Promise<Task>;
  /** GET /tasks?page=&per_page= (server defaults when omitted). */
  listTasks: (q?: { page?: number; perPage?: number }) => Promise<{ tasks: Task[]; meta: PageMeta }>;
  /** GET /tasks/:id, with item results. */
  getTask: (id: number) => Promise<Task>;
  /**
   * `taskctl api`: any method and path under the base URL, with the same auth, limiter, deadline, body cap and retry
   * rules (GET resent on blips; anything else only when never sent or after a 429). The path must be relative (see
   * `apiRequestPath`; a copy of the base URL's own prefix is dropped). Resolves with the final response, a failed one
   * included (with `error`); rejects only when no response came, or with a UsageError for a refused path.
   */
  request: (method: Method, path: string, init?: RequestInit) => Promise<RawResponse>;
  /** The normalised base URL it talks to (caches of server data are kept per base URL). */
  readonly baseUrl: string;
  /** The limiter this client paces with (`auth status` shows its snapshot). */
  readonly rateLimiter: RateLimiter;
  /**
   * Server clock minus local clock in ms, from the responses' `Date` headers: the largest value seen, a lower bound
   * (Date has whole seconds, and the answer took time to arrive). Undefined until a response carried a Date.
   * Reconciliation compares the server's `created_at` with when the request was sent through it.
   */
  serverClockOffset: () => number | undefined;
  /** Both bounds of that offset (the upper one: Date + 1 s minus the send), each undefined until a Date was seen. */
  serverClockBounds: () => { low: number | undefined; high: number | undefined };
  /**
   * The same client (pool, limiter, trace) with another deadline (epoch ms; undefined = none), e.g. for the wait that
   * follows a create. Closing the view does nothing: the pool belongs to the client it came from.
   */
  withDeadline: (deadline: number | undefined) => ApiClient;
  /**
   * The same client with `ms` of the service's time, shared by its calls: waits for the rate limit (the limiter's, a
   * 429's) do not count, so a spent budget delays the calls instead of failing them (the snapshot before a create).
   */
  withBudget: (ms: number) => ApiClient;
  /** Closes the connection pool it created (an injected dispatcher is left open). */
  close: () => Promise<void>;
}

/** An error with a `code` of ours, handled by `judgeFailure` like a transport code. */
function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * When a view's calls must end (epoch ms; undefined = never). With `pausesForRateLimit` it moves on by every wait for
 * the rate limit, shared by the view's calls (`withBudget`); otherwise it is fixed (`withDeadline`).
 */
interface Deadline {
  at: number | undefined;
  readonly pausesForRateLimit: boolean;
}

const deadlineError = (when: 'before sending' | 'in flight') =>
  codedError(
    `the deadline passed ${when === 'in flight' ? 'before the answer came' : 'before the request was sent'}`,
    DEADLINE_CODE,
  );

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
  // held once, as its parsed value (issue 25).
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
      // A large answer: V8 lets garbage grow the heap to a multiple of what is live before it collects; in its
      // memory-saving mode it collects sooner (1,000,000 items in ndjson: 433 -> 281 MB peak). Only for this run.
      // node:v8 only here: a static import would cost every command 2-3 ms of start-up.
      process.getBuiltinModule('node:v8').setFlagsFromString('--optimize-for-size');
      const { streamJson } = await import('./json-stream.js');
      stream = streamJson();
      for (const part of parts) stream.push(part);
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

export function createApiClient(options: ApiClientOptions): ApiClient {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const limiter = options.rateLimiter ?? new RateLimiter({ clock });
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const origin = base.origin;
  // Surrounding whitespace (a CI secret pasted with a newline, a CRLF key file) is not part of the key: send it trimmed,
  // and scrub both forms, since a server echoing the key echoes what it received.
  const apiKey = options.apiKey.trim();
  if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(apiKey)) {
    // undici would refuse the header with a network-looking error; name the real problem, never the key itself.
    throw new AuthError(
      'the API key contains a line break, control character or non-Latin-1 character',
      'Check the key in TASKCTL_API_KEY, the --api-key-file or `taskctl auth login`: it is one line of plain text.',
    );
  }
  const scrub = createRedactor([options.apiKey, apiKey]);
  const sink = options.trace;
  // Trace lines carry server text (header values, error messages): inert, like every other output, and scrubbed.
  const trace = sink
    ? (line: string) => {
        sink(neutralise(scrub(line)));
      }
    : undefined;
  // Anything but a GET may store or change things before answering: it gets the create's longer timeout per attempt.
  const timeoutFor = (method: Method) =>
    method === 'GET'
      ? Math.min(options.attemptTimeoutMs ?? GET_TIMEOUT_MS, options.requestTimeoutMs ?? REQUEST_BUDGET_MS)
      : (options.requestTimeoutMs ?? POST_TIMEOUT_MS);
  /** A GET's whole budget (attempts and back-off); writes have none beyond their attempt timeout. */
  const budgetFor = (method: Method) =>
    method === 'GET' ? (options.requestTimeoutMs ?? REQUEST_BUDGET_MS) : Number.POSITIVE_INFINITY;
  const connectTimeoutMs = Math.min(CONNECT_TIMEOUT_MS, options.requestTimeoutMs ?? CONNECT_TIMEOUT_MS);
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ?? createDispatcher(options.baseUrl, options.env ?? process.env, connectTimeoutMs);
  const { signal } = options;
  const authHeader: Record<string, string> =
    options.authScheme === 'bearer' ? { Authorization: `Bearer ${apiKey}` } : { 'X-API-Key': apiKey };

  /** When the last announced wait ends: requests waiting for the same moment share one notice. */
  let announcedUntil = Number.NEGATIVE_INFINITY;
  function announceWait(waitMs: number, what: string): void {
    const until = clock.now() + waitMs;
    // Reset times have whole-second resolution: waits ending within a second of the announced one are the same wait.
    if (options.onWait === undefined || waitMs <= WAIT_NOTICE_MS || until <= announcedUntil + 1000) return;
    announcedUntil = until;
    options.onWait(waitMs, `waiting ${formatSeconds(waitMs)} ${what}…`);
  }
  const announceLimiterWait = (waitMs: number, reason: string) => {
    announceWait(waitMs, `for ${reason}`);
  };

  let serverOffsetMs: number | undefined;
  let serverOffsetHighMs: number | undefined;
  /**
   * Each Date (whole seconds, stamped between the send and the answer) bounds the offset: at least Date minus the
   * answer's arrival, below Date + 1 s minus the send. Keep the tightest of each (core/server-time.ts uses both).
   */
  function noteServerDate(date: string | undefined, sentAtMs: number): void {
    const at = date === undefined ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(at)) return;
    const measured = at - clock.now();
    serverOffsetMs = serverOffsetMs === undefined ? measured : Math.max(serverOffsetMs, measured);
    const high = at + 1000 - sentAtMs;
    serverOffsetHighMs = serverOffsetHighMs === undefined ? high : Math.min(serverOffsetHighMs, high);
  }

  /**
   * One attempt: send, read the whole body within the request timeout, the deadline and the size cap. The rate limiter
   * is the caller's (`call`). Never throws except on abort.
   */
  async function exchange(
    spec: RequestSpec<unknown>,
    attempt: number,
    deadline: number | undefined,
    budgetEnd: number,
  ): Promise<Exchange & { rateLimit?: ReturnType<typeof parseRateLimit> }> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {}))
      if (value !== undefined) search.set(name, String(value));
    const path = `${basePath}${spec.path}${search.size > 0 ? `?${search.toString()}` : ''}`;
    const body = spec.bodyText ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body));
    const headers: Record<string, string> = {
      'User-Agent': options.userAgent,
      Accept: 'application/json',
      ...authHeader,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    };
    const timeoutMs = timeoutFor(spec.method);

    const sentAtMs = clock.now();
    if (deadline !== undefined && sentAtMs >= deadline) {
      // Nothing was sent: even a create may fail here without any doubt about its outcome.
      const error = deadlineError('before sending');
      return { kind: 'failure', error, code: DEADLINE_CODE, status: undefined, sentAtMs, neverSent: true };
    }
    if (trace) {
      trace(`> ${spec.method} ${origin}${path}${attempt > 1 ? ` (attempt ${attempt}/${MAX_ATTEMPTS})` : ''}`);
      for (const [name, value] of Object.entries(redactHeaders(headers))) trace(`> ${name}: ${value}`);
      if (body !== undefined) trace(`> (JSON body, ${Buffer.byteLength(body)} bytes)`);
    }
    let status: number | undefined;
    let rateLimit: ReturnType<typeof parseRateLimit>;
    // One timer bounds the whole attempt (connect, headers and the complete body): a server that drips a byte a
    // second, or never stops sending, is cut at `--request-timeout`, or earlier at the command's deadline.
    const cut = new AbortController();
    const forwardAbort = () => {
      cut.abort(signal?.reason);
    };
    signal?.addEventListener('abort', forwardAbort, { once: true });
    const untilDeadline = deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadline - sentAtMs);
    // The attempt's own timeout, shortened to what is left of the request's budget.
    const attemptMs = Math.max(0, Math.min(timeoutMs, budgetEnd - sentAtMs));
    const deadlineFirst = untilDeadline < attemptMs;
    const cutAfterMs = Math.min(untilDeadline, attemptMs);
    // Beyond setTimeout's range (~24.8 days) Node would fire at once; no request lives that long anyway.
    const timer =
      cutAfterMs > MAX_TIMER_MS
        ? undefined
        : setTimeout(() => {
            cut.abort(
              deadlineFirst
                ? deadlineError('in flight')
                : codedError(`no complete answer within ${formatSeconds(timeoutMs)}`, REQUEST_TIMEOUT_CODE),
            );
          }, cutAfterMs);
    try {
      spec.observer?.onDispatch?.(attempt, sentAtMs);
      const response = await dispatcher.request({
        origin,
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
      noteServerDate(headerValue(responseHeaders, 'date'), sentAtMs);
      rateLimit = parseRateLimit(responseHeaders, clock.now());
      traceResponse(status, responseHeaders, clock.now() - sentAtMs);
      const { text, parsed } = await readBounded(
        response.body,
        headerValue(responseHeaders, 'content-length'),
        spec.raw !== true,
      );
      return { kind: 'response', status, headers: responseHeaders, text, parsed, sentAtMs, rateLimit };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const code = errorCode(error) ?? 'network error';
      const during = status !== undefined ? ` while reading the HTTP ${status} body` : '';
      trace?.(`! ${spec.method} ${spec.path} failed: ${code}${during} (${clock.now() - sentAtMs} ms)`);
      return { kind: 'failure', error, code, status, sentAtMs, rateLimit };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  function traceResponse(status: number, headers: ResponseHeaders, elapsedMs: number): void {
    if (!trace) return;
    trace(`< ${status} (${elapsedMs} ms)`);
    const shown: Record<string, string> = {};
    for (const name of TRACED_RESPONSE_HEADERS) {
      const value = headerValue(headers, name);
      if (value !== undefined) shown[name] = value;
    }
    for (const [name, value] of Object.entries(redactHeaders(shown))) trace(`< ${name}: ${value}`);
  }

  async function call<T>(spec: RequestSpec<T>, limit: Deadline): Promise<T> {
    const budgetMs = budgetFor(spec.method);
    const ctx: JudgeContext = {
      method: spec.method,
      endpoint: endpointLabel(spec.method, spec.path),
      origin,
      loopback: isLoopbackHost(base.hostname),
      // Messages name the limit that applies: the GET's whole budget, or a write's attempt timeout.
      timeoutMs: Number.isFinite(budgetMs) ? budgetMs : timeoutFor(spec.method),
      raw: spec.raw,
      scrub,
      now: () => clock.now(),
      random,
      authHint: options.authHint,
    };
    // The budget counts from the first attempt; waits for the rate limit (the limiter's, a 429's) are added to it.
    let budgetEnd = clock.now() + budgetMs;
    for (let attempt = 1; ; attempt++) {
      const waitStart = clock.now();
      await limiter.acquire(signal, limit.pausesForRateLimit ? undefined : limit.at, announceLimiterWait);
      const waited = clock.now() - waitStart;
      budgetEnd += waited;
      if (limit.pausesForRateLimit && limit.at !== undefined) limit.at += waited;
      const deadline = limit.at;
      if (waited > 0) trace?.(`* waited ${formatSeconds(waited)} for the rate-limit budget`);
      let verdict;
      try {
        const ex = await exchange(spec, attempt, deadline, budgetEnd);
        if (spec.seen) spec.seen.last = ex.kind === 'response' ? ex : undefined;
        verdict =
          ex.kind === 'response' ? judgeResponse(ctx, spec.schema, ex, attempt) : judgeFailure<T>(ctx, ex, attempt);
        // The limiter learns from every answer in this one place: the budget headers, and a 429's "not before".
        limiter.update(ex.rateLimit);
        if (!verdict.ok && verdict.blockUntilMs !== undefined) limiter.limited(verdict.blockUntilMs);
      } finally {
        limiter.release();
      }
      if (verdict.ok) return verdict.value;
      const suffix = attempt > 1 ? ` after ${attempt} attempts` : '';
      const { waitMs, why } = verdict;
      const unprocessed = notProcessed(verdict.failure);
      const rateLimited = verdict.failure === 'rate-limited';
      const decision = decideRetry({
        method: spec.method,
        failure: verdict.failure,
        attempt,
        waitMs,
        now: clock.now(),
        deadline,
        deadlineMovesWithWaits: limit.pausesForRateLimit,
        budgetEnd,
      });
      if (!decision.retry) {
        if (unprocessed) spec.observer?.onNotProcessed?.(attempt, { failure: unprocessed, why, retrying: false });
        if (decision.stop === 'deadline') trace?.(`* not retrying (${why}): the deadline comes first`);
        if (decision.stop === 'budget')
          trace?.(`* not retrying (${why}): the request's ${formatSeconds(budgetMs)} budget is spent`);
        throw verdict.fail(
          decision.stop === 'deadline'
            ? `${suffix} (no time left to retry before the deadline)`
            : decision.stop === 'budget'
              ? `${suffix} (no time left to retry within --request-timeout ${formatSeconds(budgetMs)})`
              : suffix,
        );
      }
      // A wait the server announced (429) is not the request's time: the budget, and a budget view's deadline, move on.
      if (rateLimited) budgetEnd += waitMs;
      if (rateLimited && limit.pausesForRateLimit && limit.at !== undefined) limit.at += waitMs;
      if (unprocessed) spec.observer?.onNotProcessed?.(attempt, { failure: unprocessed, why, retrying: true });
      trace?.(`* retrying in ${formatSeconds(waitMs)} (${why}), attempt ${attempt + 1}/${MAX_ATTEMPTS}`);
      options.onRetry?.(`${why}; retrying in ${formatSeconds(waitMs)} (attempt ${attempt + 1}/${MAX_ATTEMPTS})`);
      announceWait(
        waitMs,
        rateLimited ? 'for the rate limit (the server asked to wait)' : `before trying again (${why})`,
      );
      await clock.sleep(waitMs, signal);
    }
  }

  /** The client's methods with one deadline; `withDeadline` makes more views over the same pool and limiter. */
  function view(limit: Deadline, ownsPool: boolean): ApiClient {
    return {
      baseUrl: options.baseUrl,
      rateLimiter: limiter,
      async listServices() {
        return (await call({ method: 'GET', path: '/services', schema: ServicesResponseSchema }, limit)).data;
      },
      async getBalance() {
        return (await call({ method: 'GET', path: '/balance', schema: BalanceResponseSchema }, limit)).data;
      },
      async createTask(req, observer) {
        // Only the documented fields go on the wire.
        const body = { service: req.service, items: req.items };
        const spec = { method: 'POST' as const, path: '/tasks', body, schema: CreateTaskResponseSchema, observer };
        return (await call(spec, limit)).data;
      },
      async listTasks(q = {}) {
        const query = { page: q.page, per_page: q.perPage };
        const response = await call({ method: 'GET', path: '/tasks', query, schema: TaskListResponseSchema }, limit);
        return { tasks: response.data, meta: response.meta };
      },
      async getTask(id) {
        if (!Number.isSafeInteger(id) || id < 0) {
          throw new UsageError(`invalid task id "${id}"`, 'Task ids are whole numbers, as `taskctl list` shows them.');
        }
        const task = (await call({ method: 'GET', path: `/tasks/${id}`, schema: TaskResponseSchema }, limit)).data;
        // A read of task N that answers another task is a service error, never task N (issue 22): exit 8, both named.
        if (task.id !== id) throw otherTaskError(id, task.id);
        return task;
      },
      async request(method, path, init = {}) {
        let target = apiRequestPath(path);
        // A path copied with the base URL's own prefix (`/api/v1/balance`, as --verbose shows it) means the same path.
        if (basePath !== '' && target.startsWith(`${basePath}/`)) target = target.slice(basePath.length);
        const search = new URLSearchParams(
          init.query?.map(([name, value]): [string, string] => [name, value]),
        ).toString();
        if (search !== '') target += `${target.includes('?') ? '&' : '?'}${search}`;
        const seen: { last?: ResponseExchange | undefined } = {};
        const spec = { method, path: target, bodyText: init.body, schema: AnyBodySchema, raw: true, seen };
        let error: Error | undefined;
        try {
          await call(spec, limit);
        } catch (thrown) {
          // Without a response (a transport failure, a refused path, Ctrl-C) there is nothing to show: rethrow.
          if (seen.last === undefined || signal?.aborted || !(thrown instanceof Error)) throw thrown;
          error = thrown;
        }
        const last = seen.last;
        if (last === undefined) throw new Error('request: an answer was accepted without a response');
        return { status: last.status, headers: last.headers, text: last.text, error };
      },
      withDeadline(next) {
        return view({ at: next, pausesForRateLimit: false }, false);
      },
      withBudget(ms) {
        return view({ at: clock.now() + ms, pausesForRateLimit: true }, false);
      },
      serverClockOffset: () => serverOffsetMs,
      serverClockBounds: () => ({ low: serverOffsetMs, high: serverOffsetHighMs }),
      async close() {
        if (ownsPool && ownsDispatcher) await dispatcher.close();
      },
    };
  }

  return view({ at: options.deadline, pausesForRateLimit: false }, true);
}
