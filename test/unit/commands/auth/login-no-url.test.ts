/**
 * `auth login` with no service URL anywhere (flag, TASKCTL_BASE_URL, the profile): exit 2 and a hint that, with its
 * placeholder URL filled in, logs in to the profile the run named (output/hint-globals.ts), never the default one.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { API_KEY, BASE_URL, mockApi, runTaskctl, type RunOptions } from '../run-in-process.js';

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-login-no-url-'));
  mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
  const defaultAccount = { 'base-url': 'https://other.test/api/v1', 'api-key': 'sk_default_account_1234' };
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ profiles: { default: defaultAccount } }), {
    mode: 0o600,
  });
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const fresh = { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined };
const run = (argv: string[], options: RunOptions = {}) =>
  runTaskctl(argv, { home, stdin: `${API_KEY}\n`, stdinTTY: false, ...options, env: fresh });
const profiles = () =>
  (JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as { profiles: Record<string, object> })
    .profiles;

it.each([
  ['a key on stdin', ['--profile', 'staging2', 'auth', 'login', '--with-key']],
  ['the key asked for', ['--profile', 'staging2', 'auth', 'login']],
])('%s: the hint names --profile and a placeholder URL; followed, it logs in to that profile', async (_, argv) => {
  const refused = await run(argv);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toBe(
    'error: auth login needs the service URL\n' +
      'Pass it once: `taskctl --profile staging2 auth login --base-url URL`.\n',
  );
  const hint = /`(taskctl [^`]*)`/.exec(refused.stderr)?.[1] ?? '';
  const api = mockApi();
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
  const followed = await run(
    [
      ...hint
        .replace(/\bURL$/, BASE_URL)
        .split(' ')
        .slice(1),
      '--with-key',
    ],
    { api },
  );
  expect(followed.code, followed.stderr).toBe(0);
  expect(followed.stderr).toMatch(/Logged in to .* \(profile "staging2"/);
  expect(profiles()).toEqual({
    default: { 'base-url': 'https://other.test/api/v1', 'api-key': 'sk_default_account_1234' },
    staging2: { 'base-url': BASE_URL, 'api-key': API_KEY },
  });
});

it("the run's --api-key-file is repeated too, by its absolute path", async () => {
  const key = join(home, 'key.txt');
  writeFileSync(key, `${API_KEY}\n`);
  const refused = await run(['--profile', 'staging2', '--api-key-file', key, 'auth', 'login']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(
    `Pass it once: \`taskctl --profile staging2 --api-key-file ${key} auth login --base-url URL\`.`,
  );
});

it('any command with no service URL: its `auth login` hint names the profile as well', async () => {
  const withKeyOnly = { 'api-key': 'sk_staging_only_1234' };
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ profiles: { staging2: withKeyOnly } }));
  const result = await run(['--profile', 'staging2', 'balance']);
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    'error: no API base URL configured\n' +
      'Run `taskctl --profile staging2 auth login --base-url URL`, set TASKCTL_BASE_URL, or try the local sandbox with --sandbox.\n',
  );
});
