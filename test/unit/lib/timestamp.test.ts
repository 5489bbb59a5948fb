/** The one reading of a service's timestamps: an instant, and the resolution it shows. */
import { describe, expect, it } from 'vitest';
import { parseTimestamp, parseTimestampWithResolution } from '../../../src/lib/timestamp.js';
// T0 is 2025-01-15T12:00:00.000Z.
import { T0 } from '../clock.js';

const READ: Array<[string, number, number]> = [
  ['2025-01-15T12:00:00Z', T0, 1000],
  ['2025-01-15T12:00:00.900Z', T0 + 900, 100],
  ['2025-01-15T12:00:00.123Z', T0 + 123, 1],
  ['2025-01-15T12:00:00.120Z', T0 + 120, 10],
  ['2025-01-15T12:00:00.000Z', T0, 1000],
  ['2025-01-15T12:00:00.123456Z', T0 + 123, 1],
  ['2025-01-15T12:00:00.000001Z', T0, 1],
  ['2025-01-15T12:00:00+00:00', T0, 1000],
  ['2025-01-15T12:00:00.250+00:00', T0 + 250, 10],
  ['2025-01-15T14:00:00+02:00', T0, 1000],
  ['2025-01-15T07:30:00-0430', T0, 1000],
  ['2025-01-15 12:00:00Z', T0, 1000],
];
/** No zone (which would be a guess: this machine's, or UTC), no time, out of range. */
const REFUSED = [
  '',
  'yesterday',
  '2025-01-15',
  '2025-01-15T12:00:00',
  '2025-01-15T12:00:00.500',
  '2026-13-25T12:00:00Z',
  '2025-01-15T25:00:00Z',
];

describe('parseTimestampWithResolution', () => {
  it.each(READ)('%s → ms and the resolution it shows', (text, ms, resolutionMs) => {
    expect(parseTimestampWithResolution(text)).toEqual({ ms, resolutionMs });
  });
  it.each(REFUSED)('refuses %j', (text) => {
    expect(parseTimestampWithResolution(text)).toBeUndefined();
  });
});

describe('parseTimestamp: the same rule, the instant alone', () => {
  it.each(READ)('%s → the same instant', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each([...REFUSED, null, undefined])('refuses %j, as the resolution reader does', (text) => {
    // A time without a zone was read as this machine's local time here, and refused there: hours off in one place
    // (watch's status time), no evidence in the other (the same creation).
    expect(parseTimestamp(text)).toBeUndefined();
  });
});
