/** Flag-value parsers shared by the commands: a bad value is a usage error (exit 2) naming the flag. */
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../core/duration.js';

export function positiveInt(max?: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new InvalidArgumentError('expected a whole number of at least 1.');
    const n = Number(value);
    if (max !== undefined && n > max) throw new InvalidArgumentError(`expected at most ${max}.`);
    return n;
  };
}

export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError('expected a whole number (0 or more).');
  return Number(value);
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('expected a number above 0.');
  return n;
}

export function port(value: string): number {
  const n = nonNegativeInt(value);
  if (n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return n;
}

/** Durations: `500ms`, `30s`, `5m`, `1h`, or plain seconds → milliseconds. */
export function duration(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 5m, 1h or plain seconds.');
  }
}

/** Repeatable, comma-separable list flags: `--status failed --status pending` = `--status failed,pending`. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}
