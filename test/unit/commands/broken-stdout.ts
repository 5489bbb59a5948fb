/**
 * A stdout that fails like a closed pipe (EPIPE) from the `okWrites + 1`-th write on, as Node's streams do (the error
 * on the next tick). `inWrite`: the error within the failing write itself, so a guard that ends the run at it sees the
 * outcome settled before that write, not one set in the same turn after it.
 */
import { EventEmitter } from 'node:events';
import type { Clock } from '../../../src/lib/time.js';
import { main } from '../../../src/main.js';
import { createMemoryStream } from '../../../src/output/memory-io.js';
import { guardStdout } from '../../../src/output/stdout-guard.js';

export function brokenStdout(okWrites: number, { inWrite = false }: { inWrite?: boolean } = {}) {
  const memory = createMemoryStream();
  const emitter = new EventEmitter();
  let writes = 0;
  return Object.assign(emitter, {
    isTTY: false,
    text: () => memory.text(),
    write(chunk: string, callback?: (error?: Error) => void) {
      if (chunk === '') {
        setImmediate(() => callback?.());
        return true;
      }
      writes += 1;
      if (writes > okWrites) {
        const error = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
        if (inWrite) emitter.emit('error', error);
        else process.nextTick(() => emitter.emit('error', error));
        return false;
      }
      memory.write(chunk);
      return true;
    },
  });
}

/** Runs `taskctl argv` in process with that stdout, stdin a terminal that sends nothing: its exit code and stderr. */
export async function runWithBrokenStdout(
  argv: string[],
  options: { okWrites: number; env: Record<string, string>; clock: Clock },
): Promise<{ code: number; stderr: string }> {
  const stderr = createMemoryStream();
  const code = await main(argv, {
    io: {
      stdout: brokenStdout(options.okWrites),
      stderr,
      stdin: {
        isTTY: true,
        async *[Symbol.asyncIterator]() {
          /* a terminal that sends nothing */
        },
      },
    },
    env: options.env,
    clock: options.clock,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
  return { code, stderr: stderr.text() };
}

/**
 * Runs `taskctl argv` in process with a stdout whose reader goes away after `okWrites` writes, under the bin's guard
 * (output/stdout-guard.ts), stdin a pipe that sends nothing: the codes the guard ended the run with (what a shell's
 * `set -o pipefail` sees of `taskctl … | head -1`) and stderr.
 */
export async function runWithReaderGone(
  argv: string[],
  options: { okWrites: number; inWrite?: boolean; env: Record<string, string | undefined>; clock: Clock },
): Promise<{ exits: number[]; stderr: string }> {
  const stdout = brokenStdout(options.okWrites, { inWrite: options.inWrite ?? false });
  const stderr = Object.assign(new EventEmitter(), createMemoryStream());
  const exits: number[] = [];
  guardStdout(stdout as never, stderr as never, (code) => exits.push(code));
  await main(argv, {
    io: {
      stdout,
      stderr,
      stdin: {
        isTTY: false,
        async *[Symbol.asyncIterator]() {
          /* nothing */
        },
      },
    },
    env: options.env,
    clock: options.clock,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
  return { exits, stderr: stderr.text() };
}
