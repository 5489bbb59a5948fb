import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { formatDuration, parseDuration } from '../../../src/lib/duration.js';

describe('durations read back as printed', () => {
  it('reads every duration taskctl prints back to what it printed (a quoted duration works in a flag)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 * 24 * 3_600_000 }), (ms) => {
        const printed = formatDuration(ms);
        expect(formatDuration(parseDuration(printed, '--reuse-window'))).toBe(printed);
      }),
    );
    // Under an hour, whole seconds print whole: they come back exactly.
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 3599 }), (s) => {
        expect(parseDuration(formatDuration(s * 1000))).toBe(s * 1000);
      }),
    );
  });

  it('reads compound values, each unit once and largest first', () => {
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('2m5s')).toBe(125_000);
    expect(parseDuration('1h0m30s')).toBe(3_630_000);
    expect(parseDuration('1m1.5s')).toBe(61_500);
    for (const text of ['30m1h', '1m1m', '1h 30m', '1h30', 'm', '1hm', '1h-30m'])
      expect(() => parseDuration(text, '--timeout'), text).toThrow(UsageError);
  });
});
