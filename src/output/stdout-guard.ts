/**
 * What happens when stdout or stderr fails. By default a reader that went away (`taskctl list | head -1`) ends the run
 * quietly, as SIGPIPE ends a C tool, and any other write error (a full disk, a closed descriptor) ends it with one line
 * on the other stream and exit 14 (docs/behaviour.md#exit-codes). stderr failing ends the run the same way: quietly when
 * its reader went away (`2>&1 | head -1`), else exit 14 with its one line on stdout, the last stream that may still work.
 *
 * A command whose exit code is known before it prints (`wait`'s outcome) settles it first (`settleOutcome`), so the
 * reader going away ends the run with that code rather than 0.
 *
 * A command with side effects (create) holds the output instead: the process is not ended under it, so the create in
 * flight finishes and the command itself names on stderr what it created and exits non-zero. The hold count lives on
 * the stream under a global symbol, because boot (dist/boot.cjs) and the commands (dist/taskctl.cjs) are two bundles.
 */
import { ExitCode, systemErrorWords } from '../errors.js';
import type { OutputStream } from './io.js';

const HOLDS = Symbol.for('taskctl.stdout.holds');
/** The outcome a command settled on before its last output (`wait`'s 10, say), kept on the stream like the holds. */
const OUTCOME = Symbol.for('taskctl.stdout.outcome');

interface ErrorSource {
  on: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) => unknown;
  off: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) => unknown;
}

/** The exit code of the signal that stopped the run (129 after SIGHUP), kept on stdout like the holds. */
const STOPPED = Symbol.for('taskctl.stdout.stopped');

type Holdable = OutputStream &
  Partial<ErrorSource> & { [HOLDS]?: number; [OUTCOME]?: number; [STOPPED]?: number | undefined };

/**
 * Records that a signal stopped the run, with its exit code (130, 143, 129). After SIGHUP the terminal is gone: a
 * write that fails then (the next-step line) is dropped and the run still ends with 129, never 14.
 */
export function noteStopSignal(stream: OutputStream, code: number): void {
  (stream as Holdable)[STOPPED] = code;
}

/**
 * Records the exit code a command has settled on, so that a reader going away during the output that follows ends the
 * run with it: `taskctl wait 7 | true` on a failed task stays exit 10, never 0.
 */
export function settleOutcome(stream: OutputStream, code: number): void {
  (stream as Holdable)[OUTCOME] = code;
}

function isErrorSource(stream: Holdable): stream is Holdable & ErrorSource {
  return typeof stream.on === 'function' && typeof stream.off === 'function';
}

/** The exit code of output that could not be written. */
const OUTPUT_FAILED_EXIT = ExitCode.outputFailed;

/** `the disk is full`: a write error in plain words (src/errors.ts's one mapping), for the one-line message. */
function describeWriteError(error: NodeJS.ErrnoException): string {
  return systemErrorWords(error);
}

/** A last-resort line on a stream that may be broken too: never throws. */
function tryWrite(stream: { write: (text: string) => unknown }, text: string): void {
  try {
    stream.write(text);
  } catch {
    // Both streams are gone: the exit code is all that is left.
  }
}

type GuardedStream = NodeJS.WritableStream & { write: (text: string) => unknown } & Partial<ErrorSource>;

/**
 * A pipe on stdout written without blocking queues every write in memory while the reader is slower (`show -o json |
 * jq` held 200 MB of queued output): blocking writes make a slow reader slow the command down instead, as for a C
 * tool. Files and terminals are written synchronously by Node already.
 */
export function blockOnPipe(stream: NodeJS.WriteStream): void {
  const handle = (stream as { _handle?: { setBlocking?: (blocking: boolean) => unknown } })._handle;
  if (!stream.isTTY) handle?.setBlocking?.(true);
}

type WriteSync = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

/**
 * A file on stdout or stderr (`> out.csv`) is written by Node with one writeSync per chunk whose count it ignores: on a
 * disk that fills up, the first write of a chunk is short and succeeds, and the error of the rest is never seen (libuv
 * reports the bytes written), so a cut file ended with exit 0. Written here until the whole chunk is out, the rest's
 * error (ENOSPC, EIO) reaches the stream's error handler like any other: one line and exit 14. Other streams (pipes,
 * terminals) already write whole chunks.
 */
export function writeWhole(stream: NodeJS.WritableStream, write: WriteSync): void {
  const file = stream as NodeJS.WritableStream & {
    _type?: string;
    fd?: number;
    _write?: (chunk: Uint8Array, encoding: string, callback: (error?: Error) => void) => void;
  };
  if (file._type !== 'fs' || typeof file.fd !== 'number' || typeof file._write !== 'function') return;
  const fd = file.fd;
  file._write = (chunk, _encoding, callback) => {
    try {
      for (let offset = 0; offset < chunk.length;) {
        const written = write(fd, chunk, offset, chunk.length - offset);
        // A regular file never takes nothing without an error: a count of 0 would loop forever.
        if (written <= 0) throw Object.assign(new Error('nothing written'), { code: 'EIO' });
        offset += written;
      }
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback();
  };
}

/**
 * Installed once by boot on process.stdout and process.stderr. `exit` ends the process with a code; `hangUp` stops the
 * run as SIGHUP does, for a terminal that hung up (EIO on it: its window closed), which no write error should outrun.
 */
export function guardStdout(
  stdout: GuardedStream,
  stderr: GuardedStream,
  exit: (code: number) => void,
  hangUp: () => void = () => {},
): void {
  let ended = false;
  const end = (code: number) => {
    if (ended) return;
    ended = true;
    exit(code);
  };
  const hungUp = () => (stdout as Holdable)[STOPPED] === ExitCode.hungUp;
  let hangingUp = false;
  /** True when `error` on `stream` is its terminal gone: then the run stops as at SIGHUP (once), never with 14. */
  const terminalGone = (stream: GuardedStream, error: NodeJS.ErrnoException) => {
    if (error.code !== 'EIO' || (stream as { isTTY?: boolean }).isTTY !== true) return false;
    if (!hangingUp) {
      hangingUp = true;
      hangUp();
    }
    return true;
  };
  const held = () => ((stdout as Holdable)[HOLDS] ?? 0) > 0;
  /** A reader gone away ends the run quietly, with the code the command settled on, else the one set, else 0. */
  const readerGone = () => {
    const outcome = (stdout as Holdable)[OUTCOME];
    const stopped = (stdout as Holdable)[STOPPED];
    // A run stopped by SIGTERM settles on 130 like Ctrl-C; the signal's own code is what it exits with.
    const code = outcome === ExitCode.interrupted && stopped !== undefined ? stopped : outcome;
    end(code ?? (typeof process.exitCode === 'number' ? process.exitCode : 0));
  };
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    // After SIGHUP the run ends by itself with 129, and a terminal gone is that hang-up, even under a holder (a create
    // stops as at SIGHUP, naming what it created); any other loss a holder finishing a side effect reports itself.
    if (hungUp() || terminalGone(stdout, error) || held()) return;
    if (error.code === 'EPIPE') {
      readerGone();
      return;
    }
    if (!ended) tryWrite(stderr, `error: cannot write the output (${describeWriteError(error)})\n`);
    end(OUTPUT_FAILED_EXIT);
  });
  stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (hungUp() || terminalGone(stderr, error)) return;
    // The reader of the messages went away (`2>&1 | head -1`): as for stdout's; a create in flight (stdout held)
    // finishes first, its exit code saying how it ended.
    if (error.code === 'EPIPE') {
      if (!held()) readerGone();
      return;
    }
    // Said on stdout only where a person reads it: in a pipe or a file, stdout is data, and exit 14 says it.
    if (!ended && (stdout as { isTTY?: boolean }).isTTY === true)
      tryWrite(stdout, `error: cannot write messages to stderr (${describeWriteError(error)})\n`);
    end(OUTPUT_FAILED_EXIT);
  });
}

export interface OutputHold {
  /** The first write error seen on the stream while held, if any. */
  lost: () => NodeJS.ErrnoException | undefined;
  /** Waits until the writes made so far have succeeded or failed, then returns `lost()`. */
  settle: () => Promise<NodeJS.ErrnoException | undefined>;
  /** Ends the hold; a later error is the default handler's again. */
  release: () => void;
}

/** Holds `stream` (a no-op hold for streams that emit no errors, e.g. in-memory test streams). */
export function holdOutput(stream: OutputStream): OutputHold {
  const target = stream as Holdable;
  let lost: NodeJS.ErrnoException | undefined;
  if (!isErrorSource(target)) {
    return { lost: () => undefined, settle: () => Promise.resolve(undefined), release: () => undefined };
  }
  const onError = (error: NodeJS.ErrnoException) => {
    lost ??= error;
  };
  target.on('error', onError);
  target[HOLDS] = (target[HOLDS] ?? 0) + 1;
  let released = false;
  return {
    lost: () => lost,
    async settle() {
      // An empty write's callback runs after the writes queued before it; errors are emitted on a later tick.
      await new Promise<void>((resolve) => {
        const writable = target as { write: (chunk: string, callback: () => void) => unknown };
        try {
          writable.write('', () => {
            resolve();
          });
        } catch {
          resolve();
        }
      });
      await new Promise<void>((resolve) => setImmediate(resolve));
      return lost;
    },
    release() {
      if (released) return;
      released = true;
      // After a loss the command reports it and owns the exit code: later errors from queued writes stay swallowed.
      if (lost !== undefined) return;
      target[HOLDS] = Math.max(0, (target[HOLDS] ?? 1) - 1);
      target.off('error', onError);
    },
  };
}
