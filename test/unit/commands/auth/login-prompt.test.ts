/**
 * `auth login`'s hidden key prompt, in process on a memory terminal: the end of the input (Ctrl-D, or a terminal
 * whose input ends) before Enter is the person's decision, as at the cost confirmation: exit 13, said calmly, nothing
 * saved. Ctrl-C stays an interrupt (130). Nothing is sent in either case.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASE_URL, FakeClock, mockApi, runTaskctl, T0, type MockApi } from '../run-in-process.js';

let home: string;
let api: MockApi;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-login-prompt-'));
  api = mockApi();
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** A terminal's input, holding the keys typed (and its end, when `ended`), read once the prompt switches raw mode on. */
function terminal(keys: string, ended = false) {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  if (keys) input.write(keys);
  if (ended) input.end();
  return input;
}

async function login(stdin: PassThrough, signal?: AbortSignal) {
  const clock = new FakeClock(T0);
  const result = await runTaskctl(['auth', 'login', '--base-url', BASE_URL], {
    api,
    home,
    clock,
    stdinStream: stdin,
    signal,
    stderrTTY: true,
    columns: 100,
    env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined, NO_COLOR: '1' },
  });
  // Nothing waits on the clock, and nothing was asked of the service.
  expect(clock.pendingTimers).toBe(0);
  expect(api.calls).toEqual([]);
  expect(existsSync(join(home, 'config', 'config.json'))).toBe(false);
  return result;
}

describe('auth login: the hidden key prompt', () => {
  it.each([
    ['Ctrl-D', terminal('\x04')],
    ['Ctrl-D after part of a key', terminal('sk_part\x04')],
    ['the input ending', terminal('', true)],
  ])('%s: no key given, exit 13 (a decision, not an interrupt), nothing saved', async (_, stdin) => {
    const result = await login(stdin);
    expect(result.stderr).toContain('API key (input hidden): \n');
    expect(result.stderr).toContain('No key given (the input ended): nothing was saved.\n');
    // The next step, with the flags of this run (its --base-url), on a line of its own.
    expect(result.stderr.replace(/\n(?!$)/g, ' ')).toContain(
      'Run `taskctl --base-url https://api.test/api/v1 auth login` again and press Enter after the key, or pipe it in: `echo "$KEY" | taskctl --base-url https://api.test/api/v1 auth login --with-key`.',
    );
    expect(result.stderr).not.toMatch(/error|cancelled|sk_part/);
    expect(result.code).toBe(13);
  });

  it('Ctrl-C: interrupted (130), nothing saved', async () => {
    const result = await login(terminal('sk_part\x03'));
    expect(result.stderr).toContain('cancelled at the key prompt; nothing was saved');
    expect(result.stderr).not.toContain('sk_part');
    expect(result.code).toBe(130);
  });

  it('a stop signal sent to the process while the prompt waits (not typed): interrupted (130), nothing saved', async () => {
    const stdin = terminal('sk_part');
    const controller = new AbortController();
    // The prompt starts reading the terminal (raw mode on, input resumed): the signal arrives then.
    stdin.once('resume', () => controller.abort(Object.assign(new Error('interrupted'), { name: 'AbortError' })));
    const result = await login(stdin, controller.signal);
    expect(result.stderr).toContain('cancelled at the key prompt; nothing was saved');
    expect(result.code).toBe(130);
  });
});
