/** What a finished `wait` means as an exit code (docs/behaviour.md#exit-codes), and how to resume one that did not finish. */
import type { Task } from '../../api/schemas.js';
import { ExitCode, RateLimitError } from '../../errors.js';
import type { ExitCodeValue } from '../../errors.js';
import { taskPhase, taskSucceeded } from '../../lib/task-state.js';
import type { FollowReason } from './follow.js';

export interface WaitOutcomeOptions {
  /** `--allow-item-failures`: a completed task with items not seen completed counts as success (default false). */
  allowItemFailures?: boolean | undefined;
  reason: FollowReason;
  /** With reason 'outage': the last failure (a 429 makes the outage exit 7; anything else is 8). */
  lastError?: Error | undefined;
}

/**
 * 130 interrupted, 8/7 for a service that stopped answering, and 124 timed out come first: the wait itself did not finish, and the resume hint matters more than
 * a partial verdict. Otherwise 10 if any task ended without completing (`taskPhase` 'ended': failed, cancelled, an
 * unknown status with a finish time...), 11 if a completed task did not succeed (an item not seen completed, or no
 * evidence at all; unless allowed), else 0. Tasks still running (`--any`, `--until processing`) are no failure.
 */
export function waitExitCode(tasks: readonly Task[], options: WaitOutcomeOptions): ExitCodeValue {
  if (options.reason === 'interrupted') return ExitCode.interrupted;
  // The service failed, not the tasks: the exit code follows the last failure (docs/behaviour.md#exit-codes).
  if (options.reason === 'outage')
    return options.lastError instanceof RateLimitError ? ExitCode.rateLimited : ExitCode.unavailable;
  if (options.reason === 'timeout') return ExitCode.timeout;
  if (tasks.some((task) => taskPhase(task) === 'ended')) return ExitCode.taskFailed;
  if (!options.allowItemFailures && tasks.some((task) => taskPhase(task) === 'completed' && !taskSucceeded(task))) {
    return ExitCode.itemsFailed;
  }
  return ExitCode.ok;
}

/** Up to this many ids are listed as they are: easier to read than any short form. */
export const LISTED_IDS = 8;

/**
 * Task ids as a command's arguments that a shell runs and a person can read: a few are listed; past that, a run of
 * consecutive ids is `$(seq 32 131)` where that is shorter, so a 100-task wait ends with `taskctl show $(seq 32 131)`,
 * not five lines of ids.
 */
export function idArgs(ids: readonly number[]): string {
  return idWords(ids).join(' ');
}

/** The words of `idArgs`: each id listed, or a run as one `$(seq A B)`. */
function idWords(ids: readonly number[]): string[] {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  if (sorted.length <= LISTED_IDS) return sorted.map(String);
  const words: string[] = [];
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end + 1 < sorted.length && sorted[end + 1] === (sorted[end] ?? 0) + 1) end++;
    const listed = sorted.slice(start, end + 1).map(String);
    const run = `$(seq ${sorted[start] ?? 0} ${sorted[end] ?? 0})`;
    if (run.length < listed.join(' ').length) words.push(run);
    else words.push(...listed);
    start = end + 1;
  }
  return words;
}

/**
 * True when `idArgs` would still be more than LISTED_IDS words (scattered ids): a hint then names a file of them
 * instead (`taskctl wait - < FILE`; docs/behaviour.md#for-people).
 */
export function tooManyToList(ids: readonly number[]): boolean {
  return idWords(ids).length > LISTED_IDS;
}

/**
 * The command that resumes waiting: `taskctl wait 1 2 3`, or `command` when the ids have a shorter name
 * (`taskctl wait --job FILE`); extra flags such as `--any` appended as given.
 */
export function resumeHint(ids: readonly number[], flags: readonly string[] = [], command?: string): string {
  return [command ?? `taskctl wait ${idArgs(ids)}`, ...flags].join(' ');
}

/**
 * The flags that decide a wait's exit code, as every hint that waits again repeats them (`taskctl wait … --until
 * done`, `taskctl resume … --wait --any`): one list in one order for both.
 */
export function exitCodeFlags(options: { allowItemFailures?: boolean; until?: string; any?: boolean }): string[] {
  return [
    ...(options.allowItemFailures === true ? ['--allow-item-failures'] : []),
    ...(options.until ? [`--until ${options.until}`] : []),
    ...(options.any === true ? ['--any'] : []),
  ];
}

/** What a wait stopped before its first answer says in place of `still running`: it knows no task's state. */
export const BEFORE_FIRST_ANSWER = 'interrupted before the first answer';

/** The Ctrl-C / timeout line: `still running: taskctl wait 1 2 3`. */
export function stillRunningMessage(ids: readonly number[], flags: readonly string[] = [], command?: string): string {
  return `still running: ${resumeHint(ids, flags, command)}`;
}
