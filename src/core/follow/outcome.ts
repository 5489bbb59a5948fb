/** What a finished `wait` means as an exit code (DESIGN.md 2), and how to resume one that did not finish. */
import type { Task } from '../../api/schemas.js';
import { ExitCode } from '../../errors.js';
import type { ExitCodeValue } from '../../errors.js';
import type { FollowReason } from './follow.js';
import { failedItemCount } from './progress.js';

export interface WaitOutcomeOptions {
  /** `--allow-item-failures`: a completed task with failed items counts as success (default false). */
  allowItemFailures?: boolean;
  reason: FollowReason;
}

/**
 * 130 interrupted and 124 timed out come first: the wait itself did not finish, and the resume hint matters more than
 * a partial verdict. Otherwise 10 if any task failed, 11 if a completed task has failed items (unless allowed), else 0.
 * Tasks not yet terminal (`--any`, `--until processing`) count as success; unknown item counts count as none failed.
 */
export function waitExitCode(tasks: readonly Task[], options: WaitOutcomeOptions): ExitCodeValue {
  if (options.reason === 'interrupted') return ExitCode.interrupted;
  if (options.reason === 'timeout') return ExitCode.timeout;
  if (tasks.some((task) => task.status === 'failed')) return ExitCode.taskFailed;
  if (
    !options.allowItemFailures &&
    tasks.some((task) => task.status === 'completed' && (failedItemCount(task) ?? 0) > 0)
  ) {
    return ExitCode.itemsFailed;
  }
  return ExitCode.ok;
}

/** The command that resumes waiting: `taskctl wait 1 2 3` (extra flags such as `--any` appended as given). */
export function resumeHint(ids: readonly number[], flags: readonly string[] = []): string {
  return ['taskctl', 'wait', ...ids.map(String), ...flags].join(' ');
}

/** The Ctrl-C / timeout line: `still running: taskctl wait 1 2 3`. */
export function stillRunningMessage(ids: readonly number[], flags: readonly string[] = []): string {
  return `still running: ${resumeHint(ids, flags)}`;
}
