import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  decideResend,
  inDoubt,
  notProcessed,
  retryAfterMs,
  resendDelay,
  shouldResend,
  transportFailure,
  type Failure,
} from '../../../src/api/resend-policy.js';
import { errorCode } from '../../../src/api/request.js';
import { formatDuration } from '../../../src/lib/duration.js';
import { T0 } from '../../clock.js';

/** The client's backoff never grows beyond this. */
const BACKOFF_CAP_MS = 8_000;

/** The wait a 5xx's Retry-After earns (parsed, then clamped to a minute); undefined when the header is unreadable. */
function parseRetryAfter(value: string | null | undefined, now: number, date?: string): number | undefined {
  const asked = retryAfterMs(value, now, date);
  return asked === undefined ? undefined : resendDelay('server-fault', 1, { retryAfterMs: asked }, () => 0);
}

describe('backoffDelay', () => {
  it.each([
    [0, 500],
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 8000],
    [5, 8000],
    [60, 8000],
  ])('attempt %i: nominal %i ms without jitter, 75 %% of it with full jitter', (attempt, nominal) => {
    expect(backoffDelay(attempt, () => 0)).toBe(nominal);
    expect(backoffDelay(attempt, () => 1)).toBe(nominal * 0.75);
  });

  it('every delay lies within [0.75 × nominal, nominal] and never above 8 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const nominal = Math.min(500 * 2 ** Math.min(attempt, 30), BACKOFF_CAP_MS);
        const delay = backoffDelay(attempt, () => r);
        return delay >= Math.floor(nominal * 0.75) && delay <= nominal && delay <= BACKOFF_CAP_MS;
      }),
    );
  });

  it('survives a broken random source and odd attempts', () => {
    fc.assert(
      fc.property(fc.double(), fc.double(), (attempt, r) => {
        const delay = backoffDelay(attempt, () => r);
        return Number.isFinite(delay) && delay >= 375 && delay <= BACKOFF_CAP_MS;
      }),
    );
  });
});

describe('parseRetryAfter', () => {
  it.each([
    // Nothing asked: the client's own backoff (500 ms for a first attempt), never an instant resend.
    ['0', 500],
    ['5', 5000],
    [' 7 ', 7000],
    ['1.5', 1500],
    ['60', 60_000],
    ['61', 60_000],
    ['86400', 60_000],
  ])('delta-seconds %j → %i ms', (value, expected) => {
    expect(parseRetryAfter(value, T0)).toBe(expected);
  });

  it('reads an HTTP-date relative to now', () => {
    expect(parseRetryAfter(new Date(T0 + 10_000).toUTCString(), T0)).toBe(10_000);
    expect(parseRetryAfter(new Date(T0 - 10_000).toUTCString(), T0)).toBe(500); // past: the backoff
    expect(parseRetryAfter(new Date(T0 + 3_600_000).toUTCString(), T0)).toBe(60_000);
  });

  it('measures an HTTP-date against the response Date header (server clock skew)', () => {
    const serverNow = T0 - 3_600_000; // server clock one hour behind
    const value = new Date(serverNow + 20_000).toUTCString();
    expect(parseRetryAfter(value, T0, new Date(serverNow).toUTCString())).toBe(20_000);
  });

  it('keeps the unclamped value available for "too long to wait" decisions', () => {
    expect(retryAfterMs('3600', T0)).toBe(3_600_000);
  });

  it.each([undefined, null, '', 'soon', '-5', '1e3', '0x10', 'Infinity', 'NaN', '5 seconds', 'Mon, 99 Foo 2025'])(
    'ignores garbage %j',
    (value) => {
      expect(parseRetryAfter(value, T0)).toBeUndefined();
    },
  );

  it('any input gives undefined or a wait within 0..60 s', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.integer().map(String),
          fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
        ),
        (value) => {
          const ms = parseRetryAfter(value, T0);
          return ms === undefined || (ms >= 0 && ms <= 60_000);
        },
      ),
    );
  });
});

describe('errorCode', () => {
  it('finds a code on the error or in its cause chain', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(
      errorCode(new TypeError('fetch failed', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) })),
    ).toBe('ENOTFOUND');
    expect(errorCode(new Error('plain'))).toBeUndefined();
    expect(errorCode('string')).toBeUndefined();
  });
});

describe('formatDuration, as waits are written in traces', () => {
  it('formats short waits with a decimal', () => {
    expect(formatDuration(1234)).toBe('1.2s');
    expect(formatDuration(500)).toBe('0.5s');
    expect(formatDuration(42_000)).toBe('42s');
  });

  it('a time under a tenth of a second (--request-timeout 1ms) is written in milliseconds, never 0s', () => {
    expect(formatDuration(1)).toBe('1ms');
    expect(formatDuration(40)).toBe('40ms');
    expect(formatDuration(300)).toBe('0.3s');
    expect(formatDuration(0)).toBe('0s');
  });
});

/** Every failure the policy names, in its order. */
const FAILURES: readonly Failure[] = [
  'never-sent',
  'not-sent-deadline',
  'transport',
  'unknown-transport',
  'deadline',
  'tls',
  'too-large',
  'rate-limited',
  'rate-limited-too-long',
  'server-fault',
  'http-408',
  'unreadable',
  'see-other',
  'refused',
];

describe('shouldResend: the one resend rule', () => {
  const failures = FAILURES;

  it('a create is sent again only when it provably never left, or after a 429', () => {
    expect(failures.filter((f) => shouldResend('POST', f))).toEqual(['never-sent', 'rate-limited']);
  });

  it('a GET is resent on blips (network, 5xx, 408, 429), never on answers that would come back the same', () => {
    expect(failures.filter((f) => shouldResend('GET', f))).toEqual([
      'never-sent',
      'transport',
      'rate-limited',
      'server-fault',
      'http-408',
    ]);
  });
});

describe('inDoubt: the write rule', () => {
  const all = FAILURES;

  it('a read is never in doubt', () => {
    expect(all.filter((f) => inDoubt('GET', f))).toEqual([]);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'a %s is in doubt after anything the server may have acted on',
    (method) => {
      expect(all.filter((f) => inDoubt(method, f))).toEqual([
        'transport',
        'unknown-transport',
        'deadline',
        'too-large',
        'server-fault',
        'unreadable',
        'see-other',
      ]);
    },
  );

  it('a failure in doubt is never resent, and never "not processed"', () => {
    for (const f of all)
      if (inDoubt('POST', f)) expect([shouldResend('POST', f), notProcessed(f)]).toEqual([false, undefined]);
  });
});

describe('transportFailure', () => {
  it.each([
    ['ECONNREFUSED', false, 'never-sent'],
    ['UND_ERR_CONNECT_TIMEOUT', false, 'never-sent'],
    ['ECONNRESET', false, 'transport'],
    ['TASKCTL_REQUEST_TIMEOUT', false, 'transport'],
    ['TASKCTL_DEADLINE', false, 'deadline'],
    ['TASKCTL_DEADLINE', true, 'not-sent-deadline'],
    ['TASKCTL_TOO_LARGE', false, 'too-large'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', false, 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', false, 'tls'],
    ['EWHATEVER', false, 'unknown-transport'],
  ] as const)('%s (never sent: %s) is %s', (code, neverSent, kind) => {
    expect(transportFailure(code, neverSent)).toBe(kind);
  });
});

describe('resendDelay and decideResend', () => {
  const base = {
    method: 'GET' as const,
    attempt: 1,
    now: T0,
    deadline: undefined,
    deadlineMovesWithWaits: false,
    budgetEnd: T0 + 35_000,
  };

  it('a 429 waits its Retry-After, else the window reset, else backoff, a minute at most', () => {
    expect(resendDelay('rate-limited', 1, { retryAfterMs: 2000, resetInMs: 9000 }, () => 0)).toBe(2000);
    expect(resendDelay('rate-limited', 1, { resetInMs: 9000 }, () => 0)).toBe(9000);
    expect(resendDelay('rate-limited', 1, {}, () => 0)).toBe(500);
    // A wait of nothing (Retry-After 0, a date past, a window already reset) is the backoff: no burst of attempts.
    expect(resendDelay('rate-limited', 3, { retryAfterMs: 0 }, () => 0)).toBe(2000);
    expect(resendDelay('rate-limited', 2, { resetInMs: 0 }, () => 0)).toBe(1000);
    expect(resendDelay('rate-limited-too-long', 1, { retryAfterMs: 3_600_000 }, () => 0)).toBe(60_000);
  });

  it('a 5xx ignores the window reset; other failures back off', () => {
    expect(resendDelay('server-fault', 2, { resetInMs: 9000 }, () => 0)).toBe(1000);
    expect(resendDelay('transport', 3, { retryAfterMs: 5000 }, () => 0)).toBe(2000);
  });

  it('stops at the last attempt, before the deadline, and at the end of the budget (a 429 excepted)', () => {
    expect(decideResend({ ...base, failure: 'transport', waitMs: 500, attempt: 4 })).toEqual({
      resend: false,
      stop: 'final',
    });
    expect(decideResend({ ...base, failure: 'transport', waitMs: 500, deadline: T0 + 400 })).toEqual({
      resend: false,
      stop: 'deadline',
    });
    expect(decideResend({ ...base, failure: 'transport', waitMs: 500, budgetEnd: T0 + 500 })).toEqual({
      resend: false,
      stop: 'budget',
    });
    expect(decideResend({ ...base, failure: 'rate-limited', waitMs: 50_000 })).toEqual({ resend: true });
    const view = { ...base, failure: 'rate-limited' as const, waitMs: 5000, deadline: T0 + 1000 };
    expect(decideResend(view)).toEqual({ resend: false, stop: 'deadline' });
    expect(decideResend({ ...view, deadlineMovesWithWaits: true })).toEqual({ resend: true });
  });
});

describe('backoffDelay on another schedule (follow: the interval ×1.5 up to 30 s)', () => {
  const follow = { firstMs: 2000, factor: 1.5, capMs: 30_000 };
  it('grows by the factor and stops at the cap, with the same jitter', () => {
    expect([0, 1, 2, 10].map((n) => backoffDelay(n, () => 0, follow))).toEqual([2000, 3000, 4500, 30_000]);
    expect(backoffDelay(1, () => 1, follow)).toBe(2250);
  });
});
