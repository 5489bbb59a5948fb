/**
 * A service that stops answering while `wait`/`watch` follow tasks (docs/behaviour.md#exit-codes: 124 only when the service
 * answered): the outage state the follow engine reports to displays, and the error it ends with when no good answer
 * came for the outage tolerance, or the deadline came while the last read failed.
 */
import type { Task } from '../../api/schemas.js';
import { RateLimitError, UnavailableError } from '../../errors.js';
import { formatDuration, parsePositiveDuration } from '../../lib/duration.js';
import { neutralise } from '../../lib/sanitize.js';
import { formatCount } from '../../output/numbers.js';

/** How long wait/watch go on without a good answer before giving up with 8 (or 7): `--outage-tolerance`. */
export const DEFAULT_OUTAGE_TOLERANCE_MS = 2 * 60_000;

/**
 * Whole seconds (the follow starts a few ms after the command's clock): `1s`, not `988ms` or `3.6s`; every time an
 * outage is said in (these lines, the live block's, core/follow/display.ts).
 */
export function seconds(ms: number): string {
  return formatDuration(ms < 500 ? ms : Math.round(ms / 1000) * 1000);
}

/** `--outage-tolerance` (ms) > the profile's `outage-tolerance` > 2 min. A bad setting is exit 2 naming it. */
export function resolveOutageTolerance(flagMs: number | undefined, setting: { value: string } | undefined): number {
  if (flagMs !== undefined) return flagMs;
  return setting === undefined ? DEFAULT_OUTAGE_TOLERANCE_MS : parsePositiveDuration(setting.value, 'outage-tolerance');
}

/** What displays read while the service fails: one value per failed round, and one when it answers again. */
export interface OutageState {
  /** True while the last read failed and the follow polls again; false once the service answered again. */
  ongoing: boolean;
  /** Clock time of the last good answer (the follow's start when none came yet). */
  lastGoodAt: number;
  /** True when the service has answered at least once during this follow. */
  answered: boolean;
  /** The last failure (the one that ended the outage's last round). */
  lastError: Error;
  /** Failed rounds in a row. */
  failures: number;
  /** Clock time the follow gives up if nothing answers before: the outage tolerance after the first failed read. */
  giveUpAt: number;
}

/** The plain stderr line of a failed round: what failed, since when, and when the follow gives up. */
function outageLine(state: OutageState, now: number): string {
  const since = state.answered
    ? `no good answer for ${seconds(now - state.lastGoodAt)}`
    : `no good answer yet (${seconds(now - state.lastGoodAt)})`;
  return `${state.lastError.message}; ${since}, still polling (giving up in ${seconds(Math.max(0, state.giveUpAt - now))} without one)`;
}

/** The plain stderr line when the service answers again after failed rounds. */
function recoveredLine(state: OutageState, now: number): string {
  return `the service answers again (after ${seconds(now - state.lastGoodAt)} without a good answer)`;
}

/** What `wait` and `watch` say on stderr of an outage's round that polls again, or of the service answering again. */
export function outageWarning(state: OutageState, now: number): string {
  return state.ongoing ? outageLine(state, now) : recoveredLine(state, now);
}

/** `task 7 processing (3/10 items)`, `task 8 not seen`: the last known state of each followed task, in order. */
export function lastKnownStates(ids: readonly number[], tasks: readonly Task[], max = 20): string {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const parts = ids.slice(0, max).map((id) => {
    const task = byId.get(id);
    if (!task) return `task ${id} not seen`;
    const done = task.completed_items ?? undefined;
    const counts =
      done === undefined
        ? ''
        : ` (${formatCount(done + (task.failed_items ?? 0))}/${formatCount(task.total_items)} items)`;
    return `task ${id} ${neutralise(task.status)}${counts}`;
  });
  if (ids.length > max) parts.push(`${formatCount(ids.length - max)} more`);
  return parts.join(', ');
}

/**
 * The error a follow ends with after an outage: the last failure's exit code (7 after a 429, else 8), its message, how
 * long the service failed, and the last known state of each task. `lastError` undefined: the deadline came before any
 * answer (every read was cut by it).
 */
export function outageError(options: {
  lastError: Error | undefined;
  /** Why the follow stopped trying: the tolerance ran out, or the deadline came while the last read failed. */
  why: 'tolerance' | 'deadline';
  toleranceMs: number;
  /** Since the last good answer (or the start), ms. */
  silentMs: number;
  answered: boolean;
  states: string;
  /** The command that resumes the follow (`taskctl wait 7 8`), when there is one. */
  resume?: string | undefined;
  /** The `--timeout` asked, named when it ran out before any answer (not the time left when the follow began). */
  timeoutMs?: number | undefined;
}): UnavailableError | RateLimitError {
  if (options.why === 'deadline' && options.lastError === undefined) return unansweredError(options);
  const { lastError } = options;
  const silent = seconds(options.silentMs);
  // The tolerance counts from the first failed read, the silence from the last good answer (a sparse poll's quiet time
  // before that read included): the two are said as such, or a silence past the tolerance reads as a wrong count.
  const stop =
    options.why === 'tolerance'
      ? `the service failed every read for the --outage-tolerance of ${seconds(options.toleranceMs)} (counted from its first failed read; ${options.answered ? `no good answer for ${silent}` : `no good answer at all in ${silent}`})`
      : `${options.answered ? `no good answer from the service for ${silent}` : `no good answer from the service in ${silent}`}, and the deadline came while it was failing`;
  const last = lastError === undefined ? '' : `; last error: ${lastError.message}`;
  const message = `${stop}${last}; last known: ${options.states}`;
  const more = options.why === 'tolerance' ? ', or allow a longer outage with --outage-tolerance' : '';
  const hint = `The service is failing, not the tasks${options.resume ? `: try again later with \`${options.resume}\`` : ''}${more}.`;
  const error =
    lastError instanceof RateLimitError ? new RateLimitError(message, hint) : new UnavailableError(message, hint);
  error.cause = lastError;
  return error;
}

/**
 * The deadline came while every read sent was still in flight: the service was slow, not seen failing, and the tasks'
 * states are not known (exit 8, not 124: 124 says the service answered; docs/behaviour.md#exit-codes).
 */
function unansweredError(options: { states: string; resume?: string | undefined; timeoutMs?: number | undefined }) {
  const deadline =
    options.timeoutMs === undefined || options.timeoutMs <= 0
      ? 'the deadline came'
      : `--timeout ${formatDuration(options.timeoutMs)} ran out`;
  const message = `the service had not answered the first read when ${deadline}; last known: ${options.states}`;
  const next = options.resume === undefined ? '' : `: \`${options.resume}\``;
  return new UnavailableError(message, `The tasks' states are not known: wait again with a longer --timeout${next}.`);
}
