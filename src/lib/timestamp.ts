/**
 * A service's timestamp (`created_at`, `completed_at`…) read as an instant and the resolution it shows
 * (core/server-time.ts uses both); one rule for every reader: a date, a time to the second, and a zone.
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
  /** The resolution this text shows at least: 1000 without a non-zero fraction, else 10^(3 - digits to the last non-zero one), at least 1. */
  resolutionMs: number;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/**
 * An ISO 8601 timestamp in the forms servers use: whole seconds, milliseconds, microseconds (or nanoseconds), `Z` or a
 * numeric offset (`+00:00`, `+0200`). Undefined for anything else (such a task is never judged by its time).
 */
export function parseTimestampWithResolution(text: string): ParsedTimestamp | undefined {
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zulu, sign, oh = '0', om = '0'] = match;
  const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  if (!zulu) ms -= (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const lastNonZero = fraction.replace(/0+$/, '').length;
  const resolutionMs = lastNonZero === 0 ? UNKNOWN_RESOLUTION_MS : Math.max(1, 10 ** (3 - lastNonZero));
  return Number.isFinite(ms) ? { ms, resolutionMs } : undefined;
}
