import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../src/lib/timestamp.js';
import { relativeTime, relativeTimestamp } from '../../../src/output/times.js';
import { T0 } from '../../clock.js';

describe('relativeTime', () => {
  it('reads like kubectl AGE with "ago"', () => {
    expect(relativeTime(T0 - 2000, T0)).toBe('just now');
    expect(relativeTime(T0 - 45_000, T0)).toBe('45s ago');
    expect(relativeTime(T0 - 3 * 60_000 - 59_000, T0)).toBe('3m ago');
    expect(relativeTime(T0 - 2 * 3_600_000, T0)).toBe('2h ago');
    expect(relativeTime(T0 - 5 * 86_400_000, T0)).toBe('5d ago');
    expect(relativeTime(T0 + 3 * 60_000, T0)).toBe('in 3m');
  });

  it('turns ISO timestamps into ages and leaves other text alone', () => {
    expect(relativeTimestamp('2025-01-15T11:56:59.123Z', T0)).toBe('3m ago');
    expect(relativeTimestamp('2025-01-15T13:57:00+02:00', T0)).toBe('3m ago');
    expect(relativeTimestamp('yesterday', T0)).toBe('yesterday');
    expect(parseTimestamp('2025-13-45T99:00:00Z')).toBeUndefined();
    expect(parseTimestamp('1700000000')).toBeUndefined();
  });
});
