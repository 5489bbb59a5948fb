/**
 * `watch`'s stall line (docs/behaviour.md#spinners-and-progress): at a terminal, a stall of the service is one live
 * line on stderr, as `wait`'s live block says it (display.ts, the one wording): `! waiting for the service's answer
 * (12s)…` counting up, then `! polling, last answer 40s ago (giving up in 1m20s)` with the reason under it, gone when
 * the service answers again. Watch's records are a log: they are written above that line, never under it. Elsewhere,
 * and with `-q`, there is no line: the follow's warnings say it (`elsewhere`).
 */
import type { Output } from '../capabilities.js';
import type { Clock } from '../../lib/time.js';
import type { Progress } from '../../output/progress.js';
import { FollowDisplay } from './display.js';
import type { TaskChange } from './follow.js';
import type { OutageState } from './outage.js';

export interface StallLine {
  /** Drawn from here on (watch without ids: once the task list was read, its spinner gone). */
  start: () => void;
  /** Writes a record (stdout) with the line out of the way. */
  write: (write: () => void) => void;
  /** The follow's hooks. */
  hooks: {
    onRoundStart: () => void;
    onPoll: (change: TaskChange) => void;
    onTransientError: (error: Error) => void;
    onRound: () => void;
    onOutage: (state: OutageState) => void;
  };
  /** Removes the line (the end, Ctrl-C): before the last words are printed. */
  stop: () => void;
}

/**
 * The stall line of `printer`'s stderr. `now`: drawn from the start (else from `start()`); `elsewhere`: what says an
 * outage state where no line is drawn (off a terminal, `-q`, before `start()`).
 */
export async function stallLine(
  printer: Output['printer'],
  clock: Pick<Clock, 'now'>,
  options: { now: boolean; elsewhere: (state: OutageState) => void },
): Promise<StallLine> {
  const made: Progress | undefined = printer.quiet ? undefined : await printer.progress();
  const progress = made?.mode === 'live' ? made : undefined;
  let display: FollowDisplay | undefined;
  /** Whether the round under way failed: a round that did not is an answer, even one of no task (a listing page). */
  let failed = false;
  const start = () => {
    if (progress !== undefined) display ??= new FollowDisplay({ progress, clock, ids: [], stallOnly: true });
  };
  if (options.now) start();
  return {
    start,
    write: (write) => (progress === undefined ? write() : progress.interject(write)),
    hooks: {
      onRoundStart: () => {
        failed = false;
        display?.roundStarted();
      },
      onPoll: (change) => display?.poll(change),
      onTransientError: (error) => {
        failed = true;
        display?.unanswered(error.message);
      },
      onRound: () => {
        if (!failed) display?.heard();
        display?.round();
      },
      onOutage: (state) => {
        if (display?.outage(state) !== true) options.elsewhere(state);
      },
    },
    stop: () => made?.stop(),
  };
}
