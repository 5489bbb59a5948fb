/**
 * Hardening matrix, fuzz rows (test/README.md, F1–F6): fast-check over the item pipeline, the duration parser, the
 * rate-limit header parser and limiter, Retry-After, and the response judge with every schema. Properties: nothing but
 * a CliError ever escapes, every computed wait is within 0..61 s, and the key never appears in a message.
 */
import fc from 'fast-check';
import { codePointString } from '../code-points.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { judgeFailure, judgeResponse, type JudgeContext } from '../../src/api/request.js';
import { MAX_RATE_LIMIT_WAIT_MS, parseRateLimit, RateLimiter } from '../../src/api/rate-limit.js';
import { backoffDelay, retryAfterMs, resendDelay, shouldResend, type Method } from '../../src/api/resend-policy.js';
import {
  BalanceResponseSchema,
  CreateTaskResponseSchema,
  ERROR_CODES,
  ErrorResponseSchema,
  ServicesResponseSchema,
  TaskListResponseSchema,
  TaskResponseSchema,
  WebhookEventSchema,
} from '../../src/api/schemas.js';
import { dedupeItems, planChunks, readItems, validateItems } from '../../src/core/items/index.js';
import { formatDuration, parseDuration } from '../../src/lib/duration.js';
import { CliError, RateLimitError, UsageError } from '../../src/errors.js';
import { createRedactor } from '../../src/lib/redact.js';
import { FakeClock } from '../clock.js';
import { KEY } from './scripted-server.js';

const YEAR_MS = 365 * 24 * 3_600_000;

/**
 * `expect` for the properties' bodies, which run thousands of times: vitest's costs ~12 µs a call (its state, chai's
 * proxies), a third of this file's CPU. `check` compares at once, and only when a comparison fails hands the value to
 * `expect`, so a counterexample fails with expect's own message.
 */
function check(actual: unknown) {
  const number = typeof actual === 'number' ? actual : Number.NaN;
  const text = typeof actual === 'string' ? actual : undefined;
  return {
    toBe: (expected: unknown) => Object.is(actual, expected) || expect(actual).toBe(expected),
    toBeDefined: () => actual !== undefined || expect(actual).toBeDefined(),
    toBeGreaterThanOrEqual: (n: number) => number >= n || expect(actual).toBeGreaterThanOrEqual(n),
    toBeLessThanOrEqual: (n: number) => number <= n || expect(actual).toBeLessThanOrEqual(n),
    toBeLessThan: (n: number) => number < n || expect(actual).toBeLessThan(n),
    toBeInstanceOf: (type: abstract new (...args: never[]) => unknown) =>
      actual instanceof type || expect(actual).toBeInstanceOf(type),
    toContain: (item: unknown) => (Array.isArray(actual) && actual.includes(item)) || expect(actual).toContain(item),
    toMatch: (pattern: RegExp) => (text !== undefined && pattern.test(text)) || expect(actual).toMatch(pattern),
    not: {
      toMatch: (pattern: RegExp) => (text !== undefined && !pattern.test(text)) || expect(actual).not.toMatch(pattern),
      toContain: (part: string) => (text !== undefined && !text.includes(part)) || expect(actual).not.toContain(part),
    },
  };
}

/**
 * A quarter of each property's runs in the suite (fast-check draws a new seed every run, so the runs add up over the
 * suite's runs; a failure prints its seed): `TASKCTL_FUZZ_SCALE=1` runs the full counts, more for a deeper search.
 */
const SCALE = Number(process.env.TASKCTL_FUZZ_SCALE ?? '0.25');
const runs = (full: number): number => Math.max(1, Math.round(full * SCALE));

describe('F1 item pipeline (read → validate → dedupe → chunks) on arbitrary text', () => {
  const piece = fc.oneof(
    fc.constantFrom(
      'a.com',
      'xn--mnchen-3ya.de',
      'münchen.de',
      '\u200b',
      '\u00a0',
      '\ufeff',
      '#',
      ',',
      '"',
      '\r',
      '\n',
      '\t',
      '[',
      ']',
      '{"d":"x.com"}',
      '__proto__',
      '\u202e',
      'fail-x.com',
      '1e400',
      '9007199254740993',
    ),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    codePointString({ maxLength: 10 }),
  );
  const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
  const service = fc.constantFrom(
    'domain_check_availability',
    'fanpage_extract_contact',
    'email_verify',
    'unknown_service',
  );

  it('never throws anything but InputError/UsageError; what survives is clean', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.constantFrom('lines', 'json', 'ndjson', 'csv' as const),
        fc.option(fc.constantFrom('d', 'domain', '__proto__', 'constructor'), { nil: undefined }),
        service,
        fc.integer({ min: 1, max: 5 }),
        async (input, format, column, svc, chunkSize) => {
          let read;
          try {
            const stream = {
              async *[Symbol.asyncIterator]() {
                yield Buffer.from(input, 'utf8');
              },
            };
            read = await readItems([{ kind: 'stdin', stream }], { format, column, maxLineLength: 200 });
          } catch (error) {
            check(error).toBeInstanceOf(CliError);
            check([2, 3]).toContain((error as CliError).exitCode);
            return;
          }
          const { valid, invalid } = validateItems(svc, read.items, read.where);
          check(valid.length + invalid.length).toBe(read.items.length);
          for (const item of valid) check(item).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          for (const bad of invalid) check(bad.where).toMatch(/stdin/);
          const { unique } = dedupeItems(valid);
          const chunks = planChunks(unique, chunkSize);
          expect(chunks.flat()).toEqual(unique);
          for (const chunk of chunks) check(chunk.length).toBeLessThanOrEqual(chunkSize);
        },
      ),
      { numRuns: runs(800) },
    );
  });
});

describe('F2 duration parser', () => {
  it('returns a whole number of ms within 0..1 year, or throws UsageError: never anything else', () => {
    const structured = fc
      .tuple(
        fc.oneof(
          fc.nat().map(String),
          fc.double({ min: 0, max: 1e12, noNaN: true }).map(String),
          fc.constantFrom('1e3', '-5', '.5', '5.', '0x10', '٣', '1_000', 'Infinity', 'NaN', '9'.repeat(400)),
        ),
        fc.constantFrom('', 'ms', 's', 'm', 'h', 'd', 'S', ' s', 'sec', 'µs'),
        fc.constantFrom('', ' ', '\t', '\n'),
      )
      .map(([n, unit, pad]) => `${pad}${n}${unit}${pad}`);
    fc.assert(
      fc.property(fc.oneof(fc.string(), codePointString(), structured), (input) => {
        let ms: number;
        try {
          ms = parseDuration(input, '--timeout');
        } catch (error) {
          check(error).toBeInstanceOf(UsageError);
          check((error as UsageError).message).toMatch(/--timeout/);
          return;
        }
        check(Number.isSafeInteger(ms)).toBe(true);
        check(ms).toBeGreaterThanOrEqual(0);
        check(ms).toBeLessThanOrEqual(YEAR_MS);
        check(typeof formatDuration(ms)).toBe('string');
      }),
      { numRuns: runs(3000) },
    );
  });

  it('agrees with the unit arithmetic for well-formed input', () => {
    const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom('ms', 's', 'm', 'h', '' as const),
        (n, unit) => {
          const expected = n * unitMs[unit === '' ? 's' : unit];
          if (expected > YEAR_MS) expect(() => parseDuration(`${n}${unit}`)).toThrow(UsageError);
          else expect(parseDuration(`${n}${unit}`)).toBe(expected);
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});

/** Header values a server (or a proxy, or a bug) might send. */
const headerText = (nowSec: number) =>
  fc.oneof(
    fc.string(),
    fc.integer().map(String),
    fc.double().map(String),
    fc.integer({ min: 0, max: 100 }).map(String),
    fc.integer({ min: -120, max: 4000 }).map((d) => String(nowSec + d)),
    fc.constantFrom(
      '',
      ' 5 ',
      '-0',
      '0',
      '1e3',
      '1.5',
      '00000000000000000007',
      '9'.repeat(20),
      'NaN',
      '∞',
      '\u0000',
      '5, 6',
    ),
  );

describe('F3 rate-limit headers', () => {
  it('parseRateLimit: undefined, or a sane budget whose reset lies within now..now+61 s', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.integer({ min: -3_600_000, max: 3_600_000 }),
        (nowMs, skew) => {
          const nowSec = Math.floor(nowMs / 1000);
          fc.assert(
            fc.property(
              fc.option(headerText(nowSec), { nil: undefined }),
              fc.option(headerText(nowSec), { nil: undefined }),
              fc.option(fc.oneof(headerText(nowSec), fc.array(headerText(nowSec), { maxLength: 3 })), {
                nil: undefined,
              }),
              fc.option(fc.oneof(fc.constant(new Date(nowMs + skew).toUTCString()), fc.string()), { nil: undefined }),
              (limit, remaining, reset, date) => {
                const headers: Record<string, string | string[] | undefined> = {
                  'x-ratelimit-limit': limit,
                  'X-RateLimit-Remaining': remaining,
                  'x-ratelimit-reset': reset,
                  date,
                };
                const info = parseRateLimit(headers, nowMs);
                if (info === undefined) return;
                check(Number.isSafeInteger(info.limit) && info.limit >= 1).toBe(true);
                check(info.remaining).toBeGreaterThanOrEqual(0);
                check(info.remaining).toBeLessThanOrEqual(info.limit);
                check(info.resetAtMs - nowMs).toBeGreaterThanOrEqual(0);
                check(info.resetAtMs - nowMs).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
              },
            ),
            { numRuns: 20 },
          );
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it('Retry-After: undefined or 0..60 s, for any text and any Date', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          headerText(1_700_000_000),
          fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
          fc.constantFrom('Wed, 21 Oct 2015 07:28:00 GMT', 'tomorrow', 'Mon, 99 Foo 2020'),
        ),
        fc.option(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
            fc.string(),
          ),
          { nil: undefined },
        ),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (value, date, now) => {
          const asked = retryAfterMs(value, now, date);
          if (asked === undefined) return;
          const ms = resendDelay('server-fault', 1, { retryAfterMs: asked }, Math.random);
          check(ms).toBeGreaterThanOrEqual(0);
          check(ms).toBeLessThanOrEqual(60_000); // a Retry-After is honoured up to a minute
        },
      ),
      { numRuns: runs(3000) },
    );
  });

  it('backoff: 0..8 s for any attempt number and any random source', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.double()),
        fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -1, 2)),
        (attempt, r) => {
          const ms = backoffDelay(attempt, () => r);
          check(ms).toBeGreaterThanOrEqual(0);
          check(ms).toBeLessThanOrEqual(8_000);
        },
      ),
      { numRuns: runs(2000) },
    );
  });
});

describe('F4 the rate limiter under any sequence of server answers', () => {
  type Op =
    | { kind: 'acquire' }
    | { kind: 'answer'; limit: string; remaining: string; reset: string }
    | { kind: 'limited'; inMs: number }
    | { kind: 'advance'; ms: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constant({ kind: 'acquire' as const }),
    fc.record({
      kind: fc.constant('answer' as const),
      limit: fc.oneof(fc.integer({ min: 0, max: 200 }).map(String), fc.string({ maxLength: 4 })),
      remaining: fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), fc.string({ maxLength: 4 })),
      reset: fc.oneof(
        fc.integer({ min: -100, max: 200 }).map(String),
        fc.constant('9999999999'),
        fc.string({ maxLength: 4 }),
      ),
    }),
    fc.record({ kind: fc.constant('limited' as const), inMs: fc.integer({ min: -1e9, max: 1e12 }) }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 120_000 }) }),
  );

  it('every wait is within 0..61 s, and acquire only ever fails with RateLimitError at a deadline', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 40 }),
        fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: undefined }),
        async (ops, deadlineIn) => {
          const clock = new FakeClock();
          const limiter = new RateLimiter({ clock });
          const deadline = deadlineIn === undefined ? undefined : clock.now() + deadlineIn;
          for (const step of ops) {
            if (step.kind === 'acquire') {
              try {
                await limiter.acquire(undefined, deadline);
              } catch (error) {
                check(error).toBeInstanceOf(RateLimitError);
                check(deadline).toBeDefined();
                continue;
              }
              limiter.release();
            } else if (step.kind === 'answer') {
              const headers = {
                'x-ratelimit-limit': step.limit,
                'x-ratelimit-remaining': step.remaining,
                'x-ratelimit-reset': step.reset,
              };
              limiter.update(parseRateLimit(headers, clock.now()));
            } else if (step.kind === 'limited') {
              limiter.limited(clock.now() + step.inMs);
            } else {
              clock.nowMs += step.ms;
            }
          }
          for (const ms of clock.sleeps) {
            check(ms).toBeGreaterThanOrEqual(0);
            check(ms).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
          }
          const snapshot = limiter.snapshot();
          if (snapshot) check(snapshot.resetAtMs - clock.now()).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});

describe('F5 response parsing: the judge with every schema, on any answer', () => {
  const schemas: Array<[string, Method, z.ZodType]> = [
    ['GET /balance', 'GET', BalanceResponseSchema],
    ['GET /services', 'GET', ServicesResponseSchema],
    ['GET /tasks', 'GET', TaskListResponseSchema],
    ['GET /tasks/1', 'GET', TaskResponseSchema],
    ['POST /tasks', 'POST', CreateTaskResponseSchema],
  ];
  const task = fc.record(
    {
      id: fc.oneof(fc.nat(), fc.string(), fc.constant(2 ** 60)),
      service: fc.string(),
      status: fc.oneof(fc.constantFrom('pending', 'completed', 'failed'), fc.string()),
      total_items: fc.oneof(fc.nat(), fc.double()),
      cost: fc.oneof(fc.nat(), fc.constant(-1)),
      created_at: fc.oneof(fc.string(), fc.constant(null)),
      completed_at: fc.oneof(fc.string(), fc.constant(null)),
      items: fc.array(
        fc.record({ target: fc.oneof(fc.string(), fc.constant(KEY)), status: fc.string(), data: fc.anything() }),
      ),
    },
    { requiredKeys: [] },
  );
  // The documented codes, codes named like Object.prototype members (once a crash: `toString` found a function), any text.
  const errorCode = fc.oneof(
    fc.constantFrom(...ERROR_CODES, 'forbidden', 'toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty'),
    fc.string(),
  );
  const data = fc.oneof(
    task,
    fc.array(task, { maxLength: 3 }),
    fc.record({ balance: fc.oneof(fc.integer(), fc.string()), currency: fc.string() }),
    fc.anything(),
  );
  const body = fc.oneof(
    fc.record(
      { success: fc.oneof(fc.boolean(), fc.anything()), data, meta: fc.anything(), message: fc.string() },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        success: fc.constant(false),
        error: fc.oneof(
          fc.record({ code: errorCode, message: fc.oneof(fc.string(), fc.constant(`key ${KEY}`)) }),
          errorCode,
          fc.anything(),
        ),
        message: fc.string(),
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const text = fc.oneof(
    body.map((b) => stringifyOrEmpty(b)),
    body.chain((b) => {
      const whole = stringifyOrEmpty(b);
      return fc.nat({ max: whole.length }).map((cut) => whole.slice(0, cut));
    }),
    fc.string(),
    fc.constantFrom(
      '',
      '<html><body>502 Bad Gateway</body></html>',
      'null',
      '[]',
      '{"__proto__":{"success":true}}',
      '['.repeat(10_000) + ']'.repeat(10_000),
    ),
  );
  /**
   * A URL: a scheme, a domain, a path of any code points, percent-encoded. Not `fc.webUrl()`: its path draws fast-check's
   * `unit: 'binary'` characters, whose reverse map cost the worker that collects this file 1 to 3 s of CPU
   * (test/code-points.ts).
   */
  const locationUrl = fc
    .tuple(
      fc.constantFrom('http://', 'https://'),
      fc.domain(),
      fc.array(codePointString({ maxLength: 8 }), { maxLength: 3 }),
    )
    .map(([scheme, host, segments]) => `${scheme}${host}/${segments.map(encodeURIComponent).join('/')}`);
  const headers = fc.record(
    {
      'content-type': fc.constantFrom('application/json', 'text/html', 'text/plain; charset=utf-8', ''),
      'retry-after': headerText(1_700_000_000),
      'x-ratelimit-limit': headerText(1_700_000_000),
      'x-ratelimit-remaining': headerText(1_700_000_000),
      'x-ratelimit-reset': headerText(1_700_000_000),
      date: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        fc.string(),
      ),
      location: fc.oneof(locationUrl, fc.constant(`https://x.example/?k=${KEY}`)),
    },
    { requiredKeys: [] },
  );
  const status = fc.oneof(
    fc.integer({ min: 100, max: 599 }),
    fc.constantFrom(200, 201, 302, 400, 401, 402, 403, 404, 408, 422, 429, 500, 502, 503),
  );

  function context(method: Method, endpoint: string, clock: FakeClock): JudgeContext {
    return {
      method,
      endpoint,
      origin: 'https://api.test',
      baseUrl: 'https://api.test/api/v1',
      loopback: false,
      timeoutMs: 30_000,
      scrub: createRedactor([KEY]),
      now: () => clock.now(),
      random: Math.random,
    };
  }

  it('a value of the schema, or a CliError without the key, and any retry waits 0..61 s', () => {
    fc.assert(
      // Schemas by index, so a counterexample prints readably.
      fc.property(
        fc.nat({ max: schemas.length - 1 }),
        status,
        headers,
        text,
        fc.integer({ min: 1, max: 4 }),
        (which, code, h, t, attempt) => {
          const [endpoint, method, schema] = schemas[which]!;
          const clock = new FakeClock();
          const ctx = context(method, endpoint, clock);
          const verdict = judgeResponse(
            ctx,
            schema,
            { kind: 'response', status: code, headers: h, text: t, bytes: Buffer.byteLength(t), sentAtMs: clock.now() },
            attempt,
          );
          if (verdict.ok) {
            check(schema.safeParse(verdict.value).success || endpoint === 'GET /balance').toBe(true);
            return;
          }
          const error = verdict.fail({ attempts: 4, stop: 'final', budgetMs: 35_000 });
          check(error).toBeInstanceOf(CliError);
          check(error.message).not.toContain(KEY);
          check(error.message.length).toBeLessThan(2_000);
          const retry = shouldResend(method, verdict.failure);
          if (retry) {
            check(verdict.waitMs).toBeGreaterThanOrEqual(0);
            check(verdict.waitMs).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
          }
          // A create that may have reached the server is never marked for a blind retry: only a refusal for the rate
          // limit (HTTP 429, or the rate_limited code) may be resent.
          if (method === 'POST' && retry) check(code === 429 || t.includes('rate_limited')).toBe(true);
          if (verdict.blockUntilMs !== undefined)
            check(verdict.blockUntilMs - clock.now()).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
        },
      ),
      { numRuns: runs(4000) },
    );
  });

  it('transport failures: a CliError without the key; a create is only retried when provably never sent', () => {
    const code = fc.oneof(
      fc.constantFrom(
        'ECONNREFUSED',
        'ENOTFOUND',
        'ECONNRESET',
        'UND_ERR_SOCKET',
        'UND_ERR_HEADERS_TIMEOUT',
        'UND_ERR_BODY_TIMEOUT',
        'UND_ERR_CONNECT_TIMEOUT',
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'ERR_TLS_CERT_ALTNAME_INVALID',
        'TASKCTL_DEADLINE',
        'EPIPE',
        'network error',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.nat({ max: schemas.length - 1 }),
        code,
        fc.option(status, { nil: undefined }),
        fc.string(),
        fc.integer({ min: 1, max: 4 }),
        (which, c, st, message, attempt) => {
          const [endpoint, method] = schemas[which]!;
          const clock = new FakeClock();
          const error = Object.assign(new Error(`${message} ${KEY}`), { code: c });
          const verdict = judgeFailure(
            context(method, endpoint, clock),
            { kind: 'failure', error, code: c, status: st, sentAtMs: clock.now() },
            attempt,
          );
          check(verdict.ok).toBe(false);
          if (verdict.ok) return;
          const failure = verdict.fail();
          check(failure).toBeInstanceOf(CliError);
          check(failure.message).not.toContain(KEY);
          if (shouldResend(method, verdict.failure)) {
            check(verdict.waitMs).toBeGreaterThanOrEqual(0);
            check(verdict.waitMs).toBeLessThanOrEqual(8_000);
            if (method === 'POST')
              check(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']).toContain(c);
          }
        },
      ),
      { numRuns: runs(3000) },
    );
  });

  it('the schemas themselves never throw on any value (safeParse), hostile prototypes included', () => {
    const all = [...schemas.map(([, , schema]) => schema), ErrorResponseSchema, WebhookEventSchema];
    fc.assert(
      fc.property(
        fc.anything({
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
        }),
        (value) => {
          for (const schema of all) check(typeof schema.safeParse(value).success).toBe('boolean');
        },
      ),
      { numRuns: runs(2000) },
    );
  });
});

describe('F6 the whole client (MockAgent) on any sequence of answers', () => {
  type Answer =
    { kind: 'reply'; status: number; body: string; headers: Record<string, string> } | { kind: 'error'; code: string };
  const NEVER_SENT = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'];
  const okTask = JSON.stringify({
    success: true,
    data: { id: 1, service: 's', status: 'pending', total_items: 1, cost: 1, created_at: 'now', completed_at: null },
  });
  const okBalance = JSON.stringify({ success: true, data: { balance: 1, currency: 'coins' } });
  const answer: fc.Arbitrary<Answer> = fc.oneof(
    fc.record({
      kind: fc.constant('reply' as const),
      status: fc.constantFrom(200, 201, 302, 400, 401, 404, 422, 429, 500, 502, 503),
      body: fc.oneof(
        fc.constantFrom(
          okTask,
          okBalance,
          '',
          '<html>502</html>',
          okTask.slice(0, 20),
          `{"success":false,"error":{"code":"rate_limited","message":"${KEY}"}}`,
          '{"success":false,"error":{"code":"toString","message":"x"}}',
        ),
        fc.string(),
      ),
      headers: fc.record(
        {
          'content-type': fc.constantFrom('application/json', 'text/html'),
          'retry-after': headerText(1_700_000_000),
          'x-ratelimit-limit': headerText(1_700_000_000),
          'x-ratelimit-remaining': headerText(1_700_000_000),
          'x-ratelimit-reset': headerText(1_700_000_000),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      kind: fc.constant('error' as const),
      code: fc.constantFrom(...NEVER_SENT, 'ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'EPIPE', 'WEIRD'),
    }),
  );
  /** Would the client be right to send the create again after this answer? (The server provably did not act.) */
  const refusedUnacted = (a: Answer) =>
    a.kind === 'error'
      ? NEVER_SENT.includes(a.code)
      : a.status === 429 || (a.status !== 302 && a.body.includes('"code":"rate_limited"'));

  it('returns a value or a CliError without the key, waits 0..61 s, and never resends a create after an ambiguous answer', async () => {
    const { MockAgent } = await import('undici');
    const { createApiClient } = await import('../../src/api/client.js');
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(answer, { minLength: 1, maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 90_000 }), { nil: undefined }),
        async (create, answers, deadlineIn) => {
          const agent = new MockAgent();
          agent.disableNetConnect();
          const pool = agent.get('https://api.test');
          const path = create ? { path: '/api/v1/tasks', method: 'POST' } : { path: '/api/v1/balance', method: 'GET' };
          for (const a of answers) {
            if (a.kind === 'error')
              pool.intercept(path).replyWithError(Object.assign(new Error(`boom ${KEY}`), { code: a.code }));
            else pool.intercept(path).reply(a.status, a.body, { headers: a.headers });
          }
          const clock = new FakeClock();
          const start = clock.now();
          const client = createApiClient({
            baseUrl: 'https://api.test/api/v1',
            apiKey: KEY,
            userAgent: 'fuzz',
            dispatcher: agent,
            clock,
            random: Math.random,
            rateLimiter: new RateLimiter({ clock }),
            ...(deadlineIn === undefined ? {} : { deadline: clock.now() + deadlineIn }),
          });
          try {
            await (create ? client.createTask({ service: 's', items: ['a'] }) : client.getBalance()).catch(
              (error: unknown) => {
                check(error).toBeInstanceOf(CliError);
                check((error as Error).message).not.toContain(KEY);
              },
            );
            const used = answers.length - agent.pendingInterceptors().length;
            // At the deadline itself nothing is sent any more.
            check(used).toBeGreaterThanOrEqual(deadlineIn === 0 ? 0 : 1);
            check(used).toBeLessThanOrEqual(4);
            if (create) for (const a of answers.slice(0, Math.max(0, used - 1))) check(refusedUnacted(a)).toBe(true);
            for (const ms of clock.sleeps) {
              check(ms).toBeGreaterThanOrEqual(0);
              check(ms).toBeLessThanOrEqual(MAX_RATE_LIMIT_WAIT_MS);
            }
            // Fake time only moves by sleeping: the client never slept past its deadline.
            if (deadlineIn !== undefined) check(clock.now() - start).toBeLessThanOrEqual(deadlineIn);
          } finally {
            await client.close();
            await agent.close();
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});

/** JSON.stringify of undefined or a function is undefined at run time, whatever its declared type says. */
const stringify: (value: unknown) => string | undefined = JSON.stringify;
function stringifyOrEmpty(value: unknown): string {
  return stringify(value) ?? '';
}
