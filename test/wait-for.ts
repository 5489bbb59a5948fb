/**
 * Waiting on an event the test cannot drive with a fake clock (a line a real process prints, a request a loopback
 * server sees, a file a child writes): `probe` is asked again until it returns something other than undefined, null or
 * false, which is returned; past `timeoutMs` the test fails with `describe()`, what it saw instead
 * (test/README.md#time-in-tests). The bound is a failure, never a pause that makes the test pass.
 */
export interface WaitForOptions {
  /** How long the event may take on a loaded machine; default 10 s. */
  timeoutMs?: number;
  /** What the test saw when it gave up (the output so far, the requests seen), for the failure message. */
  describe: () => string | Promise<string>;
  /** Real time between two probes; default 10 ms. A probe that blocks (execFileSync) needs more: it starves an in-process server. */
  everyMs?: number;
}

export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitForOptions,
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() >= deadline) {
      throw new Error(`waited ${timeoutMs} ms in vain; saw: ${await options.describe()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
