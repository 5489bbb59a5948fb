import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import type { CreateTaskObserver } from '../../../src/api/client.js';
import { AmbiguousCreateError } from '../../../src/api/api-errors.js';
import { RateLimitError, UnavailableError } from '../../../src/errors.js';
import { apiFailure, JSON_HEADERS, makeClient, mockAgent, networkError, ok, T0, TASK } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

const createPath = { path: '/api/v1/tasks', method: 'POST' };
const request = { service: 'domain_check_availability', items: ['a.com'] };
const BALANCE = ok({ balance: 10, currency: 'credits' });

/** Records the observer's calls and the client's wait notices, in the order they came. */
function recorder() {
  const events: string[] = [];
  const observer: CreateTaskObserver = {
    onDispatch: (attempt, sentAtMs) => events.push(`dispatch ${attempt} at +${sentAtMs - T0}`),
    onNotProcessed: (attempt, reason) =>
      events.push(`not processed ${attempt}: ${reason.failure} (${reason.why}), resending ${reason.resending}`),
  };
  const onWait = (waitMs: number) => events.push(`wait ${waitMs}`);
  return { events, observer, onWait };
}

/** A GET that spends the window: nothing more may go before the reset (10 s) and the limiter's 1 s margin. */
function spentWindow() {
  pool.intercept({ path: '/api/v1/balance', method: 'GET' }).reply(200, BALANCE, {
    headers: { ...JSON_HEADERS, 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '10' },
  });
}

describe('createTask: onDispatch comes after every rate-limit wait', () => {
  it('a spent window: the wait is announced, then the POST is dispatched at the reset', async () => {
    ({ agent, pool } = mockAgent());
    spentWindow();
    pool.intercept(createPath).reply(201, ok(TASK));
    const { events, observer, onWait } = recorder();
    const { client, clock } = makeClient(agent, { onWait });
    await client.getBalance();
    expect((await client.createTask(request, observer)).id).toBe(42);
    expect(clock.sleeps).toEqual([11_000]);
    expect(events).toEqual(['wait 11000', 'dispatch 1 at +11000']);
  });

  it('a 429: the attempt is not processed, and the next one is dispatched after Retry-After', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).reply(429, apiFailure('rate_limited', 'slow down'), { headers: { 'retry-after': '2' } });
    pool.intercept(createPath).reply(201, ok(TASK));
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await client.createTask(request, observer);
    expect(events).toEqual([
      'dispatch 1 at +0',
      'not processed 1: rate-limited (HTTP 429), resending true',
      'dispatch 2 at +2000',
    ]);
  });

  it('a deadline that comes during the rate-limit wait: nothing is dispatched', async () => {
    ({ agent, pool } = mockAgent());
    spentWindow();
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await client.getBalance();
    await expect(client.withDeadline(T0 + 5000).createTask(request, observer)).rejects.toBeInstanceOf(RateLimitError);
    expect(events).toEqual([]);
  });
});

describe('createTask: onNotProcessed only when the attempt provably never reached the server', () => {
  it('connection refused every time: each attempt is dispatched and not processed, the last one abandoned', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).replyWithError(networkError('ECONNREFUSED')).times(4);
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await expect(client.createTask(request, observer)).rejects.toBeInstanceOf(UnavailableError);
    expect(events.filter((e) => e.startsWith('dispatch'))).toHaveLength(4);
    expect(events.filter((e) => e.startsWith('not processed'))).toEqual([
      'not processed 1: never-sent (ECONNREFUSED), resending true',
      'not processed 2: never-sent (ECONNREFUSED), resending true',
      'not processed 3: never-sent (ECONNREFUSED), resending true',
      'not processed 4: never-sent (ECONNREFUSED), resending false',
    ]);
  });

  it.each(['ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT'])('%s then success: one attempt not processed', async (code) => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).replyWithError(networkError(code));
    pool.intercept(createPath).reply(201, ok(TASK));
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await client.createTask(request, observer);
    expect(events).toEqual([
      'dispatch 1 at +0',
      `not processed 1: never-sent (${code}), resending true`,
      'dispatch 2 at +438',
    ]);
  });

  it('a connection reset after sending is in doubt: dispatched, never "not processed"', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).replyWithError(networkError('ECONNRESET'));
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await expect(client.createTask(request, observer)).rejects.toBeInstanceOf(AmbiguousCreateError);
    expect(events).toEqual(['dispatch 1 at +0']);
  });

  it('a refusal (400) was processed by the server: dispatched, never "not processed"', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).reply(400, apiFailure('validation_error', 'bad items'), { headers: JSON_HEADERS });
    const { events, observer } = recorder();
    const { client } = makeClient(agent);
    await expect(client.createTask(request, observer)).rejects.toThrow(/bad items/);
    expect(events).toEqual(['dispatch 1 at +0']);
  });

  it('an observer that throws in onDispatch stops the attempt: its error, and nothing sent', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(createPath).reply(201, ok(TASK));
    const { client } = makeClient(agent);
    const journalFull = new Error('ENOSPC: the journal could not be written');
    const observer = {
      onDispatch: () => {
        throw journalFull;
      },
    };
    await expect(client.createTask(request, observer)).rejects.toBe(journalFull);
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });
});
