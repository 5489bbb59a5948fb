/** Fixed windows per key (one minute unless `--rate-window`), aligned to the clock (the same reset time for every key). */

export interface RateDecision {
  allowed: boolean;
  /** Header values; `reset` is epoch seconds of the window's end. */
  limit: number;
  remaining: number;
  reset: number;
  /** Whole seconds until the window ends, at least 1 (for Retry-After). */
  retryAfter: number;
  /** The window's length, ms (for the refusal's words). */
  windowMs: number;
}

export class FixedWindowLimiter {
  private windowStart = -1;
  /** Counts of the current window only; the map is dropped when the window rolls over, so it cannot grow forever. */
  private counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly now: () => number,
    private readonly windowMs = 60_000,
  ) {}

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Counts one request for `key` unless it is over the limit (rejected requests do not count). */
  hit(key: string): RateDecision {
    return this.decide(key, true);
  }

  /** The budget of `key` without counting a request. */
  peek(key: string): RateDecision {
    return this.decide(key, false);
  }

  private decide(key: string, count: boolean): RateDecision {
    const now = this.now();
    const windowStart = now - (now % this.windowMs);
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts = new Map();
    }
    const used = this.counts.get(key) ?? 0;
    const allowed = used < this.limit;
    const after = allowed && count ? used + 1 : used;
    if (after !== used) this.counts.set(key, after);
    const windowEnd = windowStart + this.windowMs;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - after),
      reset: Math.ceil(windowEnd / 1000),
      retryAfter: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      windowMs: this.windowMs,
    };
  }
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
  };
}
