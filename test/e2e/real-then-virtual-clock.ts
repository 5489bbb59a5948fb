/**
 * The clock of a sandbox that a spawned taskctl and then in-process runs (`world.inProcess(args, { clock })`) talk to:
 * real time until `virtual()`, so the spawned process and the sandbox agree; from then on a sleep moves "now" on at once
 * instead of passing, so a resume's settle schedule or a rate-limit wait costs no real time and the sandbox, reading
 * the same clock, sees that time pass. test/README.md#time-in-tests
 */
import { systemClock, type Clock } from '../../src/lib/time.js';

export class RealThenVirtualClock implements Clock {
  private shiftMs = 0;
  private skipping = false;

  now(): number {
    return Date.now() + this.shiftMs;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.skipping) return systemClock.sleep(ms, signal);
    signal?.throwIfAborted();
    this.shiftMs += Math.max(0, ms);
  }

  /** Moves "now" on by `ms` (e.g. to the start of a rate-limit window). */
  shift(ms: number): void {
    this.shiftMs += ms;
  }

  /** From now on sleeps pass at once. */
  virtual(): void {
    this.skipping = true;
  }
}
