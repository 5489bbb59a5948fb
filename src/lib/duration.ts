/**
 * Durations, both ways: typed by people (`parseDuration`: `500ms`, `30s`, `5m`, `1h`, `1h30m`, plain seconds) and written for
 * them (`formatDuration`: `0.3s`, `1m30s`, `2h5m` in messages and traces; `clockTime`: `0:07`, `1:02:03`, a running
 * clock in the live progress block, fixed-width per magnitude). One module for every length of time taskctl reads or
 * prints.
 */
import { UsageError } from '../errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** A plain number (seconds), or parts of number and unit, largest unit first, each once: `90`, `5m`, `1h30m`, `2m5.5s`. */
const PLAIN = /^\d+(?:\.\d+)?$/;
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
const UNIT_ORDER = ['h', 'm', 's', 'ms'] as const;

/** The milliseconds `text` names, or undefined when it is not a duration (the sum may still be too large). */
function durationMs(text: string): number | undefined {
  if (PLAIN.test(text)) return Number(text) * UNIT_MS.s;
  let total = 0;
  let rank = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const part = PART.exec(text);
    if (part === null) return undefined;
    const unit = part[2] as (typeof UNIT_ORDER)[number]; // PART admits only these units
    if (UNIT_ORDER.indexOf(unit) <= rank) return undefined;
    rank = UNIT_ORDER.indexOf(unit);
    total += Number(part[1]) * UNIT_MS[unit];
  }
  return text === '' ? undefined : total;
}

/** The longest duration taskctl reads (a year): past it, `parseDuration` refuses the value (exit 2). */
export const LONGEST_DURATION_MS = 365 * 24 * 3_600_000;

/**
 * Parses `500ms`, `30s`, `5m`, `1h`, what `formatDuration` prints (`1h30m`, `2m5s`, `1.5s`) or plain seconds (`90`,
 * `1.5`) into milliseconds: a duration a message quotes can be typed back into a flag.
 */
export function parseDuration(text: string, flag = 'duration'): number {
  const ms = durationMs(text.trim());
  if (ms === undefined) {
    throw new UsageError(
      `invalid ${flag} "${text}"`,
      'Use a number with a unit: 500ms, 30s, 5m, 1h, 1h30m (plain numbers are seconds).',
    );
  }
  if (!Number.isFinite(ms) || ms > LONGEST_DURATION_MS) {
    throw new UsageError(`${flag} "${text}" is too large`, 'Use at most a year.');
  }
  return Math.round(ms);
}

/** A duration that must be above zero (a zero timeout would mean "no timeout" to undici: a dead host hangs forever). */
export function parsePositiveDuration(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms <= 0) throw new UsageError(`${flag} ${zeroDurationWords(text)} (got "${text}")`, 'Use e.g. 30s.');
  return ms;
}

/**
 * Why a duration `text` that came to 0 ms is refused where one above zero is needed: durations are whole
 * milliseconds, so a value above 0 (`0.0001s`) may still come to 0, and "must be above 0" would not be true of it.
 */
export function zeroDurationWords(text: string): string {
  return /^[^-]*[1-9]/.test(text) ? 'must be 1ms or more' : 'must be above 0';
}

/**
 * `0.3s`, `1.5s` (one decimal under 10 s), `42s`, `1m30s`, `2h5m`; under a tenth of a second, which one decimal
 * would write as `0s` or `0.1s`, in milliseconds (`1ms`, `40ms`): `--request-timeout 1ms` is never written as `0s`.
 */
export function formatDuration(ms: number): string {
  const safe = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (safe > 0 && safe < 100) return `${Math.round(safe)}ms`;
  if (safe < 10_000) return `${Number((safe / 1000).toFixed(1))}s`;
  const totalSeconds = Math.round(safe / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h) return `${h}h${m ? `${m}m` : ''}`;
  if (m) return `${m}m${s ? `${s}s` : ''}`;
  return `${s}s`;
}

/** 0:07, 12:34, 1:02:03. */
export function clockTime(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
