/** Injected time, so polling, backoff and rate limiting are tested with a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
