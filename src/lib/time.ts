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
};
