/**
 * `auth login` with stdin not a terminal (a script): the key is its first line. Nothing there (`</dev/null`, `<&-`,
 * `echo "" |`) is no key given, said as such with the way to give one, exit 2; nothing is sent or saved.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BASE_URL, mockApi, runTaskctl, type MockApi } from '../run-in-process.js';

let home: string;
let api: MockApi;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-login-stdin-'));
  api = mockApi();
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

it.each([
  ['an empty stdin', ''],
  ['an empty first line', '\n'],
  ['a blank first line', '   \r\nsk_second_line\n'],
])('%s: exit 2 naming --with-key and --api-key-file, nothing sent or saved', async (_, input) => {
  const result = await runTaskctl(['auth', 'login', '--base-url', BASE_URL], {
    api,
    home,
    stdin: input,
    stdinTTY: false,
    env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined },
  });
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
  const [message, hint, ...rest] = result.stderr.split('\n');
  expect(message).toBe('error: no API key on stdin (its first line is empty); nothing was saved');
  // The run's account flags are repeated in the command (output/hint-globals.ts).
  expect(hint).toBe(
    `Pipe the key in on the first line: \`echo "$KEY" | taskctl --base-url ${BASE_URL} auth login --with-key\`, or use --api-key-file PATH.`,
  );
  expect(rest).toEqual(['']);
  expect(api.calls).toEqual([]);
  expect(existsSync(join(home, 'config', 'config.json'))).toBe(false);
});

it('a service that cannot be reached: the error says nothing was saved, with its own exit code and hint', async () => {
  api.reply(
    'GET',
    '/balance',
    503,
    { success: false, error: { code: 'internal_error', message: 'down' } },
    { times: 4 },
  );
  const result = await runTaskctl(['auth', 'login', '--base-url', BASE_URL, '--with-key'], {
    api,
    home,
    stdin: 'sk_live_unreached\n',
    stdinTTY: false,
    env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined },
  });
  expect(result.code, result.stderr).toBe(8);
  const [message, hint] = result.stderr.split('\n');
  expect(message).toMatch(/^error: reading the balance: .*; nothing was saved$/);
  expect(hint).not.toBe('');
  expect(existsSync(join(home, 'config', 'config.json'))).toBe(false);
});
