/**
 * The one fake clock of the tests, in every tier (test/README.md#time-in-tests). Time moves only by the test: `sleep`
 * records its delay and, in auto mode (the default), advances `now` and resolves at once (for sequential code: a
 * command, a poll loop); with `auto: false` sleepers wait until the test drains them with `runUntilIdle()` (for
 * concurrent code), which is also how a test proves that nothing else was scheduled. Never real time. The tiers that
 * run against real processes start it at `Date.now()` (`new FakeClock(Date.now())`) where a real server's time must
 * agree with it.
 */
import type { Clock } from '../src/lib/time.js';

/** The one fixed instant of the tests: 2025-01-15T12:00:00Z. */
export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

export interface FakeClockOptions {
  /** Where time starts; default T0. */
  start?: number;
  /** Sleeps advance time and resolve at once (default true); false: they wait for `runUntilIdle()`. */
  auto?: boolean;
  /** Each reading of `now` moves time on by this much (default 0): work of its own that outlasts a short deadline. */
  readMs?: number;
}

interface Timer {
  at: number;
  resolve: () => void;
  seq: number;
}

export class FakeClock implements Clock {
  nowMs: number;
  /** Every delay asked of `sleep`, in order. */
  readonly sleeps: number[] = [];
  readonly #auto: boolean;
  readonly #readMs: number;
  #timers: Timer[] = [];
  #seq = 0;
  /** `after`'s callbacks (notices about a step under way): fired only by `tick`, never by sleeps or `runUntilIdle`. */
  #notices: Array<{ at: number; fire: () => void }> = [];

  /** `new FakeClock()` starts at T0 in auto mode; a number is the start. */
  constructor(options: FakeClockOptions | number = {}) {
    const { start = T0, auto = true, readMs = 0 } = typeof options === 'number' ? { start: options } : options;
    this.nowMs = start;
    this.#auto = auto;
    this.#readMs = readMs;
  }

  now(): number {
    this.nowMs += this.#readMs;
    return this.nowMs;
  }

  /** Moves time on by `ms` without firing timers (a slow step between two reads). */
  advance(ms: number): void {
    this.nowMs += Math.max(0, ms);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted(); // a throw here rejects the promise with the signal's reason
      this.sleeps.push(ms);
      if (this.#auto) {
        this.advance(ms);
        resolve();
        return;
      }
      const onAbort = () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's reason, as systemClock does
        reject(signal?.reason);
      };
      // Woken, it lets go of the signal, as systemClock does: a run's many sleeps on one signal never pile up listeners.
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const timer: Timer = { at: this.nowMs + Math.max(0, ms), resolve: wake, seq: this.#seq++ };
      this.#timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A notice's timer (Clock.after): fired when `tick` moves time past it, unless cancelled first. */
  after(ms: number, fire: () => void): () => void {
    const notice = { at: this.nowMs + Math.max(0, ms), fire };
    this.#notices.push(notice);
    return () => {
      this.#notices = this.#notices.filter((n) => n !== notice);
    };
  }

  /**
   * Moves time on by `ms` and fires the notice timers (`after`) due by then, in time order: a step held under way (a
   * request a gate holds) for that long. Sleepers are not woken.
   */
  tick(ms: number): void {
    const end = this.nowMs + Math.max(0, ms);
    for (;;) {
      const next = this.#notices.filter((n) => n.at <= end).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.#notices = this.#notices.filter((n) => n !== next);
      this.nowMs = Math.max(this.nowMs, next.at);
      next.fire();
    }
    this.nowMs = end;
  }

  /** Sleepers not yet woken (always 0 in auto mode). */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  /**
   * Lets promise chains settle, then fires timers in time order until nothing is scheduled: after it, whatever did not
   * happen will not happen on this clock.
   */
  async runUntilIdle(maxSteps = 100_000): Promise<void> {
    for (let step = 0; step < maxSteps; step++) {
      await settle();
      if (this.#timers.length === 0) return;
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const timer = this.#timers.shift()!;
      this.nowMs = Math.max(this.nowMs, timer.at);
      timer.resolve();
    }
    throw new Error(`runUntilIdle: still ${this.#timers.length} timers after ${maxSteps} steps`);
  }
}

/** Lets pending promise callbacks and I/O callbacks already due run: one turn of the event loop, no time passes. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `clock` seen through a Ctrl-C: before each sleep, `press(ms, now)` decides whether to abort `controller` (the run's
 * signal) first, so an interruption lands at a chosen point of virtual time.
 */
export function ctrlCWhen(
  clock: Clock,
  controller: AbortController,
  press: (ms: number, now: number) => boolean,
): Clock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) => {
      if (press(ms, clock.now())) controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' }));
      return clock.sleep(ms, signal);
    },
  };
}
