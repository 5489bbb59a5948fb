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

/** The command that resumes waiting: `taskctl wait 1 2 3` (extra flags such as `--any` appended as given). */
function resumeHint(ids: readonly number[], flags: readonly string[] = []): string {
  return ['taskctl', 'wait', ...ids.map(String), ...flags].join(' ');
}

/** The Ctrl-C / timeout line: `still running: taskctl wait 1 2 3`. */
export function stillRunningMessage(ids: readonly number[], flags: readonly string[] = []): string {
  return `still running: ${resumeHint(ids, flags)}`;
}
