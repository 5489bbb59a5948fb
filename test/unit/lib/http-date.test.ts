/** HTTP dates (Date, Retry-After) in their three forms, always read as GMT whatever this machine's time zone. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/lib/http-date.js';
// T0 is Wednesday 2025-01-15 12:00:00 GMT.
import { T0 } from '../../clock.js';
const zone = process.env.TZ;

afterEach(() => {
  // Node reads TZ again whenever it is assigned; put back whatever the run had.
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('parseHttpDate', () => {
  it.each([
    ['IMF-fixdate', 'Wed, 15 Jan 2025 12:00:00 GMT', T0],
    ['RFC 850', 'Wednesday, 15-Jan-25 12:00:00 GMT', T0],
    ['asctime', 'Wed Jan 15 12:00:00 2025', T0],
    ['asctime, a one-digit day', 'Mon Jan  6 12:00:00 2025', T0 - 9 * 86_400_000],
  ])('%s is GMT west of Greenwich too', (_form, text, at) => {
    process.env.TZ = 'America/Los_Angeles';
    expect(new Date(T0).getTimezoneOffset()).not.toBe(0); // the zone took effect, so a local reading would differ
    expect(parseHttpDate(text)).toBe(at);
  });

  it.each(['', 'soon', 'Sat Feb 30 12:00:00 2025', '-5', '1e3'])('%j is no date (NaN)', (text) => {
    expect(parseHttpDate(text)).toBeNaN();
  });
});
