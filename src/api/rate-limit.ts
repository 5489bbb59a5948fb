/**
 * Client-side rate limiting (docs/behaviour.md, pacing): read `X-RateLimit-*` from every response and pace requests so
 * that a run never causes a 429 on its own. One limiter per process, shared by every client.
 */
import { EventEmitter, once } from 'node:events';
import { RateLimitError } from '../errors.js';
import { formatDuration } from '../lib/duration.js';
import { systemClock, type Clock } from '../lib/time.js';
import { DOCUMENTED_RATE_LIMIT, DOCUMENTED_RATE_WINDOW_MS } from './constants.js';
import { parseHttpDate } from '../lib/http-date.js';
import { thousands } from '../lib/thousands.js';

/** Every computed wait is clamped to this (a 60 s window plus a second of slack). */
export const MAX_RATE_LIMIT_WAIT_MS = 61_000;
/** `X-RateLimit-Reset` values at or above this are epoch seconds; smaller ones are seconds until the reset. */
const EPOCH_THRESHOLD = 1e9;
/** ...and values at or above this are epoch milliseconds (1e12 ms is 2001; 1e12 s would be the year 33,658). */
const EPOCH_MS_THRESHOLD = 1e12;

/** What the server said about the budget, on the local clock. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** When the window resets, epoch ms on the local clock (clamped to now..now+61 s). */
  resetAtMs: number;
  /**
   * True when `X-RateLimit-Reset` was missing or unreadable (`-3`, `soon`): `resetAtMs` is then only the documented
   * minute assumed for pacing, not a wait the server stated (a 429 does not wait for it).
   */
  resetAssumed?: true;
}

/** `Headers`-like (`get`) or a plain record such as undici's `IncomingHttpHeaders`. */
export type HeaderSource =
  { get: (name: string) => string | null | undefined } | Readonly<Record<string, string | string[] | undefined>>;

/** Case-insensitive single header value; repeated headers give their first value. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as { get: (name: string) => string | null | undefined }).get(name);
    return value ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | string[] | undefined>>;
  const wanted = name.toLowerCase();
  let value = record[wanted];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === wanted);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value[0] : value;
}

function nonNegativeInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,15}\s*$/.test(text)) return undefined;
  return Number(text);
}

function clampWait(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RATE_LIMIT_WAIT_MS) : MAX_RATE_LIMIT_WAIT_MS;
}

/**
 * Reads `X-RateLimit-Limit/Remaining/Reset`. Returns `undefined` unless both limit (> 0) and remaining are sane
 * integers. Reset: values ≥ 1e12 are epoch milliseconds and values ≥ 1e9 epoch seconds, both measured against the response's `Date` header when there is one
 * (so server clock skew cancels out: resetAt = now + (reset − serverDate)); smaller values are seconds until the
 * reset; a missing or garbage reset means "one minute from now" (the documented window, docs/openapi.json: X-RateLimit-Limit). The result is always within
 * now..now+61 s.
 */
export function parseRateLimit(
  headers: HeaderSource,
  nowMs: number,
  dateHeader?: string | null,
): RateLimitInfo | undefined {
  const limit = nonNegativeInteger(headerValue(headers, 'x-ratelimit-limit'));
  const remainingRaw = headerValue(headers, 'x-ratelimit-remaining');
  // A negative "remaining" (some servers count past zero) means nothing left.
  const remaining =
    remainingRaw !== undefined && /^\s*-\d{1,15}\s*$/.test(remainingRaw) ? 0 : nonNegativeInteger(remainingRaw);
  if (limit === undefined || limit === 0 || remaining === undefined) return undefined;

  const resetText = headerValue(headers, 'x-ratelimit-reset')?.trim() ?? '';
  const reset = /^\d+(\.\d+)?$/.test(resetText) ? Number(resetText) : Number.NaN;
  let waitMs = 60_000;
  if (Number.isFinite(reset)) {
    if (reset >= EPOCH_THRESHOLD) {
      const serverNow = parseHttpDate(dateHeader ?? headerValue(headers, 'date') ?? '');
      const resetAt = reset >= EPOCH_MS_THRESHOLD ? reset : reset * 1000;
      waitMs = resetAt - (Number.isFinite(serverNow) ? serverNow : nowMs);
    } else {
      waitMs = reset * 1000;
    }
  }
  const info = { limit, remaining: Math.min(remaining, limit), resetAtMs: nowMs + clampWait(waitMs) };
  return Number.isFinite(reset) ? info : { ...info, resetAssumed: true };
}

/** The current budget as `auth status` shows it. */
export interface RateLimitSnapshot extends RateLimitInfo {
  /** `server`: from response headers; `assumed`: the documented default, nothing heard yet. */
  source: 'server' | 'assumed';
}

/** Hears of a wait before it starts: how long, and what for (`the rate limit (100 requests/min)`). */
export type WaitListener = (waitMs: number, reason: string) => void;

export interface RateLimiterOptions {
  /** Time source. Default: `systemClock`. */
  clock?: Clock;
  /** Extra wait after a reset before sending again, covering whole-second reset values. Default: 1000 ms. */
  resetMarginMs?: number;
}

interface Window {
  limit: number;
  remaining: number;
  resetAtMs: number;
  fromServer: boolean;
}

/** Budget assumed until a server states one: the API's documented 100 requests per minute. */
const ASSUMED_LIMIT = DOCUMENTED_RATE_LIMIT;
/** The documented window (a minute): the pace's span until the server's resets show another. */
const WINDOW_MS = DOCUMENTED_RATE_WINDOW_MS;

/** Server resets within this of each other are the same window (reset values have whole-second resolution). */
const SAME_WINDOW_TOLERANCE_MS = 1500;

/**
 * Paces requests against the server's budget. Protocol for a caller:
 * `await acquire()` before sending, `update(info)` when a response's headers arrive, `release()` when the exchange is
 * over (answered or failed; always, e.g. in `finally`), `limited(until)` after a 429.
 *
 * Locally each acquire spends one unit of the window's remaining budget at once (in-flight requests count); when it is
 * spent, acquire waits for the reset. Until the first response, only one request is in flight, so a burst cannot
 * overrun a server whose limit is lower than the assumed one.
 *
 * A server that sends no rate-limit headers gets no invented limit: requests go at full speed
 * until it answers 429, and from then on at the documented 100/min (docs/behaviour.md#pacing-and-the-rate-limit). Long-running polling (`steady()`: wait, watch) keeps
 * to 100/min from the start while no header has been seen, so hours of polling never lean on an unstated limit.
 *
 * Polling also asks `readyAt()` when its next round may go: the same budget spread evenly over the window, so rounds
 * come apart instead of spending a window's budget at its start and then stalling (see readyAt).
 */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #resetMarginMs: number;
  #window: Window | undefined;
  #inFlight = 0;
  #heard = false;
  /** A response carried the rate-limit headers: pace by them. */
  #stated = false;
  /** The server answered 429, or polling asked for a steady pace: without headers, assume the documented budget. */
  #assume = false;
  #blockedUntilMs = 0;
  /** When each request of the last window was granted, oldest first (the pace never lets a window hold more). */
  #sent: number[] = [];
  /** When the next request is due on an even schedule at the budget's rate (where the granted ones have brought it). */
  #evenAt = Number.NEGATIVE_INFINITY;
  /** The reset of the last window a server stated (epoch ms): the next one's says how long a window is. */
  #lastServerResetMs: number | undefined;
  /**
   * The server's window as its resets show it, when not the documented minute: `short` (shorter, its length not known)
   * or its length in ms (the first answer of a window came just after the last one's reset). Undefined: no other
   * window shown, which is the minute only once `#minuteShown` says so (before that, its length is not known).
   */
  #windowShown: number | 'short' | undefined;
  /**
   * The server's window is shown to be the documented minute (or longer): a reset stated a minute ahead, two neighbouring
   * resets a minute apart, or a rolling window's reset a minute after a request. Until then its words name no length.
   */
  #minuteShown = false;
  /**
   * The server counts a rolling window, not fixed ones: a reset came, the budget did not come back whole, and the next
   * reset was a minute after a request of ours (`#rollingShown`). Its resets then show no window's length.
   */
  #rolling = false;
  /** The shortest gap between two of the server's resets seen: no window of its outlasts it. */
  #shortestGapMs = Number.POSITIVE_INFINITY;
  /** Emits 'change' when a request finishes or the budget changes (acquire waits for it while probing). */
  readonly #changes = new EventEmitter().setMaxListeners(0);

  constructor(options: RateLimiterOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#resetMarginMs = Math.max(0, options.resetMarginMs ?? 1000);
  }

  /** Requests acquired and not yet released. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Waits until a request may be sent, then counts it. Throws the signal's reason when aborted, and `RateLimitError`
   * when the wait would end after `deadline` (epoch ms). `onWait` hears of each wait before it starts, with its reason.
   */
  async acquire(signal?: AbortSignal, deadline?: number, onWait?: WaitListener): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.#clock.now();
      if (now < this.#blockedUntilMs) {
        await this.#sleepUntil(this.#blockedUntilMs, now, signal, deadline, onWait, 'the server asked to wait');
        continue;
      }
      // Until a server has stated its budget, probe with one request at a time.
      if (!this.#heard && this.#inFlight > 0) {
        await this.#nextChange(signal);
        continue;
      }
      // No headers, no 429, no polling: nothing says there is a limit, so none is invented.
      if (!this.#stated && !this.#assume) {
        this.#grant(now);
        return;
      }
      const window = this.#current(now);
      // Past a rolling window's reset, one request asks the server what came back before others go (its oldest
      // requests aged out, not its whole budget: rolled).
      if (this.#rolling && !window.fromServer && this.#inFlight > 0) {
        await this.#nextChange(signal);
        continue;
      }
      if (window.remaining > 0) {
        window.remaining -= 1;
        this.#grant(now);
        return;
      }
      const why = this.#budgetWords(window.limit);
      await this.#sleepUntil(window.resetAtMs + this.#resetMarginMs, now, signal, deadline, onWait, why);
    }
  }

  /**
   * Merges what a response said. Requests still in flight besides the one answered may not have been counted by the
   * server yet, so they are subtracted; within one window the lower of the local and the server's count wins.
   */
  update(info: RateLimitInfo | undefined): void {
    if (info === undefined) return;
    this.#learnWindow(info);
    this.#heard = true;
    this.#stated = true;
    const others = Math.max(0, this.#inFlight - 1);
    const serverRemaining = Math.max(0, info.remaining - others);
    const current = this.#window;
    if (current === undefined || !current.fromServer || info.resetAtMs > current.resetAtMs + SAME_WINDOW_TOLERANCE_MS) {
      // First word from the server, or a newer window: adopt it. An assumed budget (steady polling, a 429 without
      // headers) was a guess: the server's count replaces it, larger too (its own count holds every request it took,
      // and those still in flight are taken off), else the guess's 99 would hold a budget of a million to 100 a minute.
      this.#window = { limit: info.limit, remaining: serverRemaining, resetAtMs: info.resetAtMs, fromServer: true };
    } else if (info.resetAtMs >= current.resetAtMs - SAME_WINDOW_TOLERANCE_MS) {
      this.#window = {
        limit: info.limit,
        remaining: Math.min(current.remaining, serverRemaining),
        resetAtMs: info.resetAtMs,
        fromServer: true,
      };
    }
    // Otherwise: a late answer from an older window; it says nothing about the current one.
    this.#notify();
  }

  /**
   * When `count` more requests may start back to back (epoch ms; now when they may go at once), for a poller that
   * chooses its own moments (the follow engine's rounds). The budget is the server's stated limit, or the documented 100
   * when `steady()` or a 429 made it assumed; with neither there is none, and the answer is now (or a 429's "not
   * before"). It is spread over the window the server's resets show (`#spanMs`: its length, else the documented
   * minute). The rules, the latest wins:
   * - evenly: the requests granted since polling started (`steady`), spread at limit-per-window, have caught up; up to
   *   `burst` may go at once after a quiet spell (a round's worth, or a new task's quick first polls), so rounds come
   *   apart at the budget's rate; against a rolling window (`#rolling`) none, so a spent budget's waits are no quiet
   *   spell;
   * - no span of a window's length holds more than the limit, bursts included, unless the server's own count says the
   *   requests fit: a window it stated, not yet reset, with `count` left (what was sent before is in its count);
   * - a server-stated window with nothing left, or a 429, waits for its reset.
   * And none holds a request past the reset of the fixed window the server stated (plus the margin): then its whole
   * budget is back (a rolling window's reset gives back its oldest request only). A larger stated limit lets polling go
   * faster, a smaller one slower. `count` and `burst` are clamped to the limit.
   */
  readyAt(count: number, burst = 1): number {
    const now = this.#clock.now();
    const blocked = Math.max(now, this.#blockedUntilMs);
    let at = blocked;
    const limit = this.#paceLimit();
    if (limit === undefined) return at;
    const span = this.#spanMs();
    const held = this.#countedMs();
    const n = Math.min(limit, Math.max(1, Math.floor(count)));
    const allowance = this.#rolling ? n : Math.min(limit, Math.max(n, Math.floor(burst)));
    const interval = span / limit;
    at = Math.max(at, this.#evenAt + (n - allowance) * interval);
    const window = this.#window;
    const stated =
      this.#stated && window !== undefined && window.fromServer && now < window.resetAtMs ? window : undefined;
    this.#forget(now);
    const recent = this.#sent.filter((t) => t > now - held);
    const over = recent.length + n - limit;
    if (over > 0) at = Math.max(at, (recent[over - 1] ?? now) + held);
    // As acquire does: a spent window waits for its reset and the margin; a 429's window ends with its "not before".
    const spent = this.#stated && window !== undefined && window.remaining <= 0 && now < window.resetAtMs;
    if (spent && window.resetAtMs > this.#blockedUntilMs) at = Math.max(at, window.resetAtMs + this.#resetMarginMs);
    // A rolling window's reset gives back its oldest request, not the whole budget: no round is sure to fit then.
    if (stated !== undefined && !this.#rolling)
      at = Math.min(at, Math.max(blocked, stated.resetAtMs + this.#resetMarginMs));
    return at;
  }

  /** One acquired request has finished (answered or failed). */
  release(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#heard = true;
    this.#notify();
  }

  /** After a 429: nothing may be sent before `untilMs` (clamped to now+61 s). */
  limited(untilMs: number): void {
    const now = this.#clock.now();
    const until = now + clampWait(untilMs - now);
    this.#blockedUntilMs = Math.max(this.#blockedUntilMs, until);
    // The server's explicit word wins over the window we knew: empty until then, a fresh window afterwards.
    if (this.#window !== undefined) this.#window = { ...this.#window, remaining: 0, resetAtMs: until };
    this.#heard = true;
    this.#assume = true;
  }

  /**
   * Long-running polling (wait, watch) from here on: while the server states no budget, keep to the documented
   * 100 requests/min rather than going at full speed until a 429. The even pace starts here: requests sent before
   * (a create's chunks) still count against the window (`#spanMs`) and the server's budget, but are no debt the first round
   * waits out (docs/behaviour.md#pacing-and-the-rate-limit).
   */
  steady(): void {
    this.#assume = true;
    this.#evenAt = Number.NEGATIVE_INFINITY;
  }

  /** The budget now: `undefined` before any server has stated one. A window already past its reset shows as full. */
  snapshot(): RateLimitSnapshot | undefined {
    const window = this.#window;
    if (window === undefined) return undefined;
    const now = this.#clock.now();
    const expired = now >= window.resetAtMs && now >= this.#blockedUntilMs;
    return {
      limit: window.limit,
      remaining: expired ? window.limit : window.remaining,
      resetAtMs: Math.max(window.resetAtMs, this.#blockedUntilMs),
      source: window.fromServer ? 'server' : 'assumed',
    };
  }

  /**
   * What holds a request now, in the words of a wait's notice (`the rate limit (100 requests/min)`): a 429's "not
   * before" while it lasts, else the budget. For a caller that waits on `readyAt` itself (the follow engine's rounds).
   */
  holdWords(): string {
    const why =
      this.#clock.now() < this.#blockedUntilMs
        ? 'the server asked to wait'
        : this.#budgetWords(this.#window?.limit ?? ASSUMED_LIMIT);
    return `the rate limit (${why})`;
  }

  /**
   * The budget in words (`100 requests/min`), undefined before any server stated one. Per minute as documented
   * (docs/openapi.json: X-RateLimit-Limit) once the resets show a minute (`#minuteShown`), `6 requests per 20s` when
   * they show another window, else `6 requests a window`: its length not shown (yet), or only its being shorter.
   */
  budgetWords(): string | undefined {
    return this.#window === undefined ? undefined : this.#budgetWords(this.#window.limit);
  }

  #budgetWords(limit: number): string {
    const count = thousands(limit);
    const shown = this.#windowShown;
    // The documented minute where it is shown, or where no server stated a budget (the documented one is assumed).
    if (shown === undefined && (this.#minuteShown || !this.#stated)) return `${count} requests/min`;
    return typeof shown === 'number' ? `${count} requests per ${formatDuration(shown)}` : `${count} requests a window`;
  }

  /**
   * Two windows' resets: windows do not overlap, so resets less than a minute apart show a shorter window; when the
   * later window's first answer came just after the earlier reset (a wait for it, its margin), they are neighbours
   * and the gap is its length (whole-second resets: snapped to 5 s when within the tolerance of it). A later reset
   * stated before the earlier one has come is no new window (a fixed window's next reset shows only once the last has
   * passed) but the same one moved, as a server counting a minute from its latest answer moves it: it shows no length,
   * and no shorter window. Nor does a later reset that shows a rolling window (`#rollingShown`): a second or two after
   * the last as its oldest requests age out, it is no window of that length.
   */
  #learnWindow({ limit, remaining, resetAtMs }: RateLimitInfo): void {
    if (resetAtMs - this.#clock.now() >= WINDOW_MS - SAME_WINDOW_TOLERANCE_MS) this.#minuteShown = true;
    const last = this.#lastServerResetMs;
    if (last !== undefined && resetAtMs <= last + SAME_WINDOW_TOLERANCE_MS) return;
    this.#lastServerResetMs = resetAtMs;
    if (last === undefined) return;
    const now = this.#clock.now();
    if (now < last - SAME_WINDOW_TOLERANCE_MS) return;
    if (this.#rollingShown(limit, remaining, resetAtMs, last)) {
      this.#rolling = true;
      this.#minuteShown = true;
      return;
    }
    const gap = resetAtMs - last;
    const neighbours = now - last <= this.#resetMarginMs + SAME_WINDOW_TOLERANCE_MS;
    const spanBefore = this.#spanMs();
    this.#shortestGapMs = Math.min(this.#shortestGapMs, gap);
    if (neighbours) {
      const fives = Math.round(gap / 5000) * 5000;
      const length = Math.abs(gap - fives) <= SAME_WINDOW_TOLERANCE_MS ? fives : Math.round(gap / 1000) * 1000;
      const minute = Math.abs(length - WINDOW_MS) <= SAME_WINDOW_TOLERANCE_MS;
      this.#windowShown = minute ? undefined : length;
      if (minute) this.#minuteShown = true;
    } else if (gap < WINDOW_MS - SAME_WINDOW_TOLERANCE_MS) {
      this.#windowShown = 'short';
    }
    // What the even pace still owes was counted at the old span's rate: owed at the new one from here on.
    if (this.#evenAt > now) this.#evenAt = now + ((this.#evenAt - now) * this.#spanMs()) / spanBefore;
  }

  /**
   * A later reset shows a rolling window, not a new fixed one, when the budget did not come back whole at the last
   * reset (what is left and what was sent since fall short of the limit) and the new reset is a minute after a request
   * this client sent: that request ages out of the window then. Against a fixed window of any length, this client's
   * requests since its reset and what is left make the limit, unless another client shares the budget; and its next
   * reset comes a window after the last, not a minute after a request.
   */
  #rollingShown(limit: number, remaining: number, resetAtMs: number, last: number): boolean {
    this.#forget(this.#clock.now());
    const since = this.#sent.filter((t) => t > last - SAME_WINDOW_TOLERANCE_MS).length;
    if (remaining + since >= limit) return false;
    // Whole-second resets, and a Date header's whole seconds they are measured against: up to 2 s late, as neighbours.
    const near = this.#resetMarginMs + SAME_WINDOW_TOLERANCE_MS;
    return this.#sent.some((t) => Math.abs(t + WINDOW_MS - resetAtMs) <= near);
  }

  /**
   * The span the pace spreads a budget over, and the one no stretch of which holds more than the limit: the server's
   * window as its resets show it. Its length when they show it; for a shorter window whose length they do not show,
   * the shortest gap between two resets (no window outlasts it; the tolerance covers whole-second reset values);
   * else the documented minute.
   */
  #spanMs(): number {
    const shown = this.#windowShown;
    if (typeof shown === 'number') return Math.min(shown, WINDOW_MS);
    if (shown === 'short') return Math.min(this.#shortestGapMs + SAME_WINDOW_TOLERANCE_MS, WINDOW_MS);
    return WINDOW_MS;
  }

  /** The budget the pace spreads: the stated limit, the documented one when assumed, none otherwise. */
  #paceLimit(): number | undefined {
    if (this.#stated) return this.#window?.limit ?? ASSUMED_LIMIT;
    return this.#assume ? (this.#window?.limit ?? ASSUMED_LIMIT) : undefined;
  }

  /** Counts a granted request in flight and in the pace's record. */
  #grant(now: number): void {
    this.#inFlight += 1;
    this.#forget(now);
    this.#sent.push(now);
    const interval = this.#spanMs() / (this.#paceLimit() ?? ASSUMED_LIMIT);
    this.#evenAt = Math.max(this.#evenAt, now) + interval;
  }

  /**
   * How long a granted request counts against the window: its span, and against a rolling window the margin too (the
   * server counts it from when it came, and may state its reset in whole seconds).
   */
  #countedMs(): number {
    return this.#spanMs() + (this.#rolling ? this.#resetMarginMs : 0);
  }

  /** Drops grants older than the documented minute and the margin, the longest the pace looks back. */
  #forget(now: number): void {
    let old = 0;
    while (old < this.#sent.length && (this.#sent[old] ?? now) <= now - WINDOW_MS - this.#resetMarginMs) old++;
    if (old > 0) this.#sent.splice(0, old);
  }

  #current(now: number): Window {
    const window = this.#window;
    if (window === undefined) {
      const limit = ASSUMED_LIMIT;
      this.#window = { limit, remaining: limit, resetAtMs: now + WINDOW_MS, fromServer: false };
      return this.#window;
    }
    if (now >= window.resetAtMs && this.#rolling) {
      this.#window = this.#rolled(window, now);
      return this.#window;
    }
    if (now >= window.resetAtMs) {
      // The window is over: the full budget is back; the next response will correct our guess of the new reset.
      this.#window = {
        limit: window.limit,
        remaining: window.limit,
        resetAtMs: now + this.#spanMs(),
        fromServer: false,
      };
      return this.#window;
    }
    return window;
  }

  /**
   * A rolling window past the reset last stated or guessed: that reset gave back its oldest request, not the whole
   * budget, so one more than was left (no more than the requests granted within the window leave room for), and the
   * next one a request's share of the window later. The next answer replaces this guess.
   */
  #rolled(window: Window, now: number): Window {
    const counted = this.#countedMs();
    this.#forget(now);
    const recent = this.#sent.filter((t) => t > now - counted).length;
    return {
      limit: window.limit,
      remaining: Math.max(0, Math.min(window.limit - recent, window.remaining + 1)),
      resetAtMs: now + this.#spanMs() / window.limit,
      fromServer: false,
    };
  }

  async #sleepUntil(
    target: number,
    now: number,
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    onWait: WaitListener | undefined,
    why: string,
  ): Promise<void> {
    const waitMs = clampWait(target - now);
    if (deadline !== undefined && now + waitMs > deadline) {
      const budget = this.#budgetWords(this.#window?.limit ?? ASSUMED_LIMIT);
      throw new RateLimitError(
        `rate limit: the request budget (${budget}) is used up for another ${formatDuration(waitMs)}, past the deadline`,
        'Try again after the reset (`taskctl auth status` shows it), or allow more time with --timeout.',
      );
    }
    onWait?.(waitMs, `the rate limit (${why})`);
    await this.#clock.sleep(waitMs, signal);
  }

  async #nextChange(signal: AbortSignal | undefined): Promise<void> {
    try {
      await once(this.#changes, 'change', { signal });
    } catch (error) {
      // `once` rejects with its own AbortError; callers expect the signal's reason, as from every other wait.
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  #notify(): void {
    this.#changes.emit('change');
  }
}
