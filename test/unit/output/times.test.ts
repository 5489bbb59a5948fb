import { describe, expect, it } from 'vitest';
import { parseTimestamp, relativeTime, relativeTimestamp } from '../../../src/output/times.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('relativeTime', () => {
  it('reads like kubectl AGE with "ago"', () => {
    expect(relativeTime(NOW - 2000, NOW)).toBe('just now');
    expect(relativeTime(NOW - 45_000, NOW)).toBe('45s ago');
    expect(relativeTime(NOW - 3 * 60_000 - 59_000, NOW)).toBe('3m ago');
    expect(relativeTime(NOW - 2 * 3_600_000, NOW)).toBe('2h ago');
    expect(relativeTime(NOW - 5 * 86_400_000, NOW)).toBe('5d ago');
    expect(relativeTime(NOW + 3 * 60_000, NOW)).toBe('in 3m');
  });

  it('turns ISO timestamps into ages and leaves other text alone', () => {
    expect(relativeTimestamp('2025-01-15T11:56:59.123Z', NOW)).toBe('3m ago');
    expect(relativeTimestamp('2025-01-15T13:57:00+02:00', NOW)).toBe('3m ago');
    expect(relativeTimestamp('yesterday', NOW)).toBe('yesterday');
    expect(parseTimestamp('2025-13-45T99:00:00Z')).toBeUndefined();
    expect(parseTimestamp('1700000000')).toBeUndefined();
  });
});
