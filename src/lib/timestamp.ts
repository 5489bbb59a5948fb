/**
 * A service's timestamp (`created_at`, `completed_at`…) read as an instant and the resolution it shows
 * (core/server-time.ts uses both); one rule for every reader: a date the calendar has, a time to the minute or finer,
 * and a zone. A date alone (`list --since 2025-01-15`) is read by the same calendar rule (`midnightUtc`).
 */

/**
 * Epoch ms of an ISO 8601 timestamp as `parseTimestampWithResolution` reads it; undefined for anything else, a time
 * without a zone included (never guessed as this machine's local time, nor as UTC).
 */
export function parseTimestamp(text: string | null | undefined): number | undefined {
  return text === null || text === undefined ? undefined : parseTimestampWithResolution(text)?.ms;
}

/** Resolution assumed until a timestamp shows a finer one. */
export const UNKNOWN_RESOLUTION_MS = 1000;

export interface ParsedTimestamp {
  /** Epoch ms (a finer fraction is truncated to the millisecond). */
  ms: number;
  /** The resolution this text shows at least: 60,000 without seconds, 1000 without a non-zero fraction, else 10^(3 - digits to the last non-zero one), at least 1. */
  resolutionMs: number;
}

/** The resolution of a time written to the minute (`12:00Z`): it says nothing finer. */
const MINUTE_MS = 60_000;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * Midnight UTC of a day the calendar has (month 1–12, a day the month has: no 30 February read as 2 March); undefined
 * for any other.
 */
function calendarDay(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1) return undefined;
  const at = Date.UTC(year, month - 1, day);
  const read = new Date(at);
  // Date.UTC also takes years 0–99 as 1900–1999: the year read back must be the one written.
  return read.getUTCDate() === day && read.getUTCFullYear() === year ? at : undefined;
}

/** A calendar date alone (`2025-01-15`) as its midnight UTC; undefined for anything else, or a day the month lacks. */
export function midnightUtc(text: string): number | undefined {
  const match = /^(\d{4})-(\d\d)-(\d\d)$/.exec(text);
  return match ? calendarDay(Number(match[1]), Number(match[2]), Number(match[3])) : undefined;
}

/**
 * An ISO 8601 timestamp in the forms servers use: whole seconds, milliseconds, microseconds (or nanoseconds), `Z` or a
 * numeric offset (`+00:00`, `+0200`), and the minute alone (`2025-01-15T12:00Z`, as people type it). Undefined for
 * anything else (such a task is never judged by its time).
 */
export function parseTimestampWithResolution(text: string): ParsedTimestamp | undefined {
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zulu, sign, oh = '0', om = '0'] = match;
  const [hour, minute, second] = [Number(h), Number(mi), Number(s ?? '0')];
  const day = calendarDay(Number(y), Number(mo), Number(d));
  if (day === undefined || hour > 23 || minute > 59 || second > 60) return undefined;
  let ms = day + ((hour * 60 + minute) * 60 + second) * 1000 + Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  if (!zulu) ms -= (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const lastNonZero = fraction.replace(/0+$/, '').length;
  const shown = lastNonZero === 0 ? UNKNOWN_RESOLUTION_MS : Math.max(1, 10 ** (3 - lastNonZero));
  return Number.isFinite(ms) ? { ms, resolutionMs: s === undefined ? MINUTE_MS : shown } : undefined;
}
