import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Dispatcher, MockAgent } from 'undici';
import { createApiClient } from '../../../src/api/client.js';
import { UNDICI_TIMER_SLACK_MS } from '../../../src/api/request.js';
import {
  AuthError,
  ExitCode,
  InputError,
  NotFoundError,
  RateLimitError,
  UnavailableError,
  UsageError,
} from '../../../src/errors.js';
import {
  API_KEY,
  apiFailure,
  FakeClock,
  JSON_HEADERS,
  makeClient,
  mockAgent,
  networkError,
  ok,
  scriptedDispatcher,
  T0,
  TASK,
} from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;

function setup() {
  ({ agent, pool } = mockAgent());
}
afterEach(async () => {
  await agent.close();
});

async function failure(promise: Promise<unknown>): Promise<Error & { exitCode?: number; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { exitCode?: number; hint?: string };
  }
  throw new Error('expected the call to fail');
}

const balancePath = { path: '/api/v1/balance', method: 'GET' };

describe('GET: successful responses', () => {
  it('lists services', async () => {
    setup();
    const service = {
      service: 'domain_check_availability',
      display_name: 'Domain check',
      description: 'd',
      pricing: 1,
      currency: 'coins',
    };
    pool
      .intercept({ path: '/api/v1/services', method: 'GET' })
      .reply(200, ok([service], { meta: { total: 1, currency: 'coins' } }), { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect(await client.listServices()).toEqual([service]);
  });

  it('reads the balance in the reference form and in the top-level variant, keeping extra fields', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(200, ok({ balance: 500, currency: 'coins', extra: 1 }), { headers: JSON_HEADERS });
    pool
      .intercept(balancePath)
      .reply(200, JSON.stringify({ success: true, balance: 7, currency: 'coins' }), { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect(await client.getBalance()).toEqual({ balance: 500, currency: 'coins', extra: 1 });
    expect(await client.getBalance()).toEqual({ balance: 7, currency: 'coins' });
  });

  it('lists tasks with paging parameters', async () => {
    setup();
    const meta = { current_page: 2, total_pages: 3, total_count: 120, per_page: 50 };
    pool
      .intercept({ path: '/api/v1/tasks?page=2&per_page=50', method: 'GET' })
      .reply(200, ok([TASK], { meta }), { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/api/v1/tasks', method: 'GET' })
      .reply(200, ok([], { meta: { ...meta, current_page: 1 } }), { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect(await client.listTasks({ page: 2, perPage: 50 })).toEqual({ tasks: [TASK], meta });
    expect((await client.listTasks()).tasks).toEqual([]);
  });

  it('reads one task with its items', async () => {
    setup();
    const task = {
      ...TASK,
      status: 'completed',
      items: [{ target: 'a.com', status: 'completed', data: { available: true } }],
    };
    pool.intercept({ path: '/api/v1/tasks/42', method: 'GET' }).reply(200, ok(task), { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect((await client.getTask(42)).items?.[0]?.data).toEqual({ available: true });
  });

  it('refuses an impossible task id without sending anything', async () => {
    setup();
    const { client } = makeClient(agent);
    expect(await failure(client.getTask(-1))).toBeInstanceOf(UsageError);
    expect(await failure(client.getTask(1.5))).toBeInstanceOf(UsageError);
  });

  it('sends User-Agent, Accept and X-API-Key, and no body headers on GET', async () => {
    setup();
    let seen: Record<string, string> = {};
    pool.intercept(balancePath).reply(200, (opts) => {
      seen = Object.fromEntries(
        Object.entries(opts.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      );
      return ok({ balance: 1, currency: 'coins' });
    });
    const { client } = makeClient(agent);
    await client.getBalance();
    expect(seen['user-agent']).toBe('taskctl/0.1.0 node/v20.0.0');
    expect(seen.accept).toBe('application/json');
    expect(seen['x-api-key']).toBe(API_KEY);
    expect(seen.authorization).toBeUndefined();
    expect(seen['content-type']).toBeUndefined();
  });

  it('sends Authorization: Bearer with the bearer scheme', async () => {
    setup();
    let seen: Record<string, string> = {};
    pool.intercept(balancePath).reply(200, (opts) => {
      seen = Object.fromEntries(
        Object.entries(opts.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      );
      return ok({ balance: 1, currency: 'coins' });
    });
    const { client } = makeClient(agent, { authScheme: 'bearer' });
    await client.getBalance();
    expect(seen.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen['x-api-key']).toBeUndefined();
  });
});

describe('GET: resends', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ENOTFOUND',
    'EAI_AGAIN',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'UND_ERR_SOCKET',
  ])('resends after %s and then succeeds', async (code) => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError(code));
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    expect(await client.getBalance()).toEqual({ balance: 3, currency: 'coins' });
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(375);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(500);
  });

  it('gives up after 4 attempts with the backoff between them', async () => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError('ECONNREFUSED')).times(4);
    const { client, clock } = makeClient(agent, { random: () => 0 });
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: could not reach https://api.test (connection refused) after 4 attempts',
    );
    expect(clock.sleeps).toEqual([500, 1000, 2000]);
  });

  it('names the timeout when the server never answers: its last attempt cut, the 35 s budget not spent', async () => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError('UND_ERR_HEADERS_TIMEOUT')).times(4);
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(
      'reading the balance: https://api.test did not answer: its last attempt was cut at 30s (4 attempts)',
    );
  });

  it('a stopped service: no answer to 2 attempts within the 35 s budget, said once, with its hint and exit 8', async () => {
    setup();
    const clock = new FakeClock();
    let calls = 0;
    // Each attempt hangs until its cut (30 s, then what is left of the budget), as a stopped process's port does.
    const dispatcher = {
      request() {
        calls++;
        clock.nowMs = Math.min(clock.nowMs + 30_000, T0 + 35_000);
        return Promise.reject(networkError('TASKCTL_REQUEST_TIMEOUT', 'no complete answer within 30s'));
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const { client } = makeClient(agent, { dispatcher, clock });
    const error = await failure(client.getBalance());
    expect(calls).toBe(2);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe('reading the balance: https://api.test did not answer within 35s (2 attempts)');
    expect(error.hint).toBe('The service is slow or unreachable: try again later, or raise --request-timeout.');
  });

  /**
   * A dispatcher whose every answer drips until its attempt is cut: each attempt takes its whole cut of (virtual) time
   * (the `headersTimeout` it was given, or what is left of the budget) and fails as the cut does. Records each cut.
   */
  function drippingDispatcher(clock: FakeClock, budgetEnd: number) {
    const cuts: number[] = [];
    const dispatcher = {
      request(options: { headersTimeout: number }) {
        // Where the attempt's own timer cuts it: undici's header timeout stands a little behind it.
        const cutMs = Math.min(options.headersTimeout - UNDICI_TIMER_SLACK_MS, budgetEnd - clock.nowMs);
        cuts.push(cutMs);
        clock.nowMs += cutMs;
        return Promise.reject(networkError('TASKCTL_REQUEST_TIMEOUT', 'no complete answer'));
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    return { dispatcher, cuts };
  }

  it('--request-timeout above the default: one attempt may take all of it but the 5 s left for a resend', async () => {
    setup();
    const clock = new FakeClock();
    const { dispatcher, cuts } = drippingDispatcher(clock, T0 + 180_000);
    const { client } = makeClient(agent, { dispatcher, clock, requestTimeoutMs: 180_000, random: () => 0 });
    const error = await failure(client.getBalance());
    // Not 4 cuts of 30 s: the first attempt has 2m55s, the second what is left of the 3 m after the 0.5 s back-off.
    expect(cuts).toEqual([175_000, 4_500]);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe('reading the balance: https://api.test did not answer within 3m (2 attempts)');
    expect(error.hint).toBe('The service is slow or unreachable: try again later, or raise --request-timeout.');
  });

  it('the default budget keeps its 30 s attempts; so does a --request-timeout of 35 s or less', async () => {
    setup();
    for (const requestTimeoutMs of [undefined, 35_000, 32_000]) {
      const clock = new FakeClock();
      const budget = requestTimeoutMs ?? 35_000;
      const { dispatcher, cuts } = drippingDispatcher(clock, T0 + budget);
      const { client } = makeClient(agent, {
        dispatcher,
        clock,
        random: () => 0,
        ...(requestTimeoutMs && { requestTimeoutMs }),
      });
      await failure(client.getBalance());
      expect(cuts).toEqual([30_000, budget - 30_500]);
    }
  });

  it('an attempt cut at its own limit, not the budget, is said as such, with advice that can help', async () => {
    setup();
    // Three resets, then an answer that never ends: the fourth attempt is cut at 30 s with 31.5 s of the budget left.
    pool.intercept(balancePath).replyWithError(networkError('ECONNRESET')).times(3);
    const clock = new FakeClock();
    const { dispatcher: dripping, cuts } = drippingDispatcher(clock, T0 + 35_000);
    let calls = 0;
    const dispatcher = {
      request(options: Parameters<Dispatcher['request']>[0] & { headersTimeout: number }) {
        calls++;
        return calls <= 3 ? agent.request(options) : dripping.request(options);
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const { client } = makeClient(agent, { dispatcher, clock, random: () => 0 });
    const error = await failure(client.getBalance());
    expect(cuts).toEqual([30_000]);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: https://api.test did not answer: its last attempt was cut at 30s (4 attempts)',
    );
    expect(error.hint).toBe(
      'The service is slow or unreachable: try again later, or raise --request-timeout (one attempt may take all of it but 5s).',
    );
  });

  it('one budget of 35 s per request, attempts and back-off included: no resend once it is spent', async () => {
    setup();
    const { client, clock } = makeClient(agent);
    // Each attempt takes 20 s of (virtual) time before the server gives up on it with 503.
    pool
      .intercept(balancePath)
      .reply(() => {
        clock.nowMs += 20_000;
        return {
          statusCode: 503,
          data: apiFailure('internal_error', 'slow and failing'),
          responseOptions: { headers: JSON_HEADERS },
        };
      })
      .times(4);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    // 20 s + 0.5 s back-off + the second attempt (cut at the budget's end in real time): no third one.
    expect(error.message).toMatch(/after 2 attempts \(no time left to try again within --request-timeout 35s\)$/);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('a wait the server announced (429 Retry-After) does not count against the budget', async () => {
    setup();
    const { client, clock } = makeClient(agent, { requestTimeoutMs: 5_000 });
    const limited = { headers: { ...JSON_HEADERS, 'retry-after': '20' } };
    pool.intercept(balancePath).reply(429, apiFailure('rate_limited', 'wait'), limited);
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }), { headers: JSON_HEADERS });
    expect((await client.getBalance()).balance).toBe(3);
    expect(clock.sleeps).toEqual([20_000]);
  });

  it('uses --request-timeout in the timeout message', async () => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError('UND_ERR_BODY_TIMEOUT')).times(4);
    const { client } = makeClient(agent, { requestTimeoutMs: 5_000 });
    expect((await failure(client.getBalance())).message).toMatch(/within 5s/);
  });

  it.each([500, 502, 503, 504])('resends after HTTP %i and then succeeds', async (status) => {
    setup();
    pool.intercept(balancePath).reply(status, apiFailure('internal_error', 'boom'), { headers: JSON_HEADERS });
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    expect((await client.getBalance()).balance).toBe(3);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('resends after internal_error even with an unusual status', async () => {
    setup();
    pool.intercept(balancePath).reply(200, apiFailure('internal_error', 'boom'));
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    expect((await client.getBalance()).balance).toBe(3);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('maps a persistent 500 to exit 8 after 4 attempts, with its status (the server words say nothing more)', async () => {
    setup();
    pool.intercept(balancePath).reply(500, apiFailure('internal_error', 'Internal server error')).times(4);
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe('reading the balance: the service failed (HTTP 500, internal_error) after 4 attempts');
    expect(clock.sleeps).toHaveLength(3);
  });

  it('maps a persistent HTML 502 by status, saying the body was not JSON', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(502, '<html>Bad gateway</html>', { headers: { 'content-type': 'text/html' } })
      .times(4);
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(
      'reading the balance: the server answered HTTP 502 with a body that is not JSON (text/html) after 4 attempts',
    );
  });

  it('honours Retry-After in seconds on 429', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'slow down'), { headers: { 'retry-after': '7' } });
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    await client.getBalance();
    expect(clock.sleeps).toEqual([7_000]);
  });

  it('honours Retry-After as an HTTP date on 429', async () => {
    setup();
    pool.intercept(balancePath).reply(429, apiFailure('rate_limited', 'slow down'), {
      headers: { 'retry-after': new Date(T0 + 12_000).toUTCString() },
    });
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    await client.getBalance();
    expect(clock.sleeps).toEqual([12_000]);
  });

  it('honours Retry-After on 503 too', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(503, apiFailure('internal_error', 'maintenance'), { headers: { 'retry-after': '3' } });
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    await client.getBalance();
    expect(clock.sleeps).toEqual([3_000]);
  });

  it('waits for the rate-limit reset on a 429 without Retry-After', async () => {
    setup();
    pool.intercept(balancePath).reply(429, apiFailure('rate_limited', 'slow down'), {
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '20' },
    });
    pool.intercept(balancePath).reply(200, ok({ balance: 3, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    await client.getBalance();
    expect(clock.sleeps[0]).toBe(20_000);
    expect(clock.nowMs - T0).toBeLessThanOrEqual(21_000 + 1);
  });

  it('maps a persistent 429 to RateLimitError (exit 7)', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'Too many requests'), { headers: { 'retry-after': '1' } })
      .times(4);
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(ExitCode.rateLimited);
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429) after 4 attempts; try again in 1s');
    expect(clock.sleeps).toEqual([1_000, 1_000, 1_000]);
  });

  it('does not wait when the server asks for more than a minute', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(429, apiFailure('rate_limited', 'Daily quota used'), { headers: { 'retry-after': '3600' } });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429: Daily quota used); try again in 1h');
    expect(clock.sleeps).toEqual([]);
  });

  it('feeds a 429 to the shared limiter: the next request waits for Retry-After', async () => {
    setup();
    pool.intercept(balancePath).reply(429, apiFailure('rate_limited', 'x'), { headers: { 'retry-after': '30' } });
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }));
    const clock = new FakeClock();
    const first = makeClient(agent, { clock, deadline: T0 + 5_000 });
    expect(await failure(first.client.getBalance())).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([]);
    const second = makeClient(agent, { clock, rateLimiter: first.client.rateLimiter });
    await second.client.getBalance();
    expect(clock.sleeps).toEqual([30_000]);
  });

  it('resends a GET after a 408', async () => {
    setup();
    pool.intercept(balancePath).reply(408, '');
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    expect((await client.getBalance()).balance).toBe(1);
    expect(clock.sleeps).toHaveLength(1);
  });
});

describe('GET: no resend on definite answers', () => {
  it.each([
    [404, 'not_found', 'Task 42 not found', NotFoundError],
    [401, 'unauthorized', 'Invalid or missing API key', AuthError],
    [403, 'forbidden', 'Not allowed', AuthError],
    [422, 'validation_error', 'per_page must be at most 100', InputError],
  ])('HTTP %i %s is not resent', async (status, code, message, cls) => {
    setup();
    pool
      .intercept({ path: '/api/v1/tasks/42', method: 'GET' })
      .reply(status, apiFailure(code, message), { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getTask(42));
    expect(error).toBeInstanceOf(cls);
    expect(error.message).toBe(status === 404 ? 'task 42 was not found' : `reading task 42: ${message}`);
    expect(clock.sleeps).toEqual([]);
  });

  it('reads the string-error variant (error as a string, top-level message)', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(401, JSON.stringify({ success: false, error: 'unauthorized', message: 'Invalid or missing API key' }));
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(AuthError);
    expect(error.exitCode).toBe(ExitCode.auth);
    expect(error.message).toBe('reading the balance: Invalid or missing API key');
    expect(error.hint).toBe('Run `taskctl auth login`, or set TASKCTL_API_KEY.');
  });

  it('maps an error status with an unrecognised body by status', async () => {
    setup();
    pool.intercept(balancePath).reply(404, JSON.stringify({ detail: 'nope' }));
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('reading the balance: not found (HTTP 404)');
  });

  it('does not follow a redirect, and names where it pointed', async () => {
    setup();
    pool.intercept(balancePath).reply(302, '', { headers: { location: 'https://evil.example/collect' } });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toContain('https://evil.example/collect');
    expect(clock.sleeps).toEqual([]);
  });

  it.each([300, 304])('HTTP %i is no redirect: an answer no request asked for, exit 8, not resent', async (status) => {
    setup();
    pool.intercept(balancePath).reply(status, '');
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(
      `reading the balance: the server answered HTTP ${status}, an answer no request of taskctl asks for`,
    );
    expect(error.message).not.toMatch(/redirect/);
    expect(error.hint).toMatch(/--verbose/);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not resend after a TLS failure', async () => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError('CERT_HAS_EXPIRED', 'certificate has expired'));
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('GET: malformed bodies are exit 8 and not resent', () => {
  it.each([
    [
      'wrong type',
      ok({ balance: 'lots', currency: 'coins' }),
      'reading the balance: unexpected response from the server (data.balance: should be a number, not a string)',
    ],
    [
      'missing field',
      ok({ currency: 'coins' }),
      'reading the balance: unexpected response from the server (data.balance: missing (should be a number))',
    ],
    ['empty body', '', 'reading the balance: the server answered HTTP 200 with an empty body'],
    [
      'JSON null',
      'null',
      'reading the balance: unexpected response from the server ((body): should be an object, not null)',
    ],
  ])('%s', async (_name, body, message) => {
    setup();
    pool.intercept(balancePath).reply(200, body, { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(message);
    expect(clock.sleeps).toEqual([]);
  });

  it('an HTML page with status 200', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(200, '<!doctype html><title>Login</title>', { headers: { 'content-type': 'text/html; charset=utf-8' } });
    const { client } = makeClient(agent);
    expect((await failure(client.getBalance())).message).toBe(
      'reading the balance: the server answered HTTP 200 with a body that is not JSON (text/html)',
    );
  });
});

describe('GET: a body in an encoding taskctl did not ask for (it sends no Accept-Encoding)', () => {
  const BALANCE_JSON = ok({ balance: 1, currency: 'coins' });

  it('gzipped JSON is not read as JSON: the message names the encoding (identity is none), not resent', async () => {
    setup();
    pool.intercept(balancePath).reply(200, gzipSync(BALANCE_JSON), {
      headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' },
    });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: the server answered HTTP 200 with an encoded body taskctl did not ask for and does not decode (Content-Encoding: gzip)',
    );
    expect(clock.sleeps).toEqual([]);
    // `identity` is no encoding: the body is said to be not JSON, as without the header.
    pool.intercept(balancePath).reply(200, '<html>Login</html>', {
      headers: { 'content-type': 'text/html', 'content-encoding': 'identity' },
    });
    expect((await failure(client.getBalance())).message).toBe(
      'reading the balance: the server answered HTTP 200 with a body that is not JSON (text/html)',
    );
  });

  it('a 502 in br, resent as a 502 is, then named with its encoding', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(502, brotliCompressSync('<html>Bad gateway</html>'), {
        headers: { 'content-type': 'text/html', 'content-encoding': 'br' },
      })
      .times(4);
    const { client } = makeClient(agent);
    expect((await failure(client.getBalance())).message).toBe(
      'reading the balance: the server answered HTTP 502 with an encoded body taskctl did not ask for and does not decode (Content-Encoding: br) after 4 attempts',
    );
  });

  it('the header is server text: inert in the message, and cut short', async () => {
    setup();
    const hostile = `gzip\u001b]0;pwned\u0007\u009b31m\u202e${'x'.repeat(100)}`;
    pool.intercept(balancePath).reply(200, gzipSync(BALANCE_JSON), {
      headers: { ...JSON_HEADERS, 'content-encoding': hostile },
    });
    const { client } = makeClient(agent);
    const { message } = await failure(client.getBalance());
    // Header values are read as latin1 (as undici reads the wire): U+009B arrives as its UTF-8 bytes, a C1 among them.
    expect(message).toMatch(/\(Content-Encoding: gzip\\x1b\]0;pwned\\x07Â\\u009b31m.*x+…\)$/);
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(message.length).toBeLessThan(220);
  });
});

describe('GET: an answer cut off is sent again, like a reset', () => {
  const BALANCE = ok({ balance: 1, currency: 'coins' });

  it('JSON that stops at the end of the stream: one more attempt, then the value', async () => {
    setup();
    pool.intercept(balancePath).reply(200, BALANCE.slice(0, 20), { headers: JSON_HEADERS });
    pool.intercept(balancePath).reply(200, BALANCE, { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    expect(await client.getBalance()).toEqual({ balance: 1, currency: 'coins' });
    expect(clock.sleeps).toHaveLength(1);
  });

  it('cut off every time: exit 8 after 4 attempts, saying where it stopped, --base-url not blamed', async () => {
    setup();
    pool.intercept(balancePath).reply(200, BALANCE.slice(0, 20), { headers: JSON_HEADERS }).times(4);
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: the answer was cut off after 20 bytes (HTTP 200) after 4 attempts',
    );
    expect(error.hint).not.toMatch(/base-url/);
    expect(clock.sleeps).toHaveLength(3);
  });

  it('a body shorter than its Content-Length (the connection closed): sent again, then the value', async () => {
    const { dispatcher, calls } = scriptedDispatcher([
      { status: 200, body: BALANCE, cutAfter: 28 },
      { status: 200, body: BALANCE },
    ]);
    setup();
    const lines: string[] = [];
    const { client } = makeClient(agent, { dispatcher, trace: (line) => lines.push(line) });
    expect(await client.getBalance()).toEqual({ balance: 1, currency: 'coins' });
    expect(calls()).toBe(2);
    expect(lines).toContain(
      `* trying again in 0.4s (UND_ERR_SOCKET, cut off after 28 of ${BALANCE.length} bytes), attempt 2/4`,
    );
  });

  it('shorter than its Content-Length every time: exit 8 naming the bytes received and announced', async () => {
    const { dispatcher, calls } = scriptedDispatcher([{ status: 200, body: BALANCE, cutAfter: 28 }]);
    setup();
    const { client } = makeClient(agent, { dispatcher });
    const error = await failure(client.getBalance());
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      `reading the balance: the answer was cut off after 28 bytes (HTTP 200, ${BALANCE.length} announced) after 4 attempts`,
    );
    expect(error.hint).not.toMatch(/base-url/);
    expect(calls()).toBe(4);
  });

  it('the attempts share the request budget: no attempt starts past --request-timeout', async () => {
    const { dispatcher, calls } = scriptedDispatcher([{ status: 200, body: BALANCE, cutAfter: 28 }]);
    setup();
    const { client } = makeClient(agent, { dispatcher, requestTimeoutMs: 1000 });
    const error = await failure(client.getBalance());
    expect(error.message).toMatch(
      /cut off after 28 bytes .* \(no time left to try again within --request-timeout 1s\)$/,
    );
    expect(calls()).toBe(2);
  });
});

describe('GET: deadline, abort and rate-limit pacing', () => {
  it('never sleeps past the deadline: fails with the error it has', async () => {
    setup();
    pool
      .intercept(balancePath)
      .reply(503, apiFailure('internal_error', 'maintenance'), { headers: { 'retry-after': '30' } });
    const { client, clock } = makeClient(agent, { deadline: T0 + 10_000 });
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(
      'reading the balance: the service failed (HTTP 503, internal_error: maintenance) (no time left to try again before the deadline); try again in 30s',
    );
    expect(clock.sleeps).toEqual([]);
  });

  it('stops trying again when the next backoff would cross the deadline', async () => {
    setup();
    pool.intercept(balancePath).replyWithError(networkError('ECONNREFUSED')).times(2);
    const { client, clock } = makeClient(agent, { deadline: T0 + 1_200, random: () => 0 });
    const error = await failure(client.getBalance());
    expect(error.message).toBe(
      'reading the balance: could not reach https://api.test (connection refused) after 2 attempts (no time left to try again before the deadline)',
    );
    expect(clock.sleeps).toHaveLength(1);
  });

  it('throws the abort reason and does not resend', async () => {
    setup();
    const controller = new AbortController();
    controller.abort(new Error('interrupted by user'));
    const { client } = makeClient(agent, { signal: controller.signal });
    expect((await failure(client.getBalance())).message).toBe('interrupted by user');
  });

  it('paces the next request until the reset when the server says the budget is spent', async () => {
    setup();
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }), {
      headers: {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(T0 / 1000 + 20),
        date: new Date(T0).toUTCString(),
      },
    });
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }));
    const { client, clock } = makeClient(agent);
    await client.getBalance();
    expect(client.rateLimiter.snapshot()).toMatchObject({
      limit: 100,
      remaining: 0,
      resetAtMs: T0 + 20_000,
      source: 'server',
    });
    await client.getBalance();
    expect(clock.sleeps).toEqual([21_000]);
  });

  it('fails with RateLimitError when the budget resets only after the deadline', async () => {
    setup();
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }), {
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '40' },
    });
    const { client, clock } = makeClient(agent, { deadline: T0 + 10_000 });
    await client.getBalance();
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([]);
  });

  it('shares one limiter between clients', async () => {
    setup();
    const clock = new FakeClock();
    const first = makeClient(agent, { clock });
    const second = makeClient(agent, { clock, rateLimiter: first.client.rateLimiter });
    expect(second.client.rateLimiter).toBe(first.client.rateLimiter);
  });

  it('close() ends the connections of its own pool with no stack frame to format (start-up time)', async () => {
    setup();
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(ok({ balance: 7, currency: 'coins' }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const closed = new Promise<void>((resolve) => server.once('connection', (socket) => socket.once('close', resolve)));
    const formatted: number[] = []; // stack frames formatted: each needs the line positions of its file
    const original = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
    try {
      const client = createApiClient({
        baseUrl: `http://127.0.0.1:${port}/api/v1`,
        apiKey: API_KEY,
        userAgent: 'taskctl/0.1.0 node/v20.0.0',
        clock: new FakeClock(),
        random: () => 0.5,
        env: {},
      });
      expect((await client.getBalance()).balance).toBe(7);
      Error.prepareStackTrace = (error: Error, frames) => {
        formatted.push(frames.length);
        return `${error.name}: ${error.message}`;
      };
      await client.close();
      await closed;
    } finally {
      if (original) Object.defineProperty(Error, 'prepareStackTrace', original);
      else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
      server.close();
    }
    expect(formatted.filter((frames) => frames > 0)).toEqual([]);
  });

  it('close() leaves an injected dispatcher open', async () => {
    setup();
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }));
    const { client } = makeClient(agent);
    await client.close();
    expect((await makeClient(agent).client.getBalance()).balance).toBe(1);
  });
});

describe('GET: bounded responses', () => {
  it('refuses a body announced larger than 64 MiB without reading it, and does not resend', async () => {
    setup();
    pool.intercept(balancePath).reply(200, ok({ balance: 1, currency: 'coins' }), {
      headers: { ...JSON_HEADERS, 'content-length': String(65 * 1024 * 1024) },
    });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe('reading the balance: the answer is larger than 64 MiB (65 MiB announced)');
    expect(clock.sleeps).toEqual([]);
  });

  it('refuses a streamed body once it passes 64 MiB', async () => {
    setup();
    const big = `{"success":true,"data":"${'a'.repeat(64 * 1024 * 1024)}"}`;
    pool.intercept(balancePath).reply(200, big, { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error.message).toBe('reading the balance: the answer is larger than 64 MiB');
    expect(error.exitCode).toBe(ExitCode.unavailable);
  });

  it('a body nested deeper than 256 levels is a malformed response, not a stack overflow', async () => {
    setup();
    const deep = `{"success":true,"data":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    pool.intercept(balancePath).reply(200, deep, { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    const error = await failure(client.getBalance());
    expect(error.message).toBe('reading the balance: the response is nested deeper than 256 levels (HTTP 200)');
  });
});
