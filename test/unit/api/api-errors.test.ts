import { describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  apiError,
  AUTH_HINT,
  describeIssue,
  endpointLabel,
  formatIssuePath,
  malformedResponseError,
  nonJsonResponseError,
  redirectError,
} from '../../../src/api/api-errors.js';
import { BalanceResponseSchema, TaskListResponseSchema } from '../../../src/api/schemas.js';
import {
  AuthError,
  BalanceError,
  CliError,
  ExitCode,
  InputError,
  NotFoundError,
  RateLimitError,
  RefusedError,
  UnavailableError,
} from '../../../src/errors.js';

describe('apiError: by error code first', () => {
  it.each([
    ['unauthorized', AuthError, ExitCode.auth],
    ['not_found', NotFoundError, ExitCode.notFound],
    ['validation_error', InputError, ExitCode.input],
    ['insufficient_balance', BalanceError, ExitCode.balance],
    ['rate_limited', RateLimitError, ExitCode.rateLimited],
    ['internal_error', UnavailableError, ExitCode.unavailable],
  ])('%s → %o, whatever the status', (code, cls, exitCode) => {
    for (const status of [200, 400, 401, 404, 418, 500]) {
      const error = apiError('GET /x', status, { code, message: 'server says' });
      expect(error).toBeInstanceOf(cls);
      expect(error.exitCode).toBe(exitCode);
      // The failures resent until the attempts are spent say what happened, with the status, before the server's words.
      const said =
        code === 'rate_limited'
          ? `rate limited (HTTP ${status}: server says)`
          : code === 'internal_error'
            ? `the service failed (HTTP ${status}, internal_error: server says)`
            : 'server says';
      expect(error.message).toBe(`GET /x: ${said}`);
    }
  });
});

describe('apiError: by HTTP status when the code is unknown or missing', () => {
  it.each([
    [400, InputError],
    [401, AuthError],
    [402, BalanceError],
    [403, AuthError],
    [404, NotFoundError],
    [413, InputError],
    [422, InputError],
    [429, RateLimitError],
    [500, UnavailableError],
    [502, UnavailableError],
    [503, UnavailableError],
    [409, RefusedError],
    [410, RefusedError],
    [418, RefusedError],
    [408, UnavailableError],
  ])('HTTP %i → %o', (status, cls) => {
    expect(apiError('GET /x', status, { code: 'some_new_code', message: 'm' })).toBeInstanceOf(cls);
    const bare = apiError('GET /x', status, undefined);
    expect(bare).toBeInstanceOf(cls);
    expect(bare.message).toContain(`HTTP ${status}`);
  });
});

describe('apiError messages and hints', () => {
  it('names the endpoint and uses the server message', () => {
    expect(apiError('GET /tasks/42', 404, { code: 'not_found', message: 'Task 42 not found' }).message).toBe(
      'task 42 was not found',
    );
    expect(apiError('GET /tasks/42', 404, { code: 'not_found', message: 'archived last year' }).message).toBe(
      'task 42 was not found (archived last year)',
    );
  });

  it('tells how to fix authentication', () => {
    const error = apiError('GET /balance', 401, { code: 'unauthorized', message: 'Invalid or missing API key' });
    expect(error.hint).toBe(AUTH_HINT);
    expect(AUTH_HINT).toBe('Run `taskctl auth login`, or set TASKCTL_API_KEY.');
    expect(apiError('GET /balance', 403, undefined)).toBeInstanceOf(AuthError);
  });

  it('points at services for an unknown service and at list for an unknown task', () => {
    expect(apiError('POST /tasks', 404, { code: 'not_found', message: 'Unknown service' }).hint).toMatch(
      /taskctl services/,
    );
    expect(apiError('GET /tasks/7', 404, { code: 'not_found', message: 'Task 7 not found' }).hint).toMatch(
      /taskctl list/,
    );
  });

  it('falls back to a default text when the server message is empty, and appends a suffix', () => {
    const error = apiError(
      'GET /balance',
      503,
      { code: 'internal_error', message: '' },
      { suffix: ' after 4 attempts' },
    );
    expect(error.message).toBe('reading the balance: the service failed (HTTP 503, internal_error) after 4 attempts');
  });
});

describe('endpointLabel', () => {
  it('drops the query', () => {
    expect(endpointLabel('get', '/tasks?page=2')).toBe('GET /tasks');
  });
});

describe('malformed and non-JSON bodies', () => {
  it('names the field of the closest union branch', () => {
    const parsed = BalanceResponseSchema.safeParse({ success: true, data: { balance: 'lots', currency: 'coins' } });
    expect(parsed.success).toBe(false);
    const error = malformedResponseError('GET /balance', parsed.error!.issues);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      'reading the balance: unexpected response from the server (data.balance: should be a number, not a string)',
    );
  });

  it('follows nested unions to the array index', () => {
    const parsed = TaskListResponseSchema.safeParse({
      success: true,
      data: [{ id: 'abc', service: 's', status: 'pending', total_items: 1, cost: 1, created_at: 'x' }],
      meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 },
    });
    expect(describeIssue(parsed.error!.issues)).toBe('data[0].id: should be a number, not a string');
  });

  it('formats paths', () => {
    expect(formatIssuePath([])).toBe('(body)');
    expect(formatIssuePath(['data', 3, 'items', 0, 'target'])).toBe('data[3].items[0].target');
  });

  it('describes a non-JSON body with its content type', () => {
    expect(
      nonJsonResponseError('GET /balance', 502, { contentType: 'text/html; charset=utf-8' }, 'not JSON').message,
    ).toBe('reading the balance: the server answered HTTP 502 with a body that is not JSON (text/html)');
    expect(nonJsonResponseError('GET /balance', 200, {}, 'not JSON').message).toMatch(/\(no content type\)$/);
  });

  it('names a Content-Encoding instead (not identity), as sent, the content type then left out', () => {
    const encoded = (contentEncoding: string) =>
      nonJsonResponseError('GET /balance', 200, { contentType: 'application/json', contentEncoding }, 'not JSON')
        .message;
    expect(encoded('gzip, br')).toBe(
      'reading the balance: the server answered HTTP 200 with an encoded body taskctl did not ask for and does not decode (Content-Encoding: gzip, br)',
    );
    expect(encoded(' Identity ')).toMatch(/a body that is not JSON \(application\/json\)$/);
    // An empty body is empty, whatever its encoding.
    expect(nonJsonResponseError('GET /balance', 200, { contentEncoding: 'gzip' }, 'empty').message).toMatch(
      /with an empty body$/,
    );
  });

  it('keeps the content type inert, as other server text', () => {
    expect(nonJsonResponseError('GET /balance', 200, { contentType: 'text/\u001b[2Jhtml' }, 'not JSON').message).toBe(
      'reading the balance: the server answered HTTP 200 with a body that is not JSON (text/\\x1b[2Jhtml)',
    );
  });

  it('names the redirect target', () => {
    const error = redirectError('GET /balance', 301, 'https://elsewhere.example/api/v1/balance');
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toContain('https://elsewhere.example/api/v1/balance');
  });
});

describe('AmbiguousCreateError', () => {
  it('is an exit-8 UnavailableError carrying the cause and the send time', () => {
    const cause = new Error('socket hang up');
    const error = new AmbiguousCreateError('ECONNRESET', { cause, sentAtMs: 1234, status: 500 });
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe('POST /tasks may have created a task (ECONNRESET)');
    expect(error.cause).toBe(cause);
    expect(error.sentAtMs).toBe(1234);
    expect(error.status).toBe(500);
    expect(error.name).toBe('AmbiguousCreateError');
  });
});
