/**
 * A profile that does not exist: `--profile nope` and `TASKCTL_PROFILE=nope` are exit 2 naming the profiles
 * that do, whatever the environment supplies; only the commands that create a profile (`auth login`, `config set`)
 * accept a new name.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY, BASE_URL, mockApi, runTaskctl, type RunOptions } from '../commands/run-in-process.js';

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-profile-check-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function writeConfig(profiles: Record<string, Record<string, string>>): void {
  mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
}
const readConfig = () => JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as unknown;
const run = (argv: string[], options: RunOptions = {}) => runTaskctl(argv, { home, ...options });
const balanceReply = { success: true, data: { balance: 5, currency: 'coins' } };

describe('a profile that does not exist', () => {
  it('--profile nope is exit 2 naming the profiles, even when the environment supplies a key and URL', async () => {
    writeConfig({ default: { output: 'tsv' }, staging: { 'base-url': BASE_URL } });
    const api = mockApi();
    const result = await run(['--profile', 'nope', 'balance'], { api });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: profile "nope" (from --profile) does not exist; the profiles are: default, staging\n' +
        'Pick one of them, or create it: `taskctl --profile nope auth login --base-url URL`.\n',
    );
    expect(api.calls).toEqual([]);
  });

  it('with no profiles at all says so, and how to make the one named', async () => {
    const result = await run(['--profile', 'staging', 'config', 'list', '-o', 'json'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: profile "staging" (from --profile) does not exist: no profiles yet\n' +
        'Create it: `taskctl --profile staging auth login --base-url URL`.\n',
    );
  });

  it('the hint, its URL filled in, creates the profile: the command that was refused then runs', async () => {
    const refused = await run(['--profile', 'staging', 'balance', '-o', 'tsv'], {
      env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined },
    });
    expect(refused.code).toBe(2);
    const hint = /`(taskctl [^`]*)`/.exec(refused.stderr)?.[1] ?? '';
    const api = mockApi();
    api.reply('GET', '/balance', 200, balanceReply, { times: 2 });
    const fresh = { api, env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined } };
    const login = await run([...hint.replace(/ URL$/, ` ${BASE_URL}`).split(' ').slice(1), '--with-key'], {
      ...fresh,
      stdin: `${API_KEY}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(readConfig()).toEqual({ profiles: { staging: { 'base-url': BASE_URL, 'api-key': API_KEY } } });
    const balance = await run(['--profile', 'staging', 'balance', '-o', 'tsv'], fresh);
    expect(balance.code, balance.stderr).toBe(0);
  });

  it('TASKCTL_PROFILE=nope is exit 2 saying where the name came from', async () => {
    writeConfig({ work: { 'base-url': BASE_URL } });
    const api = mockApi();
    const result = await run(['balance'], { api, env: { TASKCTL_PROFILE: 'nope' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: profile "nope" (from TASKCTL_PROFILE) does not exist; the profiles are: work\n',
    );
    expect(api.calls).toEqual([]);
  });

  it('is refused by auth status and config list too', async () => {
    writeConfig({ work: { 'base-url': BASE_URL } });
    for (const argv of [
      ['auth', 'status'],
      ['config', 'list'],
      ['config', 'get', 'output'],
      ['auth', 'logout'],
    ]) {
      const result = await run(['--profile', 'nope', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/profile "nope" \(from --profile\) does not exist/);
    }
  });

  it('an existing profile, and the default one, work as before', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, balanceReply, { times: 3 });
    expect((await run(['balance', '-o', 'tsv'], { api })).code).toBe(0);
    expect((await run(['--profile', 'default', 'balance', '-o', 'tsv'], { api })).code).toBe(0);
    writeConfig({ work: { output: 'tsv' } });
    expect((await run(['--profile', 'work', 'balance'], { api })).stdout).toMatch(/^5\b/);
  });
});

describe('commands that create a profile accept a new name', () => {
  it('config set --profile new', async () => {
    writeConfig({ work: { output: 'tsv' } });
    const result = await run(['--profile', 'new', 'config', 'set', 'output', 'json']);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
    expect(readConfig()).toMatchObject({ profiles: { new: { output: 'json' } } });
  });

  it('auth login --profile new (the flag after the subcommand, as the hint writes it)', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, balanceReply);
    const result = await run(['auth', 'login', '--profile', 'new', '--with-key', '--base-url', BASE_URL], {
      api,
      env: { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined },
      stdin: `${API_KEY}\n`,
    });
    expect(result.stderr).toMatch(/Logged in/);
    expect(result.code).toBe(0);
    expect(readConfig()).toMatchObject({ profiles: { new: { 'api-key': API_KEY } } });
  });
});

describe('no profile name is special', () => {
  it('__proto__: config set saves it, config get reads it, auth login and logout store and remove its key', async () => {
    const set = await run(['--profile', '__proto__', 'config', 'set', 'output', 'json']);
    expect(set.code, set.stderr).toBe(0);
    expect(Object.getOwnPropertyNames((readConfig() as { profiles: object }).profiles)).toEqual(['__proto__']);
    const got = await run(['--profile', '__proto__', 'config', 'get', 'output']);
    expect(got.stdout).toBe('json\n');
    const api = mockApi();
    api.reply('GET', '/balance', 200, balanceReply, { times: 2 });
    const fresh = { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined };
    const login = ['--profile', '__proto__', 'auth', 'login', '--with-key', '--base-url', BASE_URL];
    expect((await run(login, { api, env: fresh, stdin: `${API_KEY}\n` })).code).toBe(0);
    const balance = await run(['--profile', '__proto__', 'balance', '-o', 'tsv'], { api, env: fresh });
    expect(balance.code, balance.stderr).toBe(0);
    const logout = await run(['--profile', '__proto__', 'auth', 'logout'], { env: fresh });
    expect(logout.code, logout.stderr).toBe(0);
    expect(JSON.stringify(readConfig())).not.toContain(API_KEY);
  });

  it('a key a __proto__ profile already holds in the file can be removed with auth logout', async () => {
    mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
    const text = `{"profiles":{"__proto__":{"api-key":"${API_KEY}"},"work":{"output":"tsv"}}}`;
    writeFileSync(join(home, 'config', 'config.json'), text, { mode: 0o600 });
    const logout = await run(['--profile', '__proto__', 'auth', 'logout']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(/Removed the API key of profile "__proto__"/);
    expect(readConfig()).toEqual({ profiles: { work: { output: 'tsv' } } });
  });

  it('an unknown name that Object.prototype has (toString) does not exist either', async () => {
    writeConfig({ work: { output: 'tsv' } });
    const result = await run(['--profile', 'toString', 'config', 'get', 'output']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/profile "toString" \(from --profile\) does not exist; the profiles are: work/);
  });
});

describe('an empty profile name', () => {
  it("--profile '' (an unset shell variable) is exit 2, nothing changed", async () => {
    writeConfig({ default: { output: 'tsv' } });
    const result = await run(['--profile', '', 'config', 'set', 'output', 'json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: an empty argument names no profile\n.*is a shell variable unset\?/);
    expect(readConfig()).toEqual({ profiles: { default: { output: 'tsv' } } });
  });

  it("TASKCTL_PROFILE='' is unset, as an empty variable commonly is: the default profile", async () => {
    writeConfig({ default: { output: 'tsv' } });
    const result = await run(['config', 'get', 'output'], { env: { TASKCTL_PROFILE: '' } });
    expect(result).toMatchObject({ code: 0, stdout: 'tsv\n' });
  });
});
