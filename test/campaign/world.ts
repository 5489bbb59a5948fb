/**
 * The campaigns' world (test/unit/commands/sandbox-world.ts) on a scaled clock.
 * `SkipClock` runs in real time but compresses every sleep (`scale`× faster) and moves "now" on by the part skipped:
 * client and sandbox read the same clock, so creation times, Date headers and the client's send times agree, while
 * the faults that act in real time (a delayed answer, the request timeout) keep their real meaning.
 */
import type { Clock } from '../../src/lib/time.js';
import { startSandboxWorld, type World as SandboxWorld } from '../unit/commands/sandbox-world.js';

export class SkipClock implements Clock {
  private skipped = 0;
  constructor(private readonly scale = 20) {}
  now(): number {
    return Date.now() + this.skipped;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const real = Math.max(0, ms) / this.scale;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        this.skipped += Math.max(0, ms) - real;
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
 * does any real delay (a held request, a timeout) in virtual terms × scale. Unlike SkipClock, parallel sleepers do not
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
