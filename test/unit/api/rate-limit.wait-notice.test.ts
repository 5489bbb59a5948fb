/** A wait longer than 2 s (a 429's Retry-After, or the rate-limit budget) is announced once, before it starts. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { RateLimiter } from '../../../src/api/rate-limit.js';
import { apiFailure, FakeClock, JSON_HEADERS, makeClient, mockAgent, ok, T0 } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

const balancePath = { path: '/api/v1/balance', method: 'GET' };
const balance = ok({ balance: 3, currency: 'coins' });

/** A client whose notices are recorded with the virtual time at which each was given. */
function noticed(overrides: Parameters<typeof makeClient>[1] = {}) {
  const notices: Array<{ waitMs: number; message: string; at: number }> = [];
  const clock = (overrides.clock as FakeClock | undefined) ?? new FakeClock();
  const { client } = makeClient(agent, {
    clock,
    onWait: (waitMs, message) => notices.push({ waitMs, message, at: clock.now() }),
    ...overrides,
  });
  return { client, clock, notices };
}

describe('wait notices', () => {
  it('announces a 429 with Retry-After 25 once, before the wait', async () => {
    ({ agent, pool } = mockAgent());
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '25' } });
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const { client, clock, notices } = noticed();
    await client.getBalance();
    expect(clock.sleeps).toEqual([25_000]);
    expect(notices).toEqual([
      { waitMs: 25_000, message: 'waiting 25s for the rate limit (the server asked to wait)…', at: T0 },
    ]);
  });

  it('says nothing about waits of 2 s or less', async () => {
    ({ agent, pool } = mockAgent());
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '1' } })
      .times(2);
    pool
      .intercept(balancePath)
      .reply(503, apiFailure('internal_error', 'x'), { headers: { ...JSON_HEADERS, 'retry-after': '2' } });
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const { client, clock, notices } = noticed();
    await client.getBalance();
    expect(clock.sleeps).toEqual([1_000, 1_000, 2_000]);
    expect(notices).toEqual([]);
  });

  it('announces a 503 Retry-After of 30 s as a retry, not as the rate limit', async () => {
    ({ agent, pool } = mockAgent());
    pool
      .intercept(balancePath)
      .reply(503, apiFailure('internal_error', 'maintenance'), { headers: { ...JSON_HEADERS, 'retry-after': '30' } });
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const { client, notices } = noticed();
    await client.getBalance();
    expect(notices.map((n) => n.message)).toEqual(['waiting 30s before trying again: server error (HTTP 503)…']);
  });

  it('announces a wait for the spent budget, naming the limit', async () => {
    ({ agent, pool } = mockAgent());
    const budget = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '25' };
    pool.intercept(balancePath).reply(200, balance, { headers: { ...JSON_HEADERS, ...budget } });
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const { client, clock, notices } = noticed();
    await client.getBalance();
    expect(notices).toEqual([]);
    await client.getBalance();
    // The reset is 25 s away, plus the limiter's 1 s margin for whole-second reset values.
    expect(clock.sleeps).toEqual([26_000]);
    expect(notices.map((n) => n.message)).toEqual(['waiting 26s for the rate limit (100 requests a window)…']);
  });

  it('announces one wait once, however many requests wait for it together', async () => {
    ({ agent, pool } = mockAgent());
    const budget = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '25' };
    pool.intercept(balancePath).reply(200, balance, { headers: { ...JSON_HEADERS, ...budget } });
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS }).times(3);
    const clock = new FakeClock({ auto: false });
    const { client, notices } = noticed({ clock, rateLimiter: new RateLimiter({ clock }) });
    const first = client.getBalance();
    await clock.runUntilIdle();
    await first;
    const three = Promise.all([client.getBalance(), client.getBalance(), client.getBalance()]);
    await clock.runUntilIdle();
    await three;
    expect(notices).toHaveLength(1);
  });

  it('does not announce a wait it will not make (past the deadline)', async () => {
    ({ agent, pool } = mockAgent());
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'slow down'), { headers: { ...JSON_HEADERS, 'retry-after': '25' } });
    const { client, notices } = noticed({ deadline: T0 + 10_000 });
    await expect(client.getBalance()).rejects.toThrow(/deadline/);
    expect(notices).toEqual([]);
  });

  it('names the window the resets show when it is not the documented minute, never "/min" for it', async () => {
    ({ agent, pool } = mockAgent());
    const spent = (reset: string) => ({
      headers: { ...JSON_HEADERS, 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    });
    pool.intercept(balancePath).reply(200, balance, spent('20'));
    // After the wait (the reset and the 1 s margin): the next window, which resets 20 s after the first.
    pool.intercept(balancePath).reply(200, balance, spent('19'));
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const { client, notices } = noticed();
    await client.getBalance();
    await client.getBalance();
    await client.getBalance();
    expect(notices.map((n) => n.message)).toEqual([
      // Nothing yet says how long the window is: a reset 20 s ahead may end a minute's window, or a shorter one's.
      'waiting 21s for the rate limit (6 requests a window)…',
      'waiting 20s for the rate limit (6 requests per 20s)…',
    ]);
  });

  it('a window shorter than a minute whose length the resets do not show is "a window"', async () => {
    ({ agent, pool } = mockAgent());
    const budget = (remaining: string, reset: string) => ({
      headers: {
        ...JSON_HEADERS,
        'x-ratelimit-limit': '6',
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': reset,
      },
    });
    pool.intercept(balancePath).reply(200, balance, budget('5', '10'));
    pool.intercept(balancePath).reply(200, balance, budget('0', '30'));
    pool.intercept(balancePath).reply(200, balance, { headers: JSON_HEADERS });
    const clock = new FakeClock();
    const { client, notices } = noticed({ clock });
    await client.getBalance();
    // 25 s later, past the first window's reset: the next one resets 45 s after the first did (one window or two).
    clock.advance(25_000);
    await client.getBalance();
    await client.getBalance();
    expect(notices.map((n) => n.message)).toEqual(['waiting 31s for the rate limit (6 requests a window)…']);
  });
});
