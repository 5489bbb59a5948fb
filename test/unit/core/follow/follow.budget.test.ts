/**
 * One pacer: follow's rounds go when the client's limiter says the budget allows them, so the pace is the
 * server's stated limit when it sends `X-RateLimit-*`, and the documented 100/min when it sends none
 * (docs/behaviour.md#pacing-and-the-rate-limit). Virtual time only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { followTasks } from '../../../../src/core/follow/follow.js';
import { busiestMinute, followManyTasks, seededRandom, T0 } from './fakes.js';
import type { FakeServerOptions } from './fakes.js';
import { JSON_HEADERS, FakeClock, makeClient, mockAgent, ok } from '../../api/mock-agent.js';

const MIN = 60_000;

/** `followMany` as these tests use it: a deadline an hour on, so a stall fails instead of hanging. */
const followMany = (rateLimit: FakeServerOptions['rateLimit']) =>
  followManyTasks(rateLimit ? { rateLimit } : {}, T0 + 60 * MIN);

describe('follow paces by the client limiter', () => {
  it('a server stating a small limit (X-RateLimit-Limit: 20): at most 20 requests in any minute, no 429', async () => {
    const { result, server, rounds } = await followMany({ limit: 20, headers: true });
    expect(result.reason).toBe('done');
    expect(busiestMinute(server.times)).toBeLessThanOrEqual(20);
    expect(server.limited).toBe(0);
    expect(Math.max(...rounds)).toBeLessThanOrEqual(4);
  });

  it('no headers: the documented 100/min, never a 429 from a server enforcing it; rounds stay apart', async () => {
    const { result, server, rounds } = await followMany({ limit: 100, headers: false });
    expect(result.reason).toBe('done');
    expect(busiestMinute(server.times)).toBeLessThanOrEqual(100);
    expect(server.limited).toBe(0);
    // Spread over the minute, not spent at its start: in any 10 s at most a burst of 4 plus 10 s at 0.6 s a request.
    let crowded = 0;
    for (let i = 0, j = 0; i < server.times.length; i++) {
      while ((server.times[i] ?? 0) - (server.times[j] ?? 0) >= 10_000) j++;
      crowded = Math.max(crowded, i - j + 1);
    }
    expect(crowded).toBeLessThanOrEqual(20);
    expect(Math.max(...rounds)).toBeLessThanOrEqual(4);
  });

  it('a larger stated limit lets follow go faster, a smaller one slower, than the documented 100/min', async () => {
    const spec = await followMany({ limit: 100, headers: false });
    const large = await followMany({ limit: 1000, headers: true });
    const small = await followMany({ limit: 20, headers: true });
    for (const run of [spec, large, small]) expect(run.server.limited).toBe(0);
    expect(busiestMinute(large.server.times)).toBeGreaterThan(100);
    expect(large.tookMs).toBeLessThan(spec.tookMs);
    expect(small.tookMs).toBeGreaterThan(spec.tookMs);
  });
});

describe('follow through the real API client (MockAgent, X-RateLimit-* headers)', () => {
  let agent: MockAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });

  it('paces polling to a stated limit of 6 a minute, from the headers the client reads', async () => {
    const mock = mockAgent();
    agent = mock.agent;
    const clock = new FakeClock();
    const { client } = makeClient(mock.agent, { clock });
    client.rateLimiter.steady();
    const times: number[] = [];
    let limited = 0;
    const LIMIT = 6;
    mock.pool
      .intercept({ path: '/api/v1/tasks/7', method: 'GET' })
      .reply(() => {
        const now = clock.now();
        times.push(now);
        const windowStart = now - ((now - T0) % MIN);
        const used = times.filter((t) => t >= windowStart).length;
        const headers = {
          ...JSON_HEADERS,
          'x-ratelimit-limit': String(LIMIT),
          'x-ratelimit-remaining': String(Math.max(0, LIMIT - used)),
          'x-ratelimit-reset': String(Math.ceil((windowStart + MIN - now) / 1000)),
        };
        if (used > LIMIT) {
          limited++;
          return { statusCode: 429, data: '', responseOptions: { headers: { ...headers, 'retry-after': '60' } } };
        }
        const done = now - T0 >= 4 * MIN;
        const task = {
          id: 7,
          service: 'domain_check_availability',
          status: done ? 'completed' : 'processing',
          total_items: 1,
          cost: 1,
          created_at: new Date(T0).toISOString(),
          completed_at: done ? new Date(T0 + 4 * MIN).toISOString() : null,
          items: [{ target: 'a.com', status: done ? 'completed' : 'pending', data: null }],
        };
        return { statusCode: 200, data: ok(task), responseOptions: { headers } };
      })
      .persist();
    const result = await followTasks({
      reader: client,
      ids: [7],
      clock,
      random: seededRandom(),
      intervalMs: 100,
      until: 'terminal',
      deadline: T0 + 10 * MIN,
      onChange: () => undefined,
    });
    expect(result.reason).toBe('done');
    expect(limited).toBe(0);
    expect(busiestMinute(times)).toBeLessThanOrEqual(LIMIT);
    // Paced, not starved: it still looks a few times a minute.
    expect(times.length).toBeGreaterThanOrEqual(4 * 3);
  });
});
