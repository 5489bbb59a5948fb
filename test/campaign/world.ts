/**
 * The campaigns' world (test/unit/commands/sandbox-world.ts) on a scaled clock.
 * `SkipClock` runs in real time but compresses every sleep (`scale`× faster) and moves "now" on by the part skipped:
 * client and sandbox read the same clock, so creation times, Date headers and the client's send times agree, while
 * the faults that act in real time (a delayed answer, the request timeout) keep their real meaning. The hardening tier
 * uses it too, where its subject is a real timer (hardening/create-timeouts.test.ts) or a rate limit's window
 * (hardening/load.test.ts, started ahead with `offsetMs`).
 */
import type { Clock } from '../../src/lib/time.js';
import { startSandboxWorld, type World as SandboxWorld } from '../unit/commands/sandbox-world.js';

export interface SkipClockOptions {
  /** How many times shorter a sleep is in real time (default 20). */
  scale?: number;
  /** Where "now" starts, ahead of the real clock by this much (default 0): a rate limit's window ending when chosen. */
  offsetMs?: number;
  /**
   * Sleepers at the same time (default false: each adds its skipped part, so parallel sleepers speed time up, as the
   * campaigns' many runs do). True: a sleep moves "now" on to its own end and never past it, so two clients sleeping
   * side by side see the time one of them would.
   */
  sharedSleeps?: boolean;
}

export class SkipClock implements Clock {
  private skipped: number;
  private readonly scale: number;
  private readonly sharedSleeps: boolean;
  /** `new SkipClock(5)` is `{ scale: 5 }`. */
  constructor(options: SkipClockOptions | number = {}) {
    const {
      scale = 20,
      offsetMs = 0,
      sharedSleeps = false,
    } = typeof options === 'number' ? { scale: options } : options;
    this.scale = scale;
    this.skipped = offsetMs;
    this.sharedSleeps = sharedSleeps;
  }
  now(): number {
    return Date.now() + this.skipped;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const real = Math.max(0, ms) / this.scale;
    const until = this.now() + Math.max(0, ms);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        if (this.sharedSleeps) this.skipped = Math.max(this.skipped, until - Date.now());
        else this.skipped += Math.max(0, ms) - real;
        resolve();
      }, real);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * Time that runs `scale`× faster than the real clock, for everyone alike: a sleep of ms takes ms/scale real, and so
 * does any real delay (a held request, a timeout) in virtual terms × scale. Unlike SkipClock's default, parallel sleepers do not
 * speed it up further, so a run's reconciliation horizon lasts the same real time however many runs overlap.
 */
class ScaledClock implements Clock {
  private readonly start = Date.now();
  constructor(private readonly scale = 20) {}
  now(): number {
    return this.start + (Date.now() - this.start) * this.scale;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms) / this.scale,
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export type World = SandboxWorld<Clock>;

export async function startWorld(
  options: { scale?: number; scaled?: boolean; dialects?: string[]; clockSkewMs?: number } = {},
): Promise<World> {
  const clock = options.scaled ? new ScaledClock(options.scale) : new SkipClock(options.scale);
  return startSandboxWorld({ clock, dialects: options.dialects ?? [], clockSkewMs: options.clockSkewMs ?? 0 });
}
