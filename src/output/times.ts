/**
 * Times taskctl makes itself, one format per context: on a terminal as a person reads them (kubectl's AGE):
 * "just now", "45s ago", "3m ago", "2h ago", "5d ago", "in 3m" for a server clock ahead of ours; in scripts and logs as
 * ISO 8601 UTC without milliseconds (`isoSeconds`). The server's own fields are printed as received.
 */

import { parseTimestamp } from '../lib/timestamp.js';

/** 2026-11-21T10:00:00Z: UTC, second precision, sorts and greps well. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const UNITS: ReadonlyArray<readonly [suffix: string, ms: number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** `3m ago` / `in 3m`; under 5 s either way is `just now`. Days are the largest unit (`400d ago`). */
export function relativeTime(ms: number, now: number): string {
  const delta = now - ms;
  const size = Math.abs(delta);
  if (size < 5000) return 'just now';
  const [suffix, unit] = UNITS.find(([, unitMs]) => size >= unitMs) ?? ['s', 1000];
  const amount = `${Math.floor(size / unit)}${suffix}`;
  return delta > 0 ? `${amount} ago` : `in ${amount}`;
}

/** An ISO timestamp as `3m ago`; text that is not a timestamp is returned as it came. */
export function relativeTimestamp(text: string, now: number): string {
  const ms = parseTimestamp(text);
  return ms === undefined ? text : relativeTime(ms, now);
}
