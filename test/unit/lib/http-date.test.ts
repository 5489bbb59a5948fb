/** HTTP dates (Date, Retry-After) in their three forms, always read as GMT whatever this machine's time zone. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../../src/lib/http-date.js';

const SUNDAY = Date.UTC(1994, 10, 6, 8, 49, 37);
const zone = process.env.TZ;

afterEach(() => {
  // Node reads TZ again whenever it is assigned; put back whatever the run had.
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('parseHttpDate', () => {
  it.each([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['RFC 850', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime', 'Sun Nov  6 08:49:37 1994'],
    ['asctime, two-digit day', 'Sun Nov 06 08:49:37 1994'],
  ])('%s is GMT west of Greenwich too', (_form, text) => {
    process.env.TZ = 'America/Los_Angeles';
    expect(new Date(0).getTimezoneOffset()).not.toBe(0); // the zone took effect, so a local reading would differ
    expect(parseHttpDate(text)).toBe(SUNDAY);
  });

  it.each(['', 'soon', 'Sun Nov 31 08:49:37 1994', '-5', '1e3'])('%j is no date (NaN)', (text) => {
    expect(parseHttpDate(text)).toBeNaN();
  });
});
