import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatCount, formatNumber } from '../../../src/output/numbers.js';

describe('formatCount', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("writes any number as en-US's toLocaleString does", () => {
    for (const n of [0, -0, 1, 999, 1000, -1000, 65536, 1234567, -9876543210, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2])
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    for (const n of [1.5, 1234.5678, -0.25, NaN, Infinity, -Infinity])
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
    fc.assert(
      fc.property(fc.double(), (n) => {
        expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
  });

  it('formats whole numbers without Intl (its set-up costs ~12 ms of start-up, e.g. for `balance`)', () => {
    const toLocaleString = vi.spyOn(Number.prototype, 'toLocaleString');
    expect([formatCount(1234567), formatCount(-1000), formatNumber(10000, true)]).toEqual([
      '1,234,567',
      '-1,000',
      '10,000',
    ]);
    expect(toLocaleString).not.toHaveBeenCalled();
  });
});
