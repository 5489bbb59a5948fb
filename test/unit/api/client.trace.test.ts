import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { API_KEY, apiFailure, makeClient, mockAgent, ok } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

const balancePath = { path: '/api/v1/balance', method: 'GET' };
const rateHeaders = {
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '98',
  'x-ratelimit-reset': '42',
  'content-type': 'application/json',
};

describe('--verbose trace', () => {
  it.each(['x-api-key', 'bearer'] as const)(
    'shows request, response and resends, never the key (%s)',
    async (authScheme) => {
      ({ agent, pool } = mockAgent());
      // A hostile server echoes the key in its error message and in a header.
      pool.intercept(balancePath).reply(503, apiFailure('internal_error', `bad key ${API_KEY}`), {
        headers: { ...rateHeaders, location: `https://x/${API_KEY}` },
      });
      pool.intercept(balancePath).reply(200, ok({ balance: 5, currency: 'coins' }), { headers: rateHeaders });
      const lines: string[] = [];
      const { client } = makeClient(agent, { authScheme, trace: (line) => lines.push(line), random: () => 0 });
      await client.getBalance();
      const text = lines.join('\n');
      expect(text).not.toContain(API_KEY);
      expect(lines).toContain('> GET https://api.test/api/v1/balance');
      expect(lines).toContain('> User-Agent: taskctl/0.1.0 node/v20.0.0');
      expect(lines).toContain(authScheme === 'bearer' ? '> Authorization: [REDACTED]' : '> X-API-Key: [REDACTED]');
      expect(lines).toContain('< 503 (0 ms)');
      expect(lines).toContain('< x-ratelimit-remaining: 98');
      expect(lines).toContain('* trying again in 0.5s (HTTP 503, internal_error), attempt 2/4');
      expect(lines).toContain('> GET https://api.test/api/v1/balance (attempt 2/4)');
      expect(lines).toContain('< 200 (0 ms)');
    },
  );

  it('scrubs the key from error messages built from server text', async () => {
    ({ agent, pool } = mockAgent());
    pool.intercept(balancePath).reply(401, apiFailure('unauthorized', `key ${API_KEY} is revoked`));
    const { client } = makeClient(agent);
    const error = (await client.getBalance().catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('reading the balance: key [REDACTED] is revoked');
  });

  it('traces transport failures and the body size of a POST, without the body', async () => {
    ({ agent, pool } = mockAgent());
    pool
      .intercept({ path: '/api/v1/tasks', method: 'POST' })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    pool
      .intercept({ path: '/api/v1/tasks', method: 'POST' })
      .reply(201, ok({ id: 1, service: 's', status: 'pending', total_items: 1, cost: 1, created_at: 't' }));
    const lines: string[] = [];
    const { client } = makeClient(agent, { trace: (line) => lines.push(line) });
    await client.createTask({ service: 's', items: ['secret-item.com'] });
    expect(lines.some((l) => l.startsWith('! POST /tasks failed: ECONNREFUSED'))).toBe(true);
    expect(lines).toContain('> Content-Type: application/json');
    expect(lines.some((l) => /^> \(JSON body, \d+ bytes\)$/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toContain('secret-item.com');
  });
});
