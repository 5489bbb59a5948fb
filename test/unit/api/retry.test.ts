import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shouldRetry } from '../../../src/api/client.js';
import {
  BACKOFF_CAP_MS,
  backoffDelay,
  errorCode,
  formatSeconds,
  parseRetryAfter,
  retryAfterMs,
} from '../../../src/api/retry.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

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
    ['0', 0],
    ['5', 5000],
    [' 7 ', 7000],
    ['1.5', 1500],
    ['60', 60_000],
    ['61', 60_000],
    ['86400', 60_000],
  ])('delta-seconds %j → %i ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('reads an HTTP-date relative to now', () => {
    expect(parseRetryAfter(new Date(NOW + 10_000).toUTCString(), NOW)).toBe(10_000);
    expect(parseRetryAfter(new Date(NOW - 10_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW + 3_600_000).toUTCString(), NOW)).toBe(60_000);
  });

  it('measures an HTTP-date against the response Date header (server clock skew)', () => {
    const serverNow = NOW - 3_600_000; // server clock one hour behind
    const value = new Date(serverNow + 20_000).toUTCString();
    expect(parseRetryAfter(value, NOW, new Date(serverNow).toUTCString())).toBe(20_000);
  });

  it('keeps the unclamped value available for "too long to wait" decisions', () => {
    expect(retryAfterMs('3600', NOW)).toBe(3_600_000);
  });

  it.each([undefined, null, '', 'soon', '-5', '1e3', '0x10', 'Infinity', 'NaN', '5 seconds', 'Mon, 99 Foo 2025'])(
    'ignores garbage %j',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
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
          const ms = parseRetryAfter(value, NOW);
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

describe('formatSeconds', () => {
  it('formats short waits with a decimal', () => {
    expect(formatSeconds(1234)).toBe('1.2s');
    expect(formatSeconds(500)).toBe('0.5s');
    expect(formatSeconds(42_000)).toBe('42s');
  });
});

describe('shouldRetry: the one retry rule', () => {
  const failures = [
    'never-sent',
    'transport',
    'unknown-transport',
    'deadline',
    'tls',
    'too-large',
    'ambiguous',
    'rate-limited',
    'rate-limited-too-long',
    'server-fault',
    'http-408',
    'unreadable',
    'refused',
  ] as const;

  it('a create is sent again only when it provably never left, or after a 429', () => {
    expect(failures.filter((f) => shouldRetry('POST', f))).toEqual(['never-sent', 'rate-limited']);
  });

  it('a GET is retried on blips (network, 5xx, 408, 429), never on answers that would come back the same', () => {
    expect(failures.filter((f) => shouldRetry('GET', f))).toEqual([
      'never-sent',
      'transport',
      'rate-limited',
      'server-fault',
      'http-408',
    ]);
  });
});
