/**
 * What happens when stdout fails. By default a reader that went away (`taskctl list | head -1`) ends the run quietly,
 * as SIGPIPE ends a C tool, and any other write error (a full disk) ends it with one line and exit 1.
 *
 * A command whose exit code is known before it prints (`wait`'s outcome) settles it first (`settleOutcome`), so the
 * reader going away ends the run with that code rather than 0.
 *
 * A command with side effects (create) holds the output instead: the process is not ended under it, so the create in
 * flight finishes and the command itself names on stderr what it created and exits non-zero. The hold count lives on
 * the stream under a global symbol, because boot (dist/boot.cjs) and the commands (dist/taskctl.cjs) are two bundles.
 */
import type { OutputStream } from './io.js';

const HOLDS = Symbol.for('taskctl.stdout.holds');
/** The outcome a command settled on before its last output (`wait`'s 10, say), kept on the stream like the holds. */
const OUTCOME = Symbol.for('taskctl.stdout.outcome');

interface ErrorSource {
  on: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) => unknown;
  off: (event: 'error', listener: (error: NodeJS.ErrnoException) => void) => unknown;
}

type Holdable = OutputStream & Partial<ErrorSource> & { [HOLDS]?: number; [OUTCOME]?: number };

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

/** Installed once by boot on process.stdout. `exit` ends the process with a code. */
export function guardStdout(
  stdout: NodeJS.WriteStream,
  stderr: { write: (text: string) => unknown },
  exit: (code: number) => void,
): void {
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    // A holder is finishing a side effect and reports the loss itself.
    if (((stdout as Holdable)[HOLDS] ?? 0) > 0) return;
    if (error.code === 'EPIPE') {
      exit((stdout as Holdable)[OUTCOME] ?? (typeof process.exitCode === 'number' ? process.exitCode : 0));
      return;
    }
    stderr.write(`error: cannot write the output: ${error.message}\n`);
    exit(1);
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
