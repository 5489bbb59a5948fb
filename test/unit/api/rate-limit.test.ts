import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RATE_LIMIT_WAIT_MS, parseRateLimit, RateLimiter } from '../../../src/api/rate-limit.js';
import { ExitCode, RateLimitError } from '../../../src/errors.js';
import { FakeClock, settle, T0 } from './mock-agent.js';

const headers = (limit: string, remaining: string, reset: string, extra: Record<string, string> = {}) => ({
  'x-ratelimit-limit': limit,
  'x-ratelimit-remaining': remaining,
  'x-ratelimit-reset': reset,
  ...extra,
});

describe('parseRateLimit', () => {
  it('reads a small reset as seconds until the reset', () => {
    expect(parseRateLimit(headers('100', '42', '30'), T0)).toEqual({
      limit: 100,
      remaining: 42,
      resetAtMs: T0 + 30_000,
    });
  });

  it('reads a large reset as epoch seconds, measured against the Date header (clock skew cancels out)', () => {
    const serverNow = T0 - 3_600_000; // server clock an hour behind ours
    const reset = String(serverNow / 1000 + 25);
    const info = parseRateLimit(headers('100', '1', reset, { date: new Date(serverNow).toUTCString() }), T0);
    expect(info?.resetAtMs).toBe(T0 + 25_000);
  });

  it('accepts the Date header as an argument', () => {
    const serverNow = T0 + 7_000;
    expect(
      parseRateLimit(headers('100', '1', String(serverNow / 1000 + 10)), T0, new Date(serverNow).toUTCString())
        ?.resetAtMs,
    ).toBe(T0 + 10_000);
  });

  it('reads a reset of 10^12 or more as epoch milliseconds (a 30 s reset, not the 61 s clamp), with or without Date', () => {
    const serverNow = T0 - 3_600_000;
    const withDate = headers('100', '0', String(serverNow + 30_000), { date: new Date(serverNow).toUTCString() });
    expect(parseRateLimit(withDate, T0)?.resetAtMs).toBe(T0 + 30_000);
    expect(parseRateLimit(headers('100', '0', String(T0 + 30_000)), T0)?.resetAtMs).toBe(T0 + 30_000);
    // The three dialects of one moment agree: delta seconds, epoch seconds, epoch milliseconds.
    const dialects = ['30', String(T0 / 1000 + 30), String(T0 + 30_000)];
    expect(dialects.map((reset) => parseRateLimit(headers('100', '0', reset), T0)?.resetAtMs)).toEqual([
      T0 + 30_000,
      T0 + 30_000,
      T0 + 30_000,
    ]);
  });

  it('without a Date header, epoch seconds are compared with the local clock', () => {
    expect(parseRateLimit(headers('100', '1', String(T0 / 1000 + 12)), T0)?.resetAtMs).toBe(T0 + 12_000);
  });

  it.each([
    ['far-future epoch', String(T0 / 1000 + 10 * 365 * 86_400), T0 + MAX_RATE_LIMIT_WAIT_MS],
    ['epoch in the past', String(T0 / 1000 - 600), T0],
    ['huge delta', '999999', T0 + MAX_RATE_LIMIT_WAIT_MS],
    ['zero', '0', T0],
    ['negative', '-5', T0 + 60_000],
    ['garbage', 'soon', T0 + 60_000],
    ['NaN', 'NaN', T0 + 60_000],
    ['missing', '', T0 + 60_000],
  ])('clamps or defaults the reset: %s', (_name, reset, expected) => {
    expect(parseRateLimit(headers('100', '5', reset), T0)?.resetAtMs).toBe(expected);
  });

  it('treats a negative remaining as zero and caps remaining at the limit', () => {
    expect(parseRateLimit(headers('100', '-3', '10'), T0)?.remaining).toBe(0);
    expect(parseRateLimit(headers('10', '50', '10'), T0)?.remaining).toBe(10);
  });

  it.each([
    ['no headers', {}],
    ['garbage limit', headers('lots', '5', '10')],
    ['zero limit', headers('0', '0', '10')],
    ['garbage remaining', headers('100', 'x', '10')],
    ['fractional limit', headers('10.5', '1', '10')],
  ])('gives undefined for %s', (_name, h) => {
    expect(parseRateLimit(h, T0)).toBeUndefined();
  });

  it('reads a Headers object and a record with mixed-case names', () => {
    const web = new Headers(headers('60', '59', '60'));
    expect(parseRateLimit(web, T0)).toEqual({ limit: 60, remaining: 59, resetAtMs: T0 + 60_000 });
    expect(
      parseRateLimit({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': ['3', '4'], 'X-RateLimit-Reset': '5' }, T0),
    ).toEqual({
      limit: 60,
      remaining: 3,
      resetAtMs: T0 + 5_000,
    });
  });

  it('whatever the headers say, the reset lies within now..now+61 s', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer().map(String),
      fc.double().map(String),
      fc.integer({ min: 0, max: 4_000_000_000 }).map(String),
    );
    fc.assert(
      fc.property(
        value,
        value,
        value,
        fc.option(fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'garbage' : d.toUTCString()))),
        (l, r, reset, date) => {
          const info = parseRateLimit(headers(l, r, reset, date ? { date } : {}), T0);
          if (info === undefined) return true;
          return (
            info.resetAtMs >= T0 &&
            info.resetAtMs <= T0 + MAX_RATE_LIMIT_WAIT_MS &&
            Number.isInteger(info.limit) &&
            info.limit > 0 &&
            info.remaining >= 0 &&
            info.remaining <= info.limit
          );
        },
      ),
    );
  });
});

/** Fires `n` concurrent acquires (each released once granted) and returns the times they were granted. */
async function burst(limiter: RateLimiter, clock: FakeClock, n: number, deadline?: number): Promise<number[]> {
  const grantedAt: number[] = [];
  const all = Array.from({ length: n }, () =>
    limiter.acquire(undefined, deadline).then(() => {
      grantedAt.push(clock.now());
      limiter.release();
    }),
  );
  const done = Promise.all(all);
  await clock.runUntilIdle();
  await done;
  return grantedAt;
}

describe('RateLimiter', () => {
  it('never lets a burst exceed the budget, in the current window or any later one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 1, max: 120 }),
        async (limit, remainingRaw, resetInMs, n) => {
          const remaining = Math.min(remainingRaw, limit);
          const clock = new FakeClock({ auto: false });
          const limiter = new RateLimiter({ clock });
          limiter.update({ limit, remaining, resetAtMs: T0 + resetInMs });
          const grantedAt = await burst(limiter, clock, n);
          expect(grantedAt).toHaveLength(n);
          // Before the server's reset: at most what it said remained.
          expect(grantedAt.filter((t) => t < T0 + resetInMs).length).toBeLessThanOrEqual(remaining);
          // After it: at most `limit` in any 60 s span (the grants that open a span holding more, gathered and
          // compared once, not an expect() per grant).
          const later = grantedAt.filter((t) => t >= T0 + resetInMs).sort((a, b) => a - b);
          expect(later.filter((t, i) => i + limit < later.length && later[i + limit]! - t < 60_000)).toEqual([]);
          // No single wait beyond the clamp.
          expect(Math.max(0, ...clock.sleeps)).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('waits for the reset (plus a margin) once the budget is spent', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 1, resetAtMs: T0 + 20_000 });
    await limiter.acquire();
    limiter.release();
    expect(clock.sleeps).toEqual([]);
    await limiter.acquire();
    limiter.release();
    expect(clock.sleeps).toEqual([21_000]);
    expect(limiter.snapshot()).toMatchObject({ limit: 100, remaining: 99, source: 'assumed' });
  });

  it('clamps a wait to 61 s even when told of a later reset', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, resetMarginMs: 5_000 });
    limiter.update({ limit: 10, remaining: 0, resetAtMs: T0 + 60_000 });
    await limiter.acquire();
    expect(clock.sleeps).toEqual([MAX_RATE_LIMIT_WAIT_MS]);
  });

  it('throws RateLimitError instead of waiting past the deadline', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 0, resetAtMs: T0 + 30_000 });
    const error = await limiter.acquire(undefined, T0 + 10_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).exitCode).toBe(ExitCode.rateLimited);
    expect((error as Error).message).toMatch(/deadline/);
    expect(clock.sleeps).toEqual([]);
  });

  it('subtracts other in-flight requests from what the server reports', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 50, resetAtMs: T0 + 30_000 });
    for (let i = 0; i < 5; i++) await limiter.acquire();
    // One answer arrives; the server saw only that one: 49 left for it, but 4 others are still on their way.
    limiter.update({ limit: 100, remaining: 49, resetAtMs: T0 + 30_000 });
    limiter.release();
    expect(limiter.snapshot()?.remaining).toBe(45);
    expect(limiter.inFlight).toBe(4);
  });

  it('adopts a newer window from the server and ignores a late answer from an older one', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 3, resetAtMs: T0 + 10_000 });
    limiter.update({ limit: 100, remaining: 99, resetAtMs: T0 + 70_000 });
    expect(limiter.snapshot()).toMatchObject({ remaining: 99, resetAtMs: T0 + 70_000, source: 'server' });
    limiter.update({ limit: 100, remaining: 2, resetAtMs: T0 + 10_000 });
    expect(limiter.snapshot()).toMatchObject({ remaining: 99, resetAtMs: T0 + 70_000 });
  });

  it('keeps the lower count within one window', () => {
    const limiter = new RateLimiter({ clock: new FakeClock() });
    limiter.update({ limit: 100, remaining: 10, resetAtMs: T0 + 30_000 });
    limiter.update({ limit: 100, remaining: 20, resetAtMs: T0 + 30_500 });
    expect(limiter.snapshot()?.remaining).toBe(10);
  });

  it('probes with one request at a time until the server states its budget', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    await limiter.acquire();
    let second = false;
    const pending = limiter.acquire().then(() => (second = true));
    await settle();
    expect(second).toBe(false);
    limiter.update({ limit: 5, remaining: 4, resetAtMs: T0 + 60_000 });
    await pending;
    expect(second).toBe(true);
  });

  it('invents no limit for a server that sends no rate-limit headers: a burst goes at full speed', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    await limiter.acquire();
    limiter.release(); // answered without rate-limit headers
    const grantedAt = await burst(limiter, clock, 150);
    expect(grantedAt.filter((t) => t === T0)).toHaveLength(150);
    expect(limiter.snapshot()).toBeUndefined();
  });

  it('after a 429 from a server without headers, keeps to the documented 100 per minute', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    await limiter.acquire();
    limiter.limited(T0 + 1_000); // a 429 with Retry-After: 1
    limiter.release();
    const grantedAt = await burst(limiter, clock, 150);
    expect(grantedAt.filter((t) => t < T0 + 1_000)).toHaveLength(0);
    expect(grantedAt.filter((t) => t < T0 + 61_000)).toHaveLength(100);
  });

  it('steady polling (wait, watch) keeps to the documented 100 per minute while it has seen no headers', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    limiter.steady();
    await limiter.acquire();
    limiter.release(); // answered without rate-limit headers
    const grantedAt = await burst(limiter, clock, 150);
    expect(grantedAt.filter((t) => t < T0 + 60_000)).toHaveLength(99);
  });

  it('steady polling: the budget the server first states replaces the assumed one, larger too (999,999 left is not 99)', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    limiter.steady();
    await limiter.acquire();
    limiter.update({ limit: 1_000_000, remaining: 999_999, resetAtMs: T0 + 60_000 });
    limiter.release();
    const grantedAt = await burst(limiter, clock, 150);
    // The assumed 100 per minute's 99 left held it to 99 and then a wait for the reset (1m1s).
    expect(grantedAt.filter((t) => t < T0 + 60_000)).toHaveLength(150);
    expect(limiter.snapshot()).toMatchObject({ limit: 1_000_000 });
  });

  it('paces by the headers once a server states them, whatever the mode', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    await limiter.acquire();
    limiter.update({ limit: 10, remaining: 9, resetAtMs: T0 + 30_000 });
    limiter.release();
    const grantedAt = await burst(limiter, clock, 20);
    expect(grantedAt.filter((t) => t < T0 + 30_000)).toHaveLength(9);
  });

  it('after a 429 nothing goes out before the server allows it', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 40, resetAtMs: T0 + 50_000 });
    limiter.limited(T0 + 7_000);
    expect(limiter.snapshot()).toMatchObject({ remaining: 0 });
    await limiter.acquire();
    expect(clock.sleeps).toEqual([7_000]);
  });

  it('clamps a 429 block to 61 s', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.limited(T0 + 3_600_000);
    await limiter.acquire();
    expect(clock.sleeps).toEqual([MAX_RATE_LIMIT_WAIT_MS]);
  });

  it('rejects with the abort reason while waiting', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 1, remaining: 0, resetAtMs: T0 + 30_000 });
    const controller = new AbortController();
    const pending = limiter.acquire(controller.signal).catch((e: unknown) => e);
    await settle();
    controller.abort(new Error('interrupted'));
    expect(((await pending) as Error).message).toBe('interrupted');
  });

  it('has no snapshot before anything is known', () => {
    expect(new RateLimiter({ clock: new FakeClock() }).snapshot()).toBeUndefined();
  });
});

/** A poller that asks readyAt before each round of `size` requests and sends them when it says (the follow engine). */
async function pacedRounds(limiter: RateLimiter, clock: FakeClock, rounds: number, size: number): Promise<number[]> {
  const sent: number[] = [];
  for (let r = 0; r < rounds; r++) {
    clock.nowMs = Math.max(clock.nowMs, limiter.readyAt(size, 4));
    for (let i = 0; i < size; i++) {
      await limiter.acquire();
      sent.push(clock.now());
      limiter.release();
    }
  }
  return sent;
}

describe('RateLimiter.readyAt: the pace polling asks for', () => {
  it('with no budget known (no headers, no 429, not steady) it holds nothing back', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    expect(limiter.readyAt(4, 4)).toBe(T0);
  });

  it('steady without headers: rounds of 4 come apart at the documented 100/min (0.6 s a request), bursts of 4 allowed', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.steady();
    const sent = await pacedRounds(limiter, clock, 3, 4);
    expect(sent).toEqual([
      T0,
      T0,
      T0,
      T0,
      T0 + 2400,
      T0 + 2400,
      T0 + 2400,
      T0 + 2400,
      T0 + 4800,
      T0 + 4800,
      T0 + 4800,
      T0 + 4800,
    ]);
    // A single request after a round of 4 waits only for its own share.
    expect(limiter.readyAt(1, 4)).toBe(T0 + 4800 + 600);
  });

  it('a stated limit sets the pace: 10/min is a request every 6 s, 1,000/min one every 60 ms, after a burst of 4', async () => {
    for (const [limit, gap] of [
      [10, 6000],
      [1000, 60],
    ] as const) {
      const clock = new FakeClock();
      const limiter = new RateLimiter({ clock });
      limiter.update({ limit, remaining: limit, resetAtMs: T0 + 60_000 });
      const sent = await pacedRounds(limiter, clock, 6, 1);
      // A burst of 4 after the quiet start, then the even pace.
      expect(sent.slice(1).map((t, i) => t - sent[i]!)).toEqual([0, 0, 0, gap, gap]);
    }
  });

  it('requests sent before polling starts (a create’s chunks) are no debt for it: its first round goes at once', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    // Twenty creates in 2 s, as the server counts them: 80 of 100 left in its window.
    for (let i = 1; i <= 20; i++) {
      await limiter.acquire();
      limiter.update({ limit: 100, remaining: 100 - i, resetAtMs: T0 + 60_000 });
      limiter.release();
      clock.advance(100);
    }
    limiter.steady();
    const start = clock.now();
    expect(limiter.readyAt(1, 4)).toBe(start);
    // From there on the poll's own requests set the even pace: bursts of 4, then 0.6 s a request.
    const sent = await pacedRounds(limiter, clock, 2, 4);
    expect(sent).toEqual([start, start, start, start, start + 2400, start + 2400, start + 2400, start + 2400]);
  });

  it('the minute before polling still counts: after 98 of 100 requests the poll sends 2 and waits for the oldest to age', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.steady();
    for (let i = 0; i < 98; i++) {
      await limiter.acquire();
      limiter.release();
    }
    clock.advance(5000);
    limiter.steady();
    expect(limiter.readyAt(2, 4)).toBe(T0 + 5000);
    expect(limiter.readyAt(3, 4)).toBe(T0 + 60_000);
  });

  it('a stated window with nothing left waits for its reset plus the margin; a 429 for its Retry-After', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 100, remaining: 0, resetAtMs: T0 + 20_000 });
    expect(limiter.readyAt(1, 4)).toBe(T0 + 21_000);
    const other = new RateLimiter({ clock });
    other.limited(T0 + 7_000);
    expect(other.readyAt(1, 4)).toBe(T0 + 7_000);
    // After a 429 from a server that states its budget, the same moment acquire would send at.
    limiter.limited(T0 + 30_000);
    expect(limiter.readyAt(1, 4)).toBe(T0 + 30_000);
  });

  it('with the documented budget assumed (no headers), whatever the round sizes, no 60 s span holds more than it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 40 }),
        async (sizes, before) => {
          const clock = new FakeClock();
          const limiter = new RateLimiter({ clock });
          const budget = 100;
          const sent: number[] = [];
          // A burst before polling starts (a create's chunks) counts too, though it sets no debt for the pace.
          limiter.steady();
          for (let i = 0; i < before; i++) {
            await limiter.acquire();
            sent.push(clock.now());
            limiter.release();
          }
          limiter.steady();
          for (const size of sizes) sent.push(...(await pacedRounds(limiter, clock, 1, size)));
          for (let i = 0; i + budget < sent.length; i++)
            expect(sent[i + budget]! - sent[i]!).toBeGreaterThanOrEqual(60_000);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a server stating fixed windows of any length: none holds more than its limit, and no hold outlasts the stated reset', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(5_000, 10_000, 20_000, 60_000),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 30 }),
        async (limit, windowMs, sizes, before) => {
          const clock = new FakeClock();
          const limiter = new RateLimiter({ clock });
          const used = new Map<number, number>();
          // One request as the server counts it: its window aligned to T0, its budget stated in every answer.
          const send = async () => {
            await limiter.acquire();
            const now = clock.now();
            const start = now - ((now - T0) % windowMs);
            const count = (used.get(start) ?? 0) + 1;
            used.set(start, count);
            limiter.update({ limit, remaining: Math.max(0, limit - count), resetAtMs: start + windowMs });
            limiter.release();
          };
          for (let i = 0; i < before; i++) await send();
          limiter.steady();
          // Each round's hold past the stated reset, and each window over its limit, gathered and compared once (not an
          // expect() per round and window).
          const holds: string[] = [];
          for (const size of sizes) {
            const now = clock.now();
            const at = limiter.readyAt(size, 4);
            const stated = limiter.snapshot();
            // `!(… <= …)`: a time that is not a number is a hold too (NaN compares false either way).
            if (stated?.source === 'server' && now < stated.resetAtMs && !(at <= stated.resetAtMs + 1000))
              holds.push(`at ${now - T0}: held until ${at - T0}, reset at ${stated.resetAtMs - T0}`);
            clock.nowMs = Math.max(now, at);
            for (let i = 0; i < size; i++) await send();
          }
          expect(holds).toEqual([]);
          expect([...used.values()].filter((count) => count > limit)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  /** A limiter that has seen two neighbouring windows of 5 requests, 10 s apart: the first spent at T0. */
  async function tenSecondWindows(clock: FakeClock): Promise<RateLimiter> {
    const limiter = new RateLimiter({ clock });
    for (let remaining = 4; remaining >= 0; remaining--) {
      await limiter.acquire();
      limiter.update({ limit: 5, remaining, resetAtMs: T0 + 10_000 });
      limiter.release();
    }
    // The next window's first answer, just after the reset and the margin: the gap is the window's length.
    clock.advance(11_000);
    await limiter.acquire();
    limiter.update({ limit: 5, remaining: 4, resetAtMs: T0 + 20_000 });
    limiter.release();
    return limiter;
  }

  it('the pace spans the window the resets show: at 5 per 10 s, what was sent 11 s ago is past, 2 s a request', async () => {
    const clock = new FakeClock();
    const limiter = await tenSecondWindows(clock);
    expect(limiter.budgetWords()).toBe('5 requests per 10s');
    limiter.steady();
    // The 5 of the last window are outside a 10 s span, and this window has 4 left: a round of 4 goes at once (the
    // minute's rule held it till T0 + 60 s).
    expect(limiter.readyAt(4, 4)).toBe(T0 + 11_000);
    const sent = await pacedRounds(limiter, clock, 6, 1);
    // A burst of 4 spends the window; the next requests wait for its reset and the margin (a quiet spell: a burst again).
    expect(sent.map((t) => t - T0)).toEqual([11_000, 11_000, 11_000, 11_000, 21_000, 21_000]);
    // The even pace is 2 s a request: 3 more go once the burst's share has caught up.
    expect(limiter.readyAt(3, 4)).toBe(T0 + 23_000);
  });

  it('a window over before any answer of the next is guessed as long as the resets show: 10 s, not a minute', async () => {
    const clock = new FakeClock();
    const limiter = await tenSecondWindows(clock);
    for (let i = 0; i < 4; i++) await limiter.acquire();
    // Past the reset, five more go before any answer (show --job reads ahead): the sixth waits for the guessed reset.
    clock.nowMs = T0 + 21_000;
    for (let i = 0; i < 5; i++) await limiter.acquire();
    await limiter.acquire();
    expect(clock.sleeps.at(-1)).toBe(11_000);
  });

  it('no hold outlasts the reset of a window the server stated: a round larger than what is left goes at the reset', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    // A window that resets in 9 s, its length not yet shown: the pace spans the documented minute.
    limiter.update({ limit: 5, remaining: 5, resetAtMs: T0 + 9_000 });
    for (let i = 0; i < 4; i++) {
      await limiter.acquire();
      limiter.release();
    }
    limiter.steady();
    expect(limiter.readyAt(1, 4)).toBe(T0);
    // Two need more than the 1 left: the minute's rule would hold them till T0 + 60 s; the reset gives 5 at T0 + 9 s.
    expect(limiter.readyAt(2, 4)).toBe(T0 + 10_000);
  });

  it('a shorter window whose length the resets do not show: the pace spans the gap between two resets', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    limiter.update({ limit: 5, remaining: 5, resetAtMs: T0 + 10_000 });
    clock.advance(25_000);
    // 35 s after the first reset: one window or several, none longer (the whole-second tolerance added: 36.5 s).
    limiter.update({ limit: 5, remaining: 5, resetAtMs: T0 + 45_000 });
    expect(limiter.budgetWords()).toBe('5 requests a window');
    limiter.steady();
    const sent = await pacedRounds(limiter, clock, 5, 1);
    // A burst of 4, then 36.5 s / 5 = 7.3 s a request (12 s, a minute's share, before).
    expect(sent.map((t) => t - T0)).toEqual([25_000, 25_000, 25_000, 25_000, 32_300]);
  });

  it('its words name no minute the resets have not shown: a window, per 5s once two show it, /min for a reset a minute ahead', () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    // The first answer of a 5 s window: its reset 4 s ahead says nothing of the window's length.
    limiter.update({ limit: 4, remaining: 0, resetAtMs: T0 + 4_000 });
    expect(limiter.budgetWords()).toBe('4 requests a window');
    expect(limiter.holdWords()).toBe('the rate limit (4 requests a window)');
    // The next window's first answer, just after that reset: neighbours, 5 s apart.
    clock.nowMs = T0 + 5_000;
    limiter.update({ limit: 4, remaining: 3, resetAtMs: T0 + 9_000 });
    expect(limiter.budgetWords()).toBe('4 requests per 5s');
    // A window of at least a minute: its reset stated a minute ahead (the contract's minute, docs/openapi.json).
    const minute = new RateLimiter({ clock });
    minute.update({ limit: 100, remaining: 99, resetAtMs: clock.now() + 60_000 });
    expect(minute.budgetWords()).toBe('100 requests/min');
  });

  it('a reset that moves forward with each answer (a minute after the latest) shows no shorter window: 0.6 s a request', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    const sent: number[] = [];
    limiter.steady();
    // 120 s of polling, one request a round as readyAt says, against a server of 100 a minute that states its reset
    // (whole seconds) a minute after each answer.
    while (clock.now() < T0 + 120_000) {
      clock.nowMs = Math.max(clock.now(), limiter.readyAt(1, 4));
      await limiter.acquire();
      const now = clock.now();
      sent.push(now);
      const counted = sent.filter((t) => t > now - 60_000).length;
      limiter.update({
        limit: 100,
        remaining: Math.max(0, 100 - counted),
        resetAtMs: Math.ceil((now + 60_000) / 1000) * 1000,
      });
      limiter.release();
    }
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    // Each new reset came while the last one was still ~58 s ahead: the same window moved, not a 2 s one.
    expect(limiter.budgetWords()).toBe('100 requests/min');
    // A burst of 4, then the minute's even pace (it was 20 ms a request: 100 in the first 20 s, then a stall); the
    // one longer hold is the server's own count at 0, to the reset it states (then a burst again).
    expect(gaps.slice(3).filter((gap) => gap > 0 && gap < 600)).toEqual([]);
    expect(gaps.filter((gap) => gap > 600)).toEqual([61_400]);
    expect(sent.filter((t) => t < T0 + 20_000)).toHaveLength(4 + Math.ceil(20_000 / 600) - 1);
  });

  /**
   * A server counting a sliding window of `limit` requests per minute: each answer's reset is when its oldest request
   * in the window ages out (in whole seconds, rounded up), and what is left counts down as requests age in and out. A
   * request over the limit is refused (`refused` counts them) and answers as a 429 of a minute.
   */
  function slidingWindow(limiter: RateLimiter, clock: FakeClock, limit: number) {
    const counted: number[] = [];
    const sent: number[] = [];
    let refused = 0;
    return {
      sent,
      get refused() {
        return refused;
      },
      /** One request: granted, answered at once, released. */
      answer(): void {
        const now = clock.now();
        sent.push(now);
        while (counted.length > 0 && counted[0]! <= now - 60_000) counted.shift();
        if (counted.length >= limit) {
          refused++;
          limiter.limited(now + 60_000);
        } else {
          counted.push(now);
          const resetAtMs = Math.ceil((counted[0]! + 60_000) / 1000) * 1000;
          limiter.update({ limit, remaining: limit - counted.length, resetAtMs });
        }
        limiter.release();
      },
      async request(): Promise<void> {
        await limiter.acquire();
        this.answer();
      },
    };
  }

  it('a sliding window: once the budget is spent, still 0.6 s a request, not clumps every 2 s, and its words say a minute', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock });
    const server = slidingWindow(limiter, clock, 100);
    limiter.steady();
    // 180 s of polling, one request a round as readyAt says, against 100 requests per sliding minute.
    while (clock.now() < T0 + 180_000) {
      clock.nowMs = Math.max(clock.now(), limiter.readyAt(1, 4));
      await server.request();
    }
    const { sent } = server;
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    expect(server.refused).toBe(0);
    // The budget is spent a little before T0 + 60 s (a burst of 4, then 0.6 s a request). Each reset after that is
    // a second or two after the last, as the oldest request ages out: no window of 2 s, and no burst after it.
    expect(limiter.budgetWords()).toBe('100 requests/min');
    expect(limiter.holdWords()).toBe('the rate limit (100 requests/min)');
    // A burst of 4, then never two requests closer than the even pace (it was 3 or 4 at once every 2 s), and no hold
    // longer than the whole-second reset and its margin (it was 3.4 s then 2 s, again and again).
    expect(gaps.slice(3).filter((gap) => gap < 600)).toEqual([]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(3_400);
    // About the budget's rate throughout: 100 a minute, less the margin a rolling window's request counts for.
    const lastMinute = sent.filter((t) => t > T0 + 120_000).length;
    expect(lastMinute).toBeGreaterThanOrEqual(95);
    expect(lastMinute).toBeLessThanOrEqual(100);
  });

  it('a sliding window of any budget, rounds of any size, after a create’s burst: no request over it, no window but the minute named', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 0, max: 40 }),
        async (limit, sizes, before) => {
          const clock = new FakeClock();
          const limiter = new RateLimiter({ clock });
          const server = slidingWindow(limiter, clock, limit);
          // A create's chunks first, as many as it sends (up to the budget and past it).
          for (let i = 0; i < before; i++) await server.request();
          limiter.steady();
          for (const size of sizes) {
            clock.nowMs = Math.max(clock.now(), limiter.readyAt(size, 4));
            for (let i = 0; i < size; i++) await server.request();
          }
          expect(server.refused).toBe(0);
          expect(limiter.budgetWords()).toBe(`${limit} requests/min`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a sliding window past a reset: reads sent together (read ahead) go as what aged out allows, not as if all were back', async () => {
    const clock = new FakeClock({ auto: false });
    const limiter = new RateLimiter({ clock });
    const server = slidingWindow(limiter, clock, 10);
    limiter.steady();
    // Two minutes of polling at the budget's pace: the server's resets have shown a rolling window, now spent.
    while (clock.now() < T0 + 125_000) {
      clock.nowMs = Math.max(clock.now(), limiter.readyAt(1, 4));
      const one = server.request();
      await clock.runUntilIdle();
      await one;
    }
    expect(limiter.snapshot()).toMatchObject({ remaining: 0, source: 'server' });
    // Past the reset it stated, five reads at once: one request aged out then, not ten (4 of them were refused).
    clock.nowMs = limiter.snapshot()!.resetAtMs + 1000;
    const start = server.sent.length;
    const reads = Promise.all(Array.from({ length: 5 }, () => server.request()));
    await clock.runUntilIdle();
    await reads;
    expect(server.refused).toBe(0);
    const times = server.sent.slice(start);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([6000, 6000, 6000, 6000]);
  });
});
