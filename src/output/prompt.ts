/** Terminal prompts on stderr. Callers check `ctx.interactive` first: nothing here is ever reached in a pipe or CI. */
import { emitKeypressEvents } from 'node:readline';
import type { InputStream, OutputStream } from './io.js';
import { lineBudget, wrapText } from './width.js';

interface RawInput extends InputStream {
  setRawMode?: (mode: boolean) => unknown;
  on: (
    event: 'keypress',
    listener: (text: string | undefined, key: { name?: string; ctrl?: boolean; sequence?: string }) => void,
  ) => unknown;
  /** The input ended (a terminal's input closed, a test's stream ended). */
  once: (event: 'end', listener: () => void) => unknown;
  removeListener: (event: 'keypress' | 'end', listener: (...args: never[]) => void) => unknown;
  resume: () => unknown;
  pause: () => unknown;
}

/**
 * Ctrl-Z in raw mode (the terminal sends no signal then): stopped as the terminal would stop it, the way readline
 * does, with the terminal's modes given back while stopped; `continued` once the shell's `fg` brings the run back.
 */
function suspend(input: RawInput, continued: () => void): void {
  if (process.platform === 'win32') return; // no job control: the key is ignored
  process.once('SIGCONT', () => {
    input.setRawMode?.(true);
    continued();
  });
  input.setRawMode?.(false);
  process.kill(process.pid, 'SIGTSTP');
}

/**
 * What the hidden prompt got: the line typed (Enter); `closed`: the input ended first (Ctrl-D, or the terminal's input
 * ended); `interrupted`: Ctrl-C, or `signal` aborted (SIGINT/SIGTERM sent to the process). As `confirm`, it never
 * throws for the user's own way out: the caller says what each one means.
 */
export type HiddenAnswer = { kind: 'entered'; value: string } | { kind: 'closed' } | { kind: 'interrupted' };

/** Reads one line without echoing it (for API keys). Ctrl-Z suspends, then asks again. */
export function promptHidden(
  stdin: InputStream,
  stderr: OutputStream,
  question: string,
  options: { signal?: AbortSignal } = {},
): Promise<HiddenAnswer> {
  const input = stdin as RawInput;
  const { signal } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'interrupted' });
  return new Promise((resolve) => {
    let value = '';
    emitKeypressEvents(input as unknown as NodeJS.ReadableStream);
    input.setRawMode?.(true);
    input.resume();
    stderr.write(question);
    const finish = (answer: HiddenAnswer) => {
      input.removeListener('keypress', onKey);
      input.removeListener('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      input.setRawMode?.(false);
      input.pause();
      stderr.write('\n');
      resolve(answer);
    };
    // What was typed before the input ended is no key: nothing was confirmed with Enter.
    const onEnd = () => finish({ kind: 'closed' });
    const onAbort = () => finish({ kind: 'interrupted' });
    const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean }) => {
      if (key.ctrl && key.name === 'c') {
        finish({ kind: 'interrupted' });
        return;
      }
      if (key.ctrl && key.name === 'd') {
        finish({ kind: 'closed' });
        return;
      }
      if (key.ctrl && key.name === 'z') {
        // What was typed before stays; the question is asked again on the line after the shell's `fg`.
        suspend(input, () => stderr.write(question));
        return;
      }
      if (key.name === 'return' || key.name === 'enter') {
        finish({ kind: 'entered', value });
        return;
      }
      if (key.name === 'backspace') {
        value = value.slice(0, -1);
        return;
      }
      if (text && !key.ctrl) value += text;
    };
    input.on('keypress', onKey);
    input.once('end', onEnd);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The process's streams as they are; in-memory ones (tests) wrapped into the Node streams readline needs. */
async function asNodeStreams(
  stdin: InputStream,
  stderr: OutputStream,
): Promise<{ input: NodeJS.ReadableStream; output: NodeJS.WritableStream }> {
  const { Readable, Writable } = await import('node:stream');
  const isEmitter = (value: object): boolean => typeof (value as { on?: unknown }).on === 'function';
  const input = isEmitter(stdin) ? (stdin as unknown as NodeJS.ReadableStream) : Readable.from(stdin);
  const output = isEmitter(stderr)
    ? (stderr as unknown as NodeJS.WritableStream)
    : new Writable({
        write(chunk: Buffer, _encoding, done) {
          stderr.write(chunk.toString());
          done();
        },
      });
  return { input, output };
}

/** `no`: answered no (or just Enter); `closed`: the input ended (Ctrl-D) before an answer; `interrupted`: Ctrl-C. */
export type ConfirmAnswer = 'yes' | 'no' | 'closed' | 'interrupted';

/**
 * Asks a yes/no question; Enter means `defaultYes`. Never throws for the user's own way out: the caller says what
 * each answer means (a create says "nothing was created" in every one). An abort of `signal` (SIGINT/SIGTERM sent to
 * the process, not typed at the prompt) is `interrupted` too.
 */
export async function confirm(
  stdin: InputStream,
  stderr: OutputStream,
  question: string,
  options: { defaultYes?: boolean; signal?: AbortSignal } = {},
): Promise<ConfirmAnswer> {
  const { createInterface } = await import('node:readline/promises');
  const defaultYes = options.defaultYes === true;
  const rl = createInterface({ ...(await asNodeStreams(stdin, stderr)), terminal: true });
  let interrupted = options.signal?.aborted === true;
  const onSigint = () => {
    interrupted = true;
    stderr.write('\n');
    rl.close();
  };
  const onAbort = () => {
    interrupted = true;
    rl.close();
  };
  // Ctrl-Z: readline stops the process itself and, on `fg`, redraws the question but pauses its input; resumed here,
  // or nothing would keep the run alive and it would end as if answered (exit 0, nothing said).
  const onContinue = () => rl.resume();
  rl.on('SIGINT', onSigint);
  rl.on('SIGCONT', onContinue);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (interrupted) return 'interrupted';
    const closed = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
    const answer = await Promise.race([
      rl.question(`${wrapped(`${question} ${defaultYes ? '[Y/n]' : '[y/N]'}`, stderr)} `).catch(() => undefined),
      closed,
    ]);
    if (answer === undefined) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the SIGINT and abort handlers set it meanwhile
      const ended = interrupted ? 'interrupted' : 'closed';
      if (ended === 'closed') stderr.write('\n');
      return ended;
    }
    const normalised = answer.trim().toLowerCase();
    const yes = normalised === '' ? defaultYes : normalised === 'y' || normalised === 'yes';
    return yes ? 'yes' : 'no';
  } finally {
    rl.removeListener('SIGINT', onSigint);
    rl.removeListener('SIGCONT', onContinue);
    options.signal?.removeEventListener('abort', onAbort);
    rl.close();
  }
}

/** On a terminal the question wraps at spaces within its width (a cut inside `8,157` reads as two numbers). */
function wrapped(question: string, stderr: OutputStream): string {
  if (stderr.isTTY !== true) return question;
  // One column left for the space the answer is typed after.
  return wrapText(question, lineBudget(stderr.columns) - 1);
}
