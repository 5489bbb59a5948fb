/**
 * An HTTP date (a `Date` header, a `Retry-After` date) as epoch ms, NaN when it is none. HTTP dates are GMT in each of
 * their three forms (IMF-fixdate, RFC 850, asctime); asctime names no zone, and `Date.parse` would read it in this
 * machine's time zone, hours away from the service's clock west or east of Greenwich.
 */
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** A zone the text names itself; without one, the text is GMT. */
const ZONE = /(?:\b(?:GMT|UTC|UT)\b|[+-]\d{2}:?\d{2}$|\dZ$)/i;

export function parseHttpDate(text: string): number {
  const trimmed = text.trim();
  // Every form has a day or month name: this refuses "-5", "1e3" and the like, which Date.parse takes for years.
  if (!/[a-z]/i.test(trimmed)) return Number.NaN;
  const asctime = ASCTIME.exec(trimmed);
  if (asctime) {
    const [, monthName = '', day, hour, minute, second, year] = asctime;
    const month = MONTHS.indexOf(monthName.toLowerCase());
    const at = Date.UTC(Number(year), month, Number(day), Number(hour), Number(minute), Number(second));
    // Date.UTC rolls "Nov 31" over into December: a day the month lacks is no date.
    return month >= 0 && new Date(at).getUTCDate() === Number(day) ? at : Number.NaN;
  }
  return Date.parse(ZONE.test(trimmed) ? trimmed : `${trimmed} GMT`);
}
