/**
 * What every request of one client shares: the key (checked, trimmed, scrubbed from everything shown), the origin and
 * base path, the timeouts, the connection pool, the limiter, the trace, the notices of long waits and the server's
 * clock as its Date headers tell it. Built once by `createApiClient`; the views of withDeadline/withBudget share it.
 */
import type { Dispatcher } from 'undici';
import { AuthError } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { createRedactor, type Redactor } from '../lib/redact.js';
import { neutralise } from '../lib/sanitize.js';
import { systemClock, type Clock } from '../lib/time.js';
import { isLoopbackHost } from './base-url.js';
import { CONNECT_TIMEOUT_MS, WAIT_NOTICE_MS } from './constants.js';
import { createDispatcher } from './dispatcher.js';
import { RateLimiter } from './rate-limit.js';
import { parseHttpDate } from '../lib/http-date.js';

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
   * rate-limit waits excluded); default 35 s. One attempt is cut at 30 s (above a 35 s budget: 5 s before its end) or
   * at the budget's end, whichever is first.
   * POST and other writes keep their own 60 s per attempt (they are resent only when never sent, or after a 429); a
   * flag value sets that too. Also caps the 10 s connect timeout.
   */
  requestTimeoutMs?: number;
  /** One GET attempt's cut within the budget. Default 30 s; tests and tools lower it to see a resend after a cut. */
  attemptTimeoutMs?: number;
  /** Time source for backoff, rate-limit waits and the deadline. Default: `systemClock`. */
  clock?: Clock;
  /** Jitter source. Default: `Math.random`. */
  random?: () => number;
  /** Epoch ms: the client never sleeps past it and fails with the error it has instead. Default: no deadline. */
  deadline?: number;
  /** Ctrl-C: aborts the request in flight and any wait; the signal's reason is thrown unchanged. Default: none. */
  signal?: AbortSignal;
  /** `--verbose`: receives request, response and resend lines, secrets redacted. Default: no tracing. */
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
  /**
   * Hears of an attempt that has had no complete answer for NO_ANSWER_NOTICE_MS (on the clock's `after`): how long,
   * when the request gives up at the latest (epoch ms: its budget, a write's attempt timeout, the deadline), and
   * `received`: the bytes of the body received so far once the answer's headers came, undefined while nothing came.
   * What it returns is called when the attempt ends. Default: silence.
   */
  onNoAnswer?: (waitedMs: number, givesUpAt: number, received: () => number | undefined) => (() => void) | undefined;
  /** Hears of every resend before its wait, its reason in words: `connection refused; trying again in 1s (attempt 2/4)`. */
  onResend?: (message: string) => void;
  /** The hint of a refused key (401), naming where the key came from (core/settings keyRefusedHint). */
  authHint?: string;
}

/** One client's shared parts, read by every attempt. */
export interface Wire {
  readonly options: ApiClientOptions;
  readonly clock: Clock;
  readonly random: () => number;
  readonly limiter: RateLimiter;
  /** `https://host`. */
  readonly origin: string;
  /** The base URL's path without a trailing slash (`/api/v1`). */
  readonly basePath: string;
  readonly loopback: boolean;
  readonly scrub: Redactor;
  /** `--verbose` lines, made inert and scrubbed; undefined when not tracing. */
  readonly trace: ((line: string) => void) | undefined;
  readonly dispatcher: Dispatcher;
  /** False when the dispatcher was injected (it is not ours to close). */
  readonly ownsDispatcher: boolean;
  readonly signal: AbortSignal | undefined;
  /** User-Agent, Accept and the key's header. */
  readonly headers: Readonly<Record<string, string>>;
  readonly notices: WaitNotices;
  readonly serverClock: ServerDateOffset;
}

export function createWire(options: ApiClientOptions): Wire {
  const clock = options.clock ?? systemClock;
  const base = new URL(options.baseUrl);
  const apiKey = checkedKey(options.apiKey);
  const scrub = createRedactor([options.apiKey, apiKey]);
  const sink = options.trace;
  const connectTimeoutMs = Math.min(CONNECT_TIMEOUT_MS, options.requestTimeoutMs ?? CONNECT_TIMEOUT_MS);
  return {
    options,
    clock,
    random: options.random ?? Math.random,
    limiter: options.rateLimiter ?? new RateLimiter({ clock }),
    origin: base.origin,
    basePath: base.pathname.replace(/\/+$/, ''),
    loopback: isLoopbackHost(base.hostname),
    scrub,
    // Trace lines carry server text (header values, error messages): inert, like every other output, and scrubbed.
    trace: sink ? (line) => sink(neutralise(scrub(line))) : undefined,
    dispatcher: options.dispatcher ?? createDispatcher(options.baseUrl, options.env ?? process.env, connectTimeoutMs),
    ownsDispatcher: options.dispatcher === undefined,
    signal: options.signal,
    headers: {
      'User-Agent': options.userAgent,
      Accept: 'application/json',
      ...(options.authScheme === 'bearer' ? { Authorization: `Bearer ${apiKey}` } : { 'X-API-Key': apiKey }),
    },
    notices: new WaitNotices(clock, options.onWait),
    serverClock: new ServerDateOffset(clock),
  };
}

/**
 * Surrounding whitespace (a CI secret pasted with a newline, a CRLF key file) is not part of the key: it is sent
 * trimmed, and both forms are scrubbed, since a server echoing the key echoes what it received.
 */
function checkedKey(raw: string): string {
  const apiKey = raw.trim();
  if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(apiKey)) {
    // undici would refuse the header with a network-looking error; name the real problem, never the key itself.
    throw new AuthError(
      'the API key contains a line break, control character or non-Latin-1 character',
      'Check the key in TASKCTL_API_KEY, the --api-key-file or `taskctl auth login`: it is one line of plain text.',
    );
  }
  return apiKey;
}

/** Tells `onWait` of each long wait once, however many requests wait for the same moment. */
class WaitNotices {
  /** When the last announced wait ends. */
  #announcedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly onWait: ApiClientOptions['onWait'],
  ) {}

  announce(waitMs: number, what: string): void {
    const until = this.clock.now() + waitMs;
    // Reset times have whole-second resolution: waits ending within a second of the announced one are the same wait.
    if (this.onWait === undefined || waitMs <= WAIT_NOTICE_MS || until <= this.#announcedUntil + 1000) return;
    this.#announcedUntil = until;
    this.onWait(waitMs, `waiting ${formatDuration(waitMs)} ${what}…`);
  }
}

/**
 * Server clock minus local clock, from the responses' Date headers. Each Date (whole seconds, stamped between the send
 * and the answer) bounds the offset: at least Date minus the answer's arrival, below Date + 1 s minus the send. The
 * tightest of each is kept (core/server-time.ts uses both).
 */
class ServerDateOffset {
  low: number | undefined;
  high: number | undefined;
  /** The latest Date seen (epoch ms of its whole second): the server's clock had reached it by its answer. */
  latest: number | undefined;

  constructor(private readonly clock: Clock) {}

  note(date: string | undefined, sentAtMs: number): void {
    const at = date === undefined ? Number.NaN : parseHttpDate(date);
    if (!Number.isFinite(at)) return;
    this.latest = this.latest === undefined ? at : Math.max(this.latest, at);
    const measured = at - this.clock.now();
    this.low = this.low === undefined ? measured : Math.max(this.low, measured);
    const high = at + 1000 - sentAtMs;
    this.high = this.high === undefined ? high : Math.min(this.high, high);
  }
}
