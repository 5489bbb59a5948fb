/**
 * A wait that a signal ends: Ctrl-C or SIGTERM while a read waits on a producer that never ends (stdin of a running
 * command, a FIFO) must end the run at once (docs/behaviour.md#exit-codes), not when the producer closes its end.
 */

/** What `promise` gives, or the signal's reason as soon as it aborts; `onAbort` then stops what the promise waits on. */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort?: () => void,
): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      promise.catch(() => undefined); // its end no longer matters
      onAbort?.();
      reject(signal.reason as Error);
    };
    if (signal.aborted) {
      abort();
      return;
    }
    signal.addEventListener('abort', abort, { once: true });
    void promise.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', abort);
    });
  });
}

/** Destroys `stream` when it can be (a Node stream: its handle closed, so it keeps no process alive); else nothing. */
export function destroyStream(stream: unknown): void {
  const destroy = (stream as { destroy?: unknown } | undefined)?.destroy;
  if (typeof destroy === 'function') (destroy as () => void).call(stream);
}

/** Every chunk of `stream` as text, read until its end, or until `signal` aborts (the stream is then destroyed). */
export async function readAllText(
  stream: AsyncIterable<Buffer | string>,
  signal: AbortSignal | undefined,
): Promise<string> {
  const iterator = stream[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const step = await untilAborted(iterator.next(), signal, () => {
      destroyStream(stream);
    });
    if (step.done) return text + decoder.decode();
    text += typeof step.value === 'string' ? step.value : decoder.decode(step.value, { stream: true });
  }
}
