/**
 * The one status colour map: every command that shows a task or item status colours it here, so
 * `list`, `show`, `watch`, `wait`'s live block and `webhook listen` agree.
 * green = completed, red = ended without completing, yellow = working, dim = not started; anything else plain.
 */
import type { ChalkInstance } from 'chalk';

export type StatusMeaning = 'completed' | 'ended' | 'working' | 'waiting';

const BY_NAME: Readonly<Record<string, StatusMeaning>> = {
  completed: 'completed',
  failed: 'ended',
  cancelled: 'ended',
  canceled: 'ended',
  expired: 'ended',
  aborted: 'ended',
  error: 'ended',
  errored: 'ended',
  rejected: 'ended',
  processing: 'working',
  running: 'working',
  in_progress: 'working',
  pending: 'waiting',
  queued: 'waiting',
  waiting: 'waiting',
  scheduled: 'waiting',
};

/** What a status word means for its colour; undefined for words nobody defined (shown plain). */
export function statusMeaning(status: string): StatusMeaning | undefined {
  return Object.hasOwn(BY_NAME, status.toLowerCase()) ? BY_NAME[status.toLowerCase()] : undefined;
}

/**
 * `text` (default: `status`) in the colour of `meaning` (default: the status word's). Callers that judged the task
 * (an unknown word with a finish time has ended) pass their judgement as `meaning`.
 */
export function paintStatus(
  chalk: ChalkInstance,
  status: string,
  text: string = status,
  meaning: StatusMeaning | undefined = statusMeaning(status),
): string {
  switch (meaning) {
    case 'completed':
      return chalk.green(text);
    case 'ended':
      return chalk.red(text);
    case 'working':
      return chalk.yellow(text);
    case 'waiting':
      return chalk.dim(text);
    default:
      return text;
  }
}
