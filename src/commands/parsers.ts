/** Flag-value parsers shared by the commands: a bad value is a usage error (exit 2) naming the flag. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { parseDuration, zeroDurationWords } from '../lib/duration.js';
import { NOT_WHOLE_NUMBER, wholeNumber } from '../lib/whole-number.js';
import { ENDED_TASK_STATUSES, KNOWN_TASK_STATUSES, STATUS_GROUP_NAMES } from '../lib/task-state.js';
import { UsageError } from '../errors.js';
import type { Field } from '../core/api-request.js';
import type { TimeBound } from '../core/list-window.js';
import { midnightUtc, parseTimestamp } from '../lib/timestamp.js';

/** An empty value (an unset shell variable) names no file; resolved, '' would be the current directory. */
function noFile(hint: string): UsageError {
  return new UsageError('an empty argument names no file', `${hint}; is a shell variable unset?`);
}

/**
 * A file a hint may name (`--journal FILE`): absolute, taken from the directory the command runs in, so that the hint
 * (`taskctl resume FILE`, `taskctl wait --job FILE`) names the same file when run from any other.
 */
export function absolutePath(value: string): string {
  if (value === '')
    throw noFile(
      'Name the journal file after --journal, or leave --journal out (the job is kept in the state directory)',
    );
  return resolve(value);
}

/** `-f FILE`, repeatable and comma-separable like `collect`; a value naming no file is refused, never read as stdin. */
export function itemFiles(value: string, previous: string[] | undefined): string[] {
  const files = collect(value, previous);
  if (files.length === (previous?.length ?? 0)) throw noFile('Name a file of items after -f (`-f -` reads stdin)');
  return files;
}

/** A job as given (`resume JOB`, `--job JOB`): an existing journal file by its absolute path (absolutePath), else as typed (an id). */
export function jobArgument(value: string): string {
  return existsSync(value) ? resolve(value) : value;
}

/** A whole number from 1 to `max` (lib/whole-number.ts: digits only, never past 2^53 - 1: another page). */
export function positiveInt(max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = /^\d+$/.test(value) ? Number(value) : 0;
    if (n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
    if (n > max) throw new InvalidArgumentError(`expected at most ${max}.`);
    return n;
  };
}

/** A whole number, 0 or more, by the rule `config set` follows too (lib/whole-number.ts). */
export function nonNegativeInt(value: string): number {
  const n = wholeNumber(value);
  if (n === undefined) throw new InvalidArgumentError(NOT_WHOLE_NUMBER);
  return n;
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

/**
 * `--profile NAME`: an empty value (an unset shell variable) names no profile. Taken as no flag, it would quietly
 * read and change the profile TASKCTL_PROFILE or the default names. (An empty TASKCTL_PROFILE is unset, as an empty
 * variable commonly is: settings.ts.)
 */
export function profileName(value: string): string {
  if (value !== '') return value;
  throw new UsageError(
    'an empty argument names no profile',
    'Name the profile after --profile, or leave --profile out (TASKCTL_PROFILE, else "default"); is a shell variable unset?',
  );
}

/** Durations: `500ms`, `30s`, `5m`, `1h`, `1h30m`, or plain seconds → milliseconds. */
export function duration(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 5m, 1h, 1h30m or plain seconds.');
  }
}

/** A duration with an optional sign (`3s`, `-2.5s`, `+500ms`): the sandbox's `--clock-skew`. */
export function signedDuration(value: string): number {
  const negative = value.trim().startsWith('-');
  const magnitude = duration(value.trim().replace(/^[+-]/, ''));
  return negative ? -magnitude : magnitude;
}

/** A duration above zero (`--outage-tolerance`): 0 would give up before the first answer could come. */
export function positiveDuration(flag: string) {
  return (value: string): number => {
    const ms = duration(value);
    if (ms <= 0) throw new InvalidArgumentError(`${flag} ${zeroDurationWords(value)}, such as 30s or 5m.`);
    return ms;
  };
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
};

/** Sizes: `1MiB`, `256KiB`, `512k`, or plain bytes (binary units: 1 MB = 1 MiB here) → bytes; 1 byte to 1 GiB. */
export function byteSize(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = SIZE_UNITS[(match?.[2] ?? '?').toLowerCase()];
  const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > 1024 ** 3)
    throw new InvalidArgumentError('expected a size such as 1MiB, 256KiB or a number of bytes (at most 1GiB).');
  return bytes;
}

/** A repeatable flag whose values are kept whole (commas included): `sandbox --dialect a --dialect b`. */
export function append(value: string, previous: string[]): string[] {
  return [...previous, value];
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

/** The statuses `--status` accepts: docs/openapi.json's, the words a server may use for a task that ended, and the groups. */
const FILTER_STATUSES: readonly string[] = [
  ...new Set<string>([...KNOWN_TASK_STATUSES, ...ENDED_TASK_STATUSES, ...STATUS_GROUP_NAMES]),
];

/** Words people use for completed tasks, and the filter that asks for them. */
const MEANT: Readonly<Record<string, { what: string; flag: string }>> = {
  complete: { what: 'completed tasks', flag: 'completed' },
  succeeded: { what: 'completed tasks', flag: 'completed' },
  success: { what: 'completed tasks', flag: 'completed' },
};

/**
 * `--status` values, repeatable and comma-separable like `collect`; a status taskctl does not know is refused with the
 * closest known one (a typo would otherwise match nothing and print nothing, exit 0). A server's own status outside
 * the list is filtered from the output instead.
 */
export function taskStatuses(value: string, previous: string[] | undefined): string[] {
  const statuses = collect(value, previous);
  const unknown = statuses.find((status) => !FILTER_STATUSES.includes(status));
  if (unknown !== undefined) {
    // Words people use for a group of statuses: the next step is the flag that asks for it, not a look-alike word.
    const meant = MEANT[unknown.toLowerCase()];
    if (meant !== undefined)
      throw new UsageError(
        `unknown status "${unknown}": tasks are ${FILTER_STATUSES.slice(0, 4).join(', ')} (or another word for ended, or a group: ${STATUS_GROUP_NAMES.join(', ')})`,
        `For ${meant.what}, use --status ${meant.flag}.`,
      );
    // A typo: the word it is near, in one line each (the whole list and the awk recipe are for a word of no typo).
    const near = closest(unknown, FILTER_STATUSES);
    if (near !== undefined)
      throw new UsageError(
        `unknown status "${unknown}"; did you mean "${near}"?`,
        `Use --status ${near} (\`taskctl list --help\` lists every status word).`,
      );
    throw new UsageError(
      `unknown status "${unknown}"; known: ${FILTER_STATUSES.join(', ')}`,
      `For a status of your server's outside this list, filter the output: taskctl list -o tsv | awk -F'\\t' '$3 == "${unknown}"'`,
    );
  }
  return statuses;
}

/** The candidate nearest to `word` by edit distance, when it is near enough to be a typo. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 2)) ? best.candidate : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] ?? 0;
}

let fieldSeq = 0;
/** `taskctl api -f`/`-F` (`typed`): key=value, numbered in command-line order across both flags. */
export const collectField =
  (typed: boolean) =>
  (text: string, previous: Field[] | undefined): Field[] => {
    if (!/^[^=]+=/.test(text)) throw new InvalidArgumentError('expected key=value.');
    return [...(previous ?? []), { typed, text, seq: fieldSeq++ }];
  };

/** `list --since`/`--until`: a duration back from now, an ISO timestamp, or a date (core/list-window.ts). */
export function timeBound(value: string): TimeBound {
  const text = value.trim();
  const at = parseTimestamp(text) ?? midnightUtc(text);
  if (at !== undefined) return () => at;
  try {
    const ago = parseDuration(value);
    return (now) => now - ago;
  } catch {
    throw new InvalidArgumentError(
      'expected a duration such as 30m, 1h, 24h, an ISO time with its zone (2025-01-15T12:00:00Z) or a date (2025-01-15, midnight UTC).',
    );
  }
}
