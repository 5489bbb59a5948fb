/** Injected time, so polling, backoff and rate limiting are tested with a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Calls `fire` after `ms` unless cancelled first (the function it returns), without keeping the process alive: for a
   * notice about a step still under way (a request with no answer yet), never for a step of the work. Optional: a clock
   * without it gives no such notices.
   */
  after?: (ms: number, fire: () => void) => () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted(); // a throw here rejects the promise with the signal's reason
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's reason, as Node's APIs do
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  after: (ms, fire) => {
    const timer = setTimeout(fire, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
