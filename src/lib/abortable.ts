/**
 * A wait that a signal ends: Ctrl-C or SIGTERM while a read waits on a producer that never ends (stdin of a running
 * command, a FIFO) must end the run at once (docs/behaviour.md#exit-codes), not when the producer closes its end.
 */

/**
 * Destroys `source` as soon as `signal` aborts, which ends a read waiting on it (a Node stream's pending read then
 * settles); returns the function that stops listening, to call once the reads are over. One listener for the whole
 * read: a listener or a race per chunk raised the peak memory of a 10,000,000-line stdin by half or more. The reader
 * checks `signal.aborted` after each read and throws its reason.
 */
export function destroyOnAbort(source: unknown, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const abort = () => destroyStream(source);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}

/** Destroys `stream` when it can be (a Node stream: its handle closed, so it keeps no process alive); else nothing. */
function destroyStream(stream: unknown): void {
  const destroy = (stream as { destroy?: unknown } | undefined)?.destroy;
  if (typeof destroy === 'function') (destroy as () => void).call(stream);
}

/**
 * Hands each chunk of `stream` to `take` until the stream ends (true) or `take` returns false or throws (the rest is
 * not read, and the source is closed: false). When `signal` aborts, the stream is destroyed and the signal's reason thrown.
 */
export async function eachChunk(
  stream: AsyncIterable<Buffer | string>,
  signal: AbortSignal | undefined,
  take: (chunk: Buffer | string) => boolean,
): Promise<boolean> {
  const iterator = stream[Symbol.asyncIterator]();
  const stopListening = destroyOnAbort(stream, signal);
  try {
    for (;;) {
      let step: IteratorResult<Buffer | string>;
      try {
        step = await iterator.next();
      } catch (error) {
        throw signal?.aborted ? (signal.reason as Error) : error;
      }
      if (signal?.aborted) throw signal.reason as Error;
      if (step.done) return true;
      let more = false;
      try {
        more = take(step.value);
      } finally {
        // The rest is not read: the source is told so (a generator runs its clean-up, a Node stream is destroyed).
        if (!more) await iterator.return?.();
      }
      if (!more) return false;
    }
  } finally {
    stopListening();
  }
}

/**
 * Every byte of `stream` until its end, or undefined as soon as more than `maxBytes` arrived: the rest is neither read
 * nor waited for (`/dev/zero`, a producer that never ends). What one chunk holds past the bound is the most read beyond
 * it. `signal` ends a read that waits: the stream is destroyed and the signal's reason thrown.
 */
export async function readBounded(
  stream: AsyncIterable<Buffer | string>,
  signal: AbortSignal | undefined,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  const ended = await eachChunk(stream, signal, (value) => {
    const chunk = typeof value === 'string' ? Buffer.from(value) : value;
    size += chunk.length;
    chunks.push(chunk);
    return size <= maxBytes;
  });
  return ended ? Buffer.concat(chunks) : undefined;
}
