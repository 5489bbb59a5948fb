/** Terminal prompts on stderr. Callers check `ctx.interactive` first: nothing here is ever reached in a pipe or CI. */
import { emitKeypressEvents } from 'node:readline';
import type { InputStream, OutputStream } from './io.js';
import { InterruptedError } from '../errors.js';

interface RawInput extends InputStream {
  setRawMode?: (mode: boolean) => unknown;
  on: (
    event: 'keypress',
    listener: (text: string | undefined, key: { name?: string; ctrl?: boolean; sequence?: string }) => void,
  ) => unknown;
  removeListener: (event: 'keypress', listener: (...args: never[]) => void) => unknown;
  resume: () => unknown;
  pause: () => unknown;
}

/** Reads one line without echoing it (for API keys). Ctrl-C → InterruptedError. */
export function promptHidden(stdin: InputStream, stderr: OutputStream, question: string): Promise<string> {
  const input = stdin as RawInput;
  return new Promise((resolve, reject) => {
    let value = '';
    emitKeypressEvents(input as unknown as NodeJS.ReadableStream);
    input.setRawMode?.(true);
    input.resume();
    stderr.write(question);
    const finish = (error?: Error) => {
      input.removeListener('keypress', onKey);
      input.setRawMode?.(false);
      input.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean }) => {
      if (key.ctrl && (key.name === 'c' || key.name === 'd')) {
        finish(new InterruptedError('cancelled'));
        return;
      }
      if (key.name === 'return' || key.name === 'enter') {
        finish();
        return;
      }
      if (key.name === 'backspace') {
        value = value.slice(0, -1);
        return;
      }
      if (text && !key.ctrl) value += text;
    };
    input.on('keypress', onKey);
  });
}

/** Asks a yes/no question; Enter means `defaultYes`. Ctrl-C → InterruptedError. */
export async function confirm(
  stdin: InputStream,
  stderr: OutputStream,
  question: string,
  defaultYes = false,
): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({
    input: stdin as unknown as NodeJS.ReadableStream,
    output: stderr as unknown as NodeJS.WritableStream,
    terminal: true,
  });
  const onSigint = () => rl.close();
  rl.on('SIGINT', onSigint);
  try {
    const closed = new Promise<never>((_, reject) => rl.once('close', () => reject(new InterruptedError('cancelled'))));
    const answer = await Promise.race([rl.question(`${question} ${defaultYes ? '[Y/n]' : '[y/N]'} `), closed]);
    const normalised = answer.trim().toLowerCase();
    return normalised === '' ? defaultYes : normalised === 'y' || normalised === 'yes';
  } finally {
    rl.removeListener('SIGINT', onSigint);
    rl.close();
  }
}
