/**
 * Ctrl-Z at a prompt suspends the process as at any terminal program, and after `fg` the question is asked again and
 * answered: readline's own suspend pauses its input when the process continues, and nothing else would keep the run
 * alive (it ended with exit 0, nothing said). The hidden key prompt suspends too: Ctrl-Z is never part of the key.
 * Driven in process: the terminal's keys written to the input, the stop signal intercepted, SIGCONT emitted.
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { confirm, promptHidden } from '../../../src/output/prompt.js';
import { settle } from '../../clock.js';

const CTRL_Z = '\x1a';

/** A terminal's input: a stream readline reads keys from, with raw mode recorded. */
function terminalInput() {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode(mode: boolean) {
      modes.push(mode);
      return input;
    },
  });
  return { input, modes };
}

function terminalOutput() {
  let text = '';
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { output, text: () => text };
}

let stops: Array<string | number | undefined>;
let continueListeners: NodeJS.SignalsListener[];
beforeEach(() => {
  stops = [];
  continueListeners = process.listeners('SIGCONT');
  // The stop signal the process would send itself (SIGTSTP): recorded, not sent, or it would stop the test runner.
  vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
    expect(pid).toBe(process.pid);
    stops.push(signal);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const listener of process.listeners('SIGCONT'))
    if (!continueListeners.includes(listener)) process.removeListener('SIGCONT', listener);
});

/** The keys reach the prompt, and what it does with them is done. */
async function type(input: PassThrough, keys: string): Promise<void> {
  input.write(keys);
  await settle();
}

describe.skipIf(process.platform === 'win32')('Ctrl-Z at a prompt', () => {
  it('[y/N]: suspends; after fg the question is there again and the answer counts', async () => {
    const { input } = terminalInput();
    const { output, text } = terminalOutput();
    const answer = confirm(input, output, 'Create 2 tasks?');
    await settle();
    await type(input, CTRL_Z);
    expect(stops).toEqual(['SIGTSTP']);
    process.emit('SIGCONT');
    await settle();
    expect(input.isPaused()).toBe(false);
    await type(input, 'y\r');
    expect(await answer).toBe('yes');
    expect(text().split('Create 2 tasks? [y/N]').length).toBeGreaterThan(2);
  });

  it('the hidden key prompt: suspends, raw mode off while stopped and on again after, Ctrl-Z not in the key', async () => {
    const { input, modes } = terminalInput();
    const { output, text } = terminalOutput();
    const key = promptHidden(input, output, 'API key: ');
    await type(input, 'sk_');
    await type(input, CTRL_Z);
    expect(stops).toEqual(['SIGTSTP']);
    expect(modes).toEqual([true, false]);
    process.emit('SIGCONT');
    expect(modes).toEqual([true, false, true]);
    await type(input, 'abc\r');
    expect(await key).toEqual({ kind: 'entered', value: 'sk_abc' });
    expect(text().split('API key: ').length).toBe(3);
  });
});
