import { UsageError } from '../errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;

/** Parses `500ms`, `30s`, `5m`, `1h` or plain seconds (`90`, `1.5`) into milliseconds. */
export function parseDuration(text: string, flag = 'duration'): number {
  const match = DURATION.exec(text.trim());
  if (!match) {
    throw new UsageError(
      `invalid ${flag} "${text}"`,
      'Use a number with a unit: 500ms, 30s, 5m, 1h (plain numbers are seconds).',
    );
  }
  const unit = (match[2] ?? 's') as keyof typeof UNIT_MS; // DURATION admits only these units
  const ms = Number(match[1]) * UNIT_MS[unit];
  if (!Number.isFinite(ms) || ms > 365 * 24 * 3_600_000) {
    throw new UsageError(`${flag} "${text}" is too large`, 'Use at most a year.');
  }
  return Math.round(ms);
}

/** A duration that must be above zero (a zero timeout would mean "no timeout" to undici: a dead host hangs forever). */
export function parsePositiveDuration(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms <= 0) throw new UsageError(`${flag} must be above 0 (got "${text}")`, 'Use e.g. 30s.');
  return ms;
}
