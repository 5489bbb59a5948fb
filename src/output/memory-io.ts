/** In-memory IO for tests: captures stdout/stderr writes and feeds stdin, with chosen TTY flags (like gh's iostreams.Test). */
import type { IO, OutputStream } from './io.js';

export interface MemoryOutputStream extends OutputStream {
  readonly chunks: string[];
  /** Everything written so far. */
  text: () => string;
}

export interface MemoryIOOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  columns?: number | undefined;
  /** Stdin content: one string, or chunks delivered one by one. Default: empty. */
  stdin?: string | readonly string[];
}

export interface MemoryIO {
  io: IO;
  stdout: MemoryOutputStream;
  stderr: MemoryOutputStream;
}

export function createMemoryStream(isTTY = false, columns?: number): MemoryOutputStream {
  const chunks: string[] = [];
  return {
    chunks,
    isTTY,
    ...(columns === undefined ? {} : { columns }),
    write(chunk: string) {
      chunks.push(chunk);
      return true;
    },
    text: () => chunks.join(''),
  };
}

export function createMemoryIO(options: MemoryIOOptions = {}): MemoryIO {
  const stdout = createMemoryStream(options.stdoutTTY ?? false, options.columns);
  const stderr = createMemoryStream(options.stderrTTY ?? false, options.columns);
  const input =
    options.stdin === undefined ? [] : typeof options.stdin === 'string' ? [options.stdin] : [...options.stdin];
  const stdin = {
    isTTY: options.stdinTTY ?? false,
    async *[Symbol.asyncIterator]() {
      // One chunk per turn of the event loop, as a real stream delivers them.
      for (const chunk of input) yield await Promise.resolve(chunk);
    },
  };
  return { io: { stdout, stderr, stdin }, stdout, stderr };
}
