/** The one reading of a service's timestamps: an instant, and the resolution it shows. */
import { describe, expect, it } from 'vitest';
import { parseTimestamp, parseTimestampWithResolution } from '../../../src/lib/timestamp.js';
// T0 is 2025-01-15T12:00:00.000Z.
import { T0 } from '../../clock.js';

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
  // Without seconds (ISO 8601 allows it; `list --since 2025-01-15T12:00Z`): the minute is all it shows.
  ['2025-01-15T12:00Z', T0, 60_000],
  ['2025-01-15T14:00+02:00', T0, 60_000],
  ['2025-01-15T07:30-0430', T0, 60_000],
  // The last day of February in a leap year is a day: 321 days and 12 hours before T0.
  ['2024-02-29T00:00:00Z', T0 - (321 * 24 + 12) * 3_600_000, 1000],
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
  // A day the month lacks is refused, never read as a day of the next month (2 March).
  '2025-02-30T00:00:00Z',
  '2025-02-29T12:00Z',
  '2025-04-31T12:00:00+02:00',
  // Without seconds, a zone is still needed; a fraction needs its seconds.
  '2025-01-15T12:00',
  '2025-01-15T12:00.5Z',
  '2025-01-15T12Z',
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
