/**
 * A 429 whose `X-RateLimit-Remaining` is 0 but whose `X-RateLimit-Reset` is missing or unreadable (`-3`, `soon`) states
 * no wait: the resends go after the usual backoff within the request's budget, said as the rate limit, never as a wait
 * "the server asked" for, and never a minute each (docs/behaviour.md, resend policy).
 */
import { describe, expect, it } from 'vitest';
import { parseRateLimit } from '../../../src/api/rate-limit.js';
import { FakeClock, mockApi, runTaskctl, T0 } from '../commands/run-in-process.js';

const LIMITED = { success: false, error: { code: 'rate_limited', message: 'slow down' } };
const BALANCE = { success: true, data: { balance: 120, currency: 'coins' } };

describe('a 429 with an empty budget and no reset it can read', () => {
  it.each([
    ['no reset', {}],
    ['a negative reset', { 'x-ratelimit-reset': '-3' }],
    ['a reset that is not a number', { 'x-ratelimit-reset': 'soon' }],
    ['a Retry-After that is not a number beside it', { 'retry-after': 'abc' }],
  ])('%s: backoff waits, not a minute each, and no "the server asked"', async (_, extra) => {
    const api = mockApi();
    const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', ...extra };
    api.reply('GET', '/balance', 429, LIMITED, { headers, times: 2 });
    api.reply('GET', '/balance', 200, BALANCE, {
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '97' },
    });
    const clock = new FakeClock();
    const result = await runTaskctl(['balance'], { api, clock, stderrTTY: false });
    expect(result.code, result.stderr).toBe(0);
    expect(api.calls).toEqual(['GET /balance', 'GET /balance', 'GET /balance']);
    expect(result.stderr).not.toMatch(/the server asked/);
    // Two backoffs (0.5 s and 1 s, jittered down by up to 25%), and no hold of the limiter's for an unstated minute.
    expect(clock.now() - T0).toBeLessThan(2_000);
  });

  it('every answer a 429 without a readable reset: exit 7 after 4 attempts in seconds, not minutes', async () => {
    const api = mockApi();
    const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '-3' };
    api.reply('GET', '/balance', 429, LIMITED, { headers, times: 4 });
    const clock = new FakeClock();
    const result = await runTaskctl(['balance'], { api, clock });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(
      /^error: reading the balance: rate limited \(HTTP 429: slow down\) after 4 attempts$/m,
    );
    expect(result.stderr).not.toMatch(/the server asked|waiting 1m/);
    expect(clock.now() - T0).toBeLessThan(4_000);
  });

  it("a stated reset is still waited for, and said as the server's", async () => {
    const api = mockApi();
    const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '20' };
    api.reply('GET', '/balance', 429, LIMITED, { headers });
    api.reply('GET', '/balance', 200, BALANCE, {
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99' },
    });
    const clock = new FakeClock();
    const result = await runTaskctl(['balance'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(clock.now() - T0).toBeGreaterThanOrEqual(20_000);
    expect(result.stderr).toMatch(/waiting 20s for the rate limit \(the server asked to wait\)/);
  });
});

describe('parseRateLimit: a reset it cannot read is assumed, and says so', () => {
  it.each([
    ['missing', undefined],
    ['negative', '-3'],
    ['garbage', 'soon'],
  ])('%s', (_, reset) => {
    const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset };
    // Pacing keeps the documented minute; a 429 reads `resetAssumed` and does not wait for it.
    expect(parseRateLimit(headers, T0)).toEqual({
      limit: 100,
      remaining: 0,
      resetAtMs: T0 + 60_000,
      resetAssumed: true,
    });
  });

  it('a readable reset is stated', () => {
    const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' };
    expect(parseRateLimit(headers, T0)).toEqual({ limit: 100, remaining: 0, resetAtMs: T0 });
  });
});
