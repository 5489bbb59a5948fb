import { afterEach, assert, describe, expect, it } from 'vitest';
import type { Dispatcher, MockAgent } from 'undici';
import { AmbiguousCreateError } from '../../../src/api/api-errors.js';
import {
  AuthError,
  BalanceError,
  ExitCode,
  InputError,
  NotFoundError,
  RateLimitError,
  UnavailableError,
} from '../../../src/errors.js';
import {
  apiFailure,
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
afterEach(async () => {
  await agent.close();
});

const createPath = { path: '/api/v1/tasks', method: 'POST' };
const request = { service: 'domain_check_availability', items: ['a.com', 'b.com'] };

async function failure(promise: Promise<unknown>): Promise<Error & { exitCode?: number; hint?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { exitCode?: number; hint?: string };
  }
  throw new Error('expected the call to fail');
}

function setup() {
  ({ agent, pool } = mockAgent());
}

describe('creating the task: success', () => {
  it('sends only service and items as JSON, with Content-Type, and returns the task', async () => {
    setup();
    let seenBody = '';
    let seenType = '';
    pool.intercept(createPath).reply(201, (opts) => {
      seenBody = typeof opts.body === 'string' ? opts.body : '';
      seenType = String((opts.headers as Record<string, string>)['Content-Type']);
      return ok(TASK, { message: 'Task created' });
    });
    const { client } = makeClient(agent);
    const task = await client.createTask({ ...request, extra: 'dropped' } as typeof request);
    expect(task).toEqual(TASK);
    expect(JSON.parse(seenBody)).toEqual(request);
    expect(seenType).toBe('application/json');
  });
});

describe('creating the task: resent only when the request never reached the server', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])('%s is resent', async (code) => {
    setup();
    pool.intercept(createPath).replyWithError(networkError(code));
    pool.intercept(createPath).reply(201, ok(TASK));
    const { client, clock } = makeClient(agent);
    expect((await client.createTask(request)).id).toBe(42);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('a persistent ECONNREFUSED ends as a plain exit-8 error (nothing was created)', async () => {
    setup();
    pool.intercept(createPath).replyWithError(networkError('ECONNREFUSED')).times(4);
    const { client } = makeClient(agent);
    const error = await failure(client.createTask(request));
    expect(error).not.toBeInstanceOf(AmbiguousCreateError);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toBe(
      'creating the task: could not reach https://api.test (connection refused) after 4 attempts',
    );
  });

  it('429 is retried after Retry-After (the server refused it)', async () => {
    setup();
    pool.intercept(createPath).reply(429, apiFailure('rate_limited', 'slow down'), { headers: { 'retry-after': '2' } });
    pool.intercept(createPath).reply(201, ok(TASK));
    const { client, clock } = makeClient(agent);
    expect((await client.createTask(request)).id).toBe(42);
    expect(clock.sleeps).toEqual([2_000]);
  });

  it('a persistent 429 is RateLimitError (exit 7)', async () => {
    setup();
    pool
      .intercept(createPath)
      .reply(429, apiFailure('rate_limited', 'slow down'), { headers: { 'retry-after': '1' } })
      .times(4);
    const { client } = makeClient(agent);
    const error = await failure(client.createTask(request));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.exitCode).toBe(ExitCode.rateLimited);
  });

  it('a TLS failure is not resent and is not ambiguous', async () => {
    setup();
    pool.intercept(createPath).replyWithError(networkError('ERR_TLS_CERT_ALTNAME_INVALID'));
    const { client, clock } = makeClient(agent);
    const error = await failure(client.createTask(request));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).not.toBeInstanceOf(AmbiguousCreateError);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('creating the task: failures after sending are ambiguous, never resent', () => {
  it.each([
    'ECONNRESET',
    'UND_ERR_SOCKET',
    'UND_ERR_HEADERS_TIMEOUT',
    'UND_ERR_BODY_TIMEOUT',
    'EPIPE',
    'ETIMEDOUT',
    'SOMETHING_ELSE',
  ])('%s → AmbiguousCreateError', async (code) => {
    setup();
    pool.intercept(createPath).replyWithError(networkError(code));
    const { client, clock } = makeClient(agent);
    clock.nowMs = T0 + 123;
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    // Plain words for the codes this client knows (docs/behaviour.md#error-mapping); the code is in the --verbose trace.
    expect(error.message).toMatch(/^POST \/tasks may have created a task \((?!UND_ERR)[^)]+\)$/);
    expect(error.sentAtMs).toBe(T0 + 123);
    expect(error.cause).toMatchObject({ code });
    expect(clock.sleeps).toEqual([]);
  });

  it.each([500, 502, 503, 504])('HTTP %i → AmbiguousCreateError', async (status) => {
    setup();
    pool
      .intercept(createPath)
      .reply(status, apiFailure('internal_error', 'boom'), { headers: { ...JSON_HEADERS, 'retry-after': '1' } });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`POST /tasks may have created a task (HTTP ${status}, internal_error)`);
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    ['non-JSON', '<html>oops</html>', /a body that is not JSON \(application\/json\)/],
    ['cut-off', ok(TASK).slice(0, 30), /may have created a task \(the answer was cut off after 30 bytes, HTTP 201\)$/],
    ['malformed', ok({ ...TASK, id: 'x' }), /unexpected response: data\.id/],
    ['empty', '', /an empty body/],
  ])('a %s 201 body → AmbiguousCreateError', async (_name, body, detail) => {
    setup();
    pool.intercept(createPath).reply(201, body, { headers: JSON_HEADERS });
    const { client } = makeClient(agent);
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.message).toMatch(detail);
  });

  it('a connection lost while reading the body → AmbiguousCreateError with the status', async () => {
    ({ agent, pool } = mockAgent());
    let calls = 0;
    const dispatcher = {
      async request() {
        calls++;
        return {
          statusCode: 201,
          headers: { 'content-type': 'application/json' },
          body: {
            destroy: () => {},
            // eslint-disable-next-line require-yield
            async *[Symbol.asyncIterator]() {
              throw networkError('ECONNRESET');
            },
          },
        };
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const { client } = makeClient(agent, { dispatcher });
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.message).toBe(
      'POST /tasks may have created a task (the connection was reset while reading the HTTP 201 response)',
    );
    expect(error.status).toBe(201);
    expect(calls).toBe(1);
  });
  it('a body shorter than its Content-Length → AmbiguousCreateError naming the bytes, never resent', async () => {
    const body = ok(TASK);
    const { dispatcher, calls } = scriptedDispatcher([{ status: 201, body, cutAfter: 30 }]);
    setup();
    const { client, clock } = makeClient(agent, { dispatcher });
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.message).toBe(
      `POST /tasks may have created a task (the answer was cut off after 30 bytes, HTTP 201, ${body.length} announced)`,
    );
    expect(error.status).toBe(201);
    expect(calls()).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('creating the task: definite errors map normally and are not resent', () => {
  it.each([
    [422, 'validation_error', 'items must not be empty', InputError, ExitCode.input],
    [400, 'validation_error', 'service is required', InputError, ExitCode.input],
    [402, 'insufficient_balance', 'Balance 5 coins, required 10 coins', BalanceError, ExitCode.balance],
    [404, 'not_found', 'Unknown service', NotFoundError, ExitCode.notFound],
    [401, 'unauthorized', 'Invalid or missing API key', AuthError, ExitCode.auth],
  ])('HTTP %i %s', async (status, code, message, cls, exitCode) => {
    setup();
    pool.intercept(createPath).reply(status, apiFailure(code, message), { headers: JSON_HEADERS });
    const { client, clock } = makeClient(agent);
    const error = await failure(client.createTask(request));
    expect(error).toBeInstanceOf(cls);
    expect(error).not.toBeInstanceOf(AmbiguousCreateError);
    expect(error.exitCode).toBe(exitCode);
    expect(error.message).toBe(`creating the task: ${message}`);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('creating the task: a redirect', () => {
  // 303 See Other (and 301/302, which clients have long turned into a GET) is how a server says "done, see there":
  // the task may exist, so exit 8 ("try again") could pay twice. 307/308 ask for the same request elsewhere.
  it.each([301, 302, 303])('HTTP %i → AmbiguousCreateError, not sent again', async (status) => {
    setup();
    pool.intercept(createPath).reply(status, '', { headers: { location: 'https://api.test/api/v1/tasks/42' } });
    const { client, clock } = makeClient(agent);
    clock.nowMs = T0 + 7;
    const error = await failure(client.createTask(request));
    assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
    expect(error.message).toBe(`POST /tasks may have created a task (HTTP ${status}, a redirect)`);
    expect(error.status).toBe(status);
    expect(error.sentAtMs).toBe(T0 + 7);
    expect(clock.sleeps).toEqual([]);
  });

  // A 3xx that redirects nowhere (300, 304 Not Modified to a request that named no version, 305, 306) answers no
  // request taskctl sends: an answer out of turn, whose write may have been carried out all the same.
  it.each([300, 304, 305, 399])(
    'HTTP %i → AmbiguousCreateError as an answer out of turn, never a redirect',
    async (status) => {
      setup();
      pool.intercept(createPath).reply(status, '');
      const { client, clock } = makeClient(agent);
      const error = await failure(client.createTask(request));
      assert(error instanceof AmbiguousCreateError, `not an AmbiguousCreateError: ${String(error)}`);
      expect(error.message).toBe(
        `POST /tasks may have created a task (HTTP ${status}, an answer no request asked for)`,
      );
      expect(clock.sleeps).toEqual([]);
    },
  );

  it.each([307, 308])(
    'HTTP %i stays a plain exit-8 redirect error (the request is to be made elsewhere)',
    async (status) => {
      setup();
      pool.intercept(createPath).reply(status, '', { headers: { location: 'https://other.test/api/v1/tasks' } });
      const { client } = makeClient(agent);
      const error = await failure(client.createTask(request));
      expect(error).not.toBeInstanceOf(AmbiguousCreateError);
      expect(error.exitCode).toBe(ExitCode.unavailable);
      expect(error.message).toMatch(/a redirect to https:\/\/other\.test/);
    },
  );
});
