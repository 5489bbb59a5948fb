/** `client.request`: any method and path through the one client, its resend rules and its error mapping. */
import { afterEach, describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { ExitCode, NotFoundError, RateLimitError, RefusedError, UsageError } from '../../../src/errors.js';
import { API_KEY, apiFailure, JSON_HEADERS, makeClient, mockAgent, networkError, ok } from './mock-agent.js';

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
afterEach(async () => {
  await agent.close();
});

function setup() {
  ({ agent, pool } = mockAgent());
}

describe('client.request', () => {
  it('returns status, headers and the body text exactly as it came', async () => {
    setup();
    const text = '{"success":true,"data":{"balance":5,"currency":"coins"},"extra":[1,2]}';
    let headers: Record<string, unknown> = {};
    pool.intercept({ path: '/api/v1/balance', method: 'GET' }).reply((request) => {
      headers = request.headers as Record<string, unknown>;
      return { statusCode: 200, data: text, responseOptions: { headers: { ...JSON_HEADERS, 'x-request-id': 'r1' } } };
    });
    const { client } = makeClient(agent);
    const response = await client.request('GET', '/balance');
    expect(response).toMatchObject({ status: 200, text, error: undefined });
    expect(response.headers['x-request-id']).toBe('r1');
    expect(headers['X-API-Key'] ?? headers['x-api-key']).toBe(API_KEY);
  });

  it('adds query pairs after a query already in the path, keeping repeated names', async () => {
    setup();
    pool.intercept({ path: '/api/v1/tasks?page=2&per_page=5&tag=a&tag=b', method: 'GET' }).reply(200, ok([]));
    const { client } = makeClient(agent);
    const response = await client.request('GET', '/tasks?page=2', {
      query: [
        ['per_page', '5'],
        ['tag', 'a'],
        ['tag', 'b'],
      ],
    });
    expect(response.status).toBe(200);
  });

  it('sends a JSON body text unchanged with its content type', async () => {
    setup();
    const seen: Array<{ body: unknown; type: unknown }> = [];
    pool.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply((request) => {
      const headers = request.headers as Record<string, string>;
      seen.push({ body: request.body, type: headers['Content-Type'] ?? headers['content-type'] });
      return { statusCode: 201, data: ok({ id: 1 }), responseOptions: { headers: JSON_HEADERS } };
    });
    const { client } = makeClient(agent);
    const body = '{ "service": "x",\n  "items": ["a"] }';
    expect((await client.request('POST', '/tasks', { body })).status).toBe(201);
    expect(seen).toEqual([{ body, type: 'application/json' }]);
  });

  it('takes a path that repeats the base URL prefix as the same path', async () => {
    setup();
    pool.intercept({ path: '/api/v1/balance', method: 'GET' }).reply(200, ok({ balance: 1 }));
    const { client } = makeClient(agent);
    expect((await client.request('GET', '/api/v1/balance')).status).toBe(200);
  });

  it('refuses absolute URLs and escapes before sending anything (exit 2)', async () => {
    setup();
    const { client } = makeClient(agent);
    for (const path of ['https://evil.example/balance', '/../__sandbox/state', '//evil.example/x']) {
      await expect(client.request('GET', path)).rejects.toBeInstanceOf(UsageError);
    }
  });

  it('accepts any 2xx body: empty, text, JSON of any shape', async () => {
    setup();
    pool.intercept({ path: '/api/v1/tasks/1', method: 'DELETE' }).reply(204, '');
    pool
      .intercept({ path: '/api/v1/ping', method: 'GET' })
      .reply(200, 'pong', { headers: { 'content-type': 'text/plain' } });
    pool.intercept({ path: '/api/v1/list', method: 'GET' }).reply(200, '[1,2,3]', { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect(await client.request('DELETE', '/tasks/1')).toMatchObject({ status: 204, text: '', error: undefined });
    expect(await client.request('GET', '/ping')).toMatchObject({ status: 200, text: 'pong', error: undefined });
    expect(await client.request('GET', '/list')).toMatchObject({ text: '[1,2,3]', error: undefined });
  });

  it('a 2xx declared JSON that is cut off: a GET is sent again; the last text returned with its error (exit 8)', async () => {
    setup();
    pool
      .intercept({ path: '/api/v1/balance', method: 'GET' })
      .reply(200, '{"success":true,"da', { headers: JSON_HEADERS })
      .times(4);
    const { client, clock } = makeClient(agent);
    const response = await client.request('GET', '/balance');
    expect(response.text).toBe('{"success":true,"da');
    expect(response.error?.message).toBe(
      'reading the balance: the answer was cut off after 19 bytes (HTTP 200) after 4 attempts',
    );
    expect((response.error as { exitCode?: number } | undefined)?.exitCode).toBe(ExitCode.unavailable);
    expect(clock.sleeps).toHaveLength(3);
  });

  it('a write whose answer is cut off is not sent again: it may have been carried out (exit 8)', async () => {
    setup();
    pool
      .intercept({ path: '/api/v1/things', method: 'PUT' })
      .reply(200, '{"success":true,"da', { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const response = await client.request('PUT', '/things', { body: '{}' });
    expect(response.error?.message).toBe(
      'PUT /things: the answer was cut off after 19 bytes (HTTP 200); the request may have been carried out',
    );
    expect((response.error as { exitCode?: number } | undefined)?.exitCode).toBe(ExitCode.unavailable);
    expect(clock.sleeps).toEqual([]);
  });

  it('a 2xx declared JSON that is not JSON at all stays final: not sent again', async () => {
    setup();
    pool
      .intercept({ path: '/api/v1/balance', method: 'GET' })
      .reply(200, '{"success":true}}', { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const response = await client.request('GET', '/balance');
    expect(response.error?.message).toMatch(/a body that is not JSON/);
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    [404, 'not_found', NotFoundError, ExitCode.notFound],
    [401, 'unauthorized', Error, ExitCode.auth],
    [409, 'conflict', RefusedError, ExitCode.refused],
    [422, 'validation_error', Error, ExitCode.input],
  ])('HTTP %i %s: the error to exit with, and the body', async (status, code, type, exitCode) => {
    setup();
    const body = apiFailure(code, 'nope');
    pool.intercept({ path: '/api/v1/things/9', method: 'GET' }).reply(status, body, { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    const response = await client.request('GET', '/things/9');
    expect(response.status).toBe(status);
    expect(response.text).toBe(body);
    expect(response.error).toBeInstanceOf(type);
    expect((response.error as { exitCode?: number } | undefined)?.exitCode).toBe(exitCode);
  });

  it("a 404 in the API's own words blames the path; one that is not the API's blames --base-url", async () => {
    setup();
    const unknown = apiFailure('not_found', 'No such endpoint: GET /nope');
    pool.intercept({ path: '/api/v1/nope', method: 'GET' }).reply(404, unknown, { headers: JSON_HEADERS });
    pool
      .intercept({ path: '/api/v1/elsewhere', method: 'GET' })
      .reply(404, '<h1>Not Found</h1>', { headers: { 'content-type': 'text/html' } });
    const { client } = makeClient(agent);
    const api = (await client.request('GET', '/nope')).error as { hint?: string } | undefined;
    expect(api?.hint).toMatch(/no such path/);
    expect(api?.hint).not.toMatch(/base-url/);
    const other = (await client.request('GET', '/elsewhere')).error as { hint?: string } | undefined;
    expect(other?.hint).toMatch(/Check --base-url: it should end in \/api\/v1/);
  });

  it('a 2xx saying success: false is a failure all the same', async () => {
    setup();
    pool
      .intercept({ path: '/api/v1/x', method: 'GET' })
      .reply(200, apiFailure('not_found', 'gone'), { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    expect((await client.request('GET', '/x')).error).toBeInstanceOf(NotFoundError);
  });

  it('GET is resent on 503 and answers with the last response', async () => {
    setup();
    const path = { path: '/api/v1/x', method: 'GET' };
    pool.intercept(path).reply(503, apiFailure('internal_error', 'busy'), { headers: JSON_HEADERS });
    pool.intercept(path).reply(200, ok({ fine: true }), { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const response = await client.request('GET', '/x');
    expect(response).toMatchObject({ status: 200, error: undefined });
    expect(clock.sleeps).toHaveLength(1);
  });

  it('GET still failing after 4 attempts: exit 8 with the last body', async () => {
    setup();
    const path = { path: '/api/v1/x', method: 'GET' };
    pool.intercept(path).reply(502, apiFailure('internal_error', 'down'), { headers: JSON_HEADERS }).times(4);
    const { client } = makeClient(agent);
    const response = await client.request('GET', '/x');
    expect(response.status).toBe(502);
    expect(response.error?.message).toMatch(/after 4 attempts/);
    expect((response.error as { exitCode?: number } | undefined)?.exitCode).toBe(ExitCode.unavailable);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    '%s is never resent after a 500: it may have been carried out',
    async (method) => {
      setup();
      pool
        .intercept({ path: '/api/v1/tasks/7/cancel', method })
        .reply(500, apiFailure('internal_error', 'boom'), { headers: JSON_HEADERS });
      const { client, clock } = makeClient(agent);
      const response = await client.request(method, '/tasks/7/cancel');
      expect(clock.sleeps).toEqual([]);
      expect(response.status).toBe(500);
      expect(response.error?.message).toMatch(/may have been carried out/);
      expect((response.error as { exitCode?: number } | undefined)?.exitCode).toBe(ExitCode.unavailable);
    },
  );

  it('POST /tasks is never resent after a reset once sent; the outcome is unknown (exit 9, as for a create: 8 would invite paying twice), not reconciled', async () => {
    setup();
    pool.intercept({ path: '/api/v1/tasks', method: 'POST' }).replyWithError(networkError('ECONNRESET'));
    const { client, clock } = makeClient(agent);
    const error = await client.request('POST', '/tasks', { body: '{}' }).then(
      () => undefined,
      (e: unknown) => e as Error & { exitCode?: number },
    );
    expect(clock.sleeps).toEqual([]);
    expect(error?.message).toMatch(/may have created a task/);
    expect(error?.exitCode).toBe(ExitCode.createUnknown);
  });

  it('POST is resent when provably never sent (connection refused) and after a 429', async () => {
    setup();
    const path = { path: '/api/v1/tasks', method: 'POST' };
    pool.intercept(path).replyWithError(networkError('ECONNREFUSED'));
    pool
      .intercept(path)
      .reply(429, apiFailure('rate_limited', 'slow'), { headers: { ...JSON_HEADERS, 'retry-after': '1' } });
    pool.intercept(path).reply(201, ok({ id: 3 }), { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const response = await client.request('POST', '/tasks', { body: '{}' });
    expect(response).toMatchObject({ status: 201, error: undefined });
    expect(clock.sleeps).toHaveLength(2);
  });

  it('a 429 that outlasts the resends is exit 7 with its body', async () => {
    setup();
    const body = apiFailure('rate_limited', 'slow');
    pool
      .intercept({ path: '/api/v1/x', method: 'GET' })
      .reply(429, body, { headers: { ...JSON_HEADERS, 'retry-after': '1' } })
      .times(4);
    const { client } = makeClient(agent);
    const response = await client.request('GET', '/x');
    expect(response.error).toBeInstanceOf(RateLimitError);
    expect(response.text).toBe(body);
  });

  it('a transport failure after a response keeps no stale body: it throws', async () => {
    setup();
    const path = { path: '/api/v1/x', method: 'GET' };
    pool.intercept(path).reply(503, apiFailure('internal_error', 'busy'), { headers: JSON_HEADERS });
    pool.intercept(path).replyWithError(networkError('ECONNRESET')).times(3);
    const { client } = makeClient(agent);
    await expect(client.request('GET', '/x')).rejects.toThrow(/connection was reset/);
  });
});
