/**
 * The error a read ends with once its attempts are spent on 429s or 5xx: what happened first, in words with the HTTP
 * status (`rate limited (HTTP 429)`, `the service failed (HTTP 503)`), then the attempts, the server's own words only
 * when they say more than that, and when to try again when the server said (docs/behaviour.md, error mapping).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { ExitCode, RateLimitError, UnavailableError } from '../../../src/errors.js';
import { apiFailure, JSON_HEADERS, makeClient, mockAgent } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

const balancePath = { path: '/api/v1/balance', method: 'GET' };

async function endOf(
  status: number,
  body: string,
  headers: Record<string, string> = {},
  times = 4,
): Promise<Error & { exitCode?: number; hint?: string }> {
  ({ agent, pool } = mockAgent());
  pool
    .intercept(balancePath)
    .reply(status, body, { headers: { ...JSON_HEADERS, ...headers } })
    .times(times);
  const { client } = makeClient(agent);
  try {
    await client.getBalance();
  } catch (error) {
    return error as Error & { exitCode?: number; hint?: string };
  }
  throw new Error('expected the read to fail');
}

describe('a read given up on 429s: rate limited, its status, when to try again', () => {
  it('a stated wait: the status and the time to try again in, exit 7', async () => {
    const error = await endOf(429, apiFailure('rate_limited', 'Too many requests'), { 'retry-after': '30' });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(ExitCode.rateLimited);
    // "Too many requests" says nothing "rate limited (HTTP 429)" does not.
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429) after 4 attempts; try again in 30s');
    expect(error.hint).toMatch(/auth status/);
  });

  it("the server's words kept beside the status when they say more", async () => {
    const error = await endOf(429, apiFailure('rate_limited', 'slow down'), { 'retry-after': '2' });
    expect(error.message).toBe(
      'reading the balance: rate limited (HTTP 429: slow down) after 4 attempts; try again in 2s',
    );
  });

  it('no stated wait: no time invented, the hint says what to do', async () => {
    const error = await endOf(429, apiFailure('rate_limited', 'slow down'));
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429: slow down) after 4 attempts');
    expect(error.hint).toMatch(/try again/);
  });

  it('a wait too long to take at once: one attempt, said as when to try again', async () => {
    const error = await endOf(429, apiFailure('rate_limited', 'Daily quota used'), { 'retry-after': '3600' }, 1);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429: Daily quota used); try again in 1h');
  });

  it('a 429 whose body is not JSON is rate limited all the same', async () => {
    const error = await endOf(429, '<html>slow</html>', { 'content-type': 'text/html', 'retry-after': '1' });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe('reading the balance: rate limited (HTTP 429) after 4 attempts; try again in 1s');
  });
});

describe('a read given up on 5xx: the service failed, its status', () => {
  it('the status first, the server words after it when they say more, exit 8', async () => {
    const error = await endOf(503, apiFailure('internal_error', 'upstream down'));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: the service failed (HTTP 503, internal_error: upstream down) after 4 attempts',
    );
  });

  it("a server's words that only name the status are not repeated", async () => {
    const error = await endOf(500, apiFailure('internal_error', 'Internal server error'));
    expect(error.message).toBe('reading the balance: the service failed (HTTP 500, internal_error) after 4 attempts');
  });

  it('of words that restate the status and add a parenthesis, the parenthesis, the status said once', async () => {
    const error = await endOf(503, apiFailure('internal_error', 'Internal server error (injected fault, HTTP 503)'));
    expect(error.message).toBe(
      'reading the balance: the service failed (HTTP 503, internal_error: injected fault) after 4 attempts',
    );
  });

  it.each([
    ['HTTP 503: upstream down', 'upstream down'],
    ['upstream down (HTTP 503)', 'upstream down'],
    ['upstream down, http 503.', 'upstream down'],
    ['upstream HTTP 503 down', 'upstream down'],
    ['HTTP 503', undefined],
    // Another status is news: kept.
    ['upstream said HTTP 504', 'upstream said HTTP 504'],
  ])('the status the server words name once more is said once: %j', async (words, beyond) => {
    const error = await endOf(503, apiFailure('internal_error', words));
    const said = beyond === undefined ? '' : `: ${beyond}`;
    expect(error.message).toBe(
      `reading the balance: the service failed (HTTP 503, internal_error${said}) after 4 attempts`,
    );
  });

  it('a stated Retry-After is the time to try again in', async () => {
    const error = await endOf(503, JSON.stringify({ error: 'maintenance' }), { 'retry-after': '5' });
    expect(error.message).toBe(
      'reading the balance: the service failed (HTTP 503, maintenance) after 4 attempts; try again in 5s',
    );
  });

  it('a newline in the server words stays off a line of its own', async () => {
    const error = await endOf(502, apiFailure('internal_error', 'bad\nerror: forged'));
    expect(error.message.split('\n')).toHaveLength(1);
    expect(error.message).toMatch(/^reading the balance: the service failed \(HTTP 502, internal_error: bad/);
  });
});
