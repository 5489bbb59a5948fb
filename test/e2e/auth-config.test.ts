/** `auth` and `config` end to end: key storage, masking, file modes, precedence, and secrets kept out of output. */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './harness.js';

let world: E2EWorld;
/** The world's environment without the key and base URL: what a fresh user has. */
let fresh: Record<string, string>;
beforeEach(async () => {
  world = await startWorld({ itemMs: 0 });
  fresh = { ...world.home.env, TASKCTL_API_KEY: '', TASKCTL_BASE_URL: '' };
});
afterEach(() => world.close());

const configFile = () => join(world.home.env.TASKCTL_CONFIG_DIR, 'config.json');
const login = (stdin: string, extra: string[] = []) =>
  world.run(['auth', 'login', '--with-key', '--base-url', world.sandbox.origin, ...extra], { env: fresh, stdin });

describe('auth', () => {
  it('login verifies the key, saves it with the base URL in a 0600 file in a 0700 directory', async () => {
    const result = await login(`${world.sandbox.apiKey}\n`);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    expect(result.stderr).not.toContain(world.sandbox.apiKey);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(world.home.env.TASKCTL_CONFIG_DIR).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(configFile(), 'utf8')) as { profiles: { default: Record<string, string> } };
    expect(saved.profiles.default['base-url']).toBe(world.sandbox.url);
    const balance = await world.run(['balance'], { env: fresh });
    expect(balance.code).toBe(0);
  });

  it('login with a rejected key exits 4 and saves nothing', async () => {
    const result = await login('sk_bad_key_9999\n');
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/rejected this API key; nothing was saved/);
    expect(() => statSync(configFile())).toThrow();
  });

  it('status shows the source, the masked key, whether it works and the rate-limit budget', async () => {
    await login(`${world.sandbox.apiKey}\n`);
    const result = await world.run(['auth', 'status', '-o', 'json'], { env: fresh });
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout) as Record<string, string>;
    expect(status).toMatchObject({
      profile: 'default',
      key: `****${world.sandbox.apiKey.slice(-4)}`,
      key_works: 'yes',
      key_source: 'profile "default"',
    });
    expect(result.stdout).not.toContain(world.sandbox.apiKey);
    const fromEnv = await world.run(['auth', 'status', '-o', 'json']);
    expect((JSON.parse(fromEnv.stdout) as Record<string, string>).key_source).toBe('TASKCTL_API_KEY');
  });

  it('status exits 4 when not logged in; logout removes the key', async () => {
    const none = await world.run(['auth', 'status'], { env: fresh });
    expect(none.code).toBe(4);
    await login(`${world.sandbox.apiKey}\n`);
    const out = await world.run(['auth', 'logout'], { env: fresh });
    expect(out.code).toBe(0);
    const after = await world.run(['balance'], { env: fresh });
    expect(after.code).toBe(4);
  });

  it('reads the key from --api-key-file (and - for stdin)', async () => {
    const keyFile = join(world.home.dir, 'key.txt');
    writeFileSync(keyFile, `${world.sandbox.apiKey}\n`);
    const env = { ...fresh, TASKCTL_BASE_URL: world.sandbox.url };
    expect((await world.run(['--api-key-file', keyFile, 'balance'], { env })).code).toBe(0);
    expect((await world.run(['--api-key-file', '-', 'balance'], { env, stdin: world.sandbox.apiKey })).code).toBe(0);
  });
});

describe('config', () => {
  it('set, get, unset, list and path', async () => {
    expect((await world.run(['config', 'set', 'output', 'json'])).code).toBe(0);
    expect((await world.run(['config', 'get', 'output'])).stdout).toBe('json\n');
    // The profile's output setting applies: balance prints JSON without -o.
    expect(JSON.parse((await world.run(['balance'])).stdout)).toHaveProperty('balance');
    await world.run(['config', 'set', 'confirm-above', '5000']);
    const list = await world.run(['config', 'list', '-o', 'tsv']);
    expect(list.stdout).toMatch(/^confirm-above\t5000\tprofile "default"$/m);
    // The effective value: the -o flag wins over the profile's `output`.
    expect(list.stdout).toMatch(/^output\ttsv\t--output$/m);
    expect(list.stdout).toMatch(/^api-key\t\*\*\*\*\w{4}\tTASKCTL_API_KEY$/m);
    expect(list.stdout).not.toContain(world.sandbox.apiKey);
    expect((await world.run(['config', 'unset', 'output'])).code).toBe(0);
    expect((await world.run(['config', 'get', 'output'])).stdout).toBe('\n');
    expect((await world.run(['config', 'path'])).stdout.trim()).toBe(configFile());
  });

  it('refuses unknown settings, bad values and the api key with exit 2', async () => {
    expect((await world.run(['config', 'set', 'colour', 'on'])).code).toBe(2);
    expect((await world.run(['config', 'set', 'confirm-above', 'lots'])).code).toBe(2);
    const key = await world.run(['config', 'set', 'api-key', 'x']);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/auth login/);
    expect((await world.run(['config', 'set', 'base-url', 'http://example.com'])).code).toBe(2);
  });

  it('precedence: flag > environment > profile', async () => {
    await world.run(['config', 'set', 'output', 'csv']);
    expect((await world.run(['balance'])).stdout).toMatch(/^balance,currency/);
    expect((await world.run(['balance'], { env: { TASKCTL_OUTPUT: 'json' } })).stdout).toMatch(/^\{/);
    expect((await world.run(['balance', '-o', 'tsv'], { env: { TASKCTL_OUTPUT: 'json' } })).stdout).toMatch(
      /^\d+\tcoins/,
    );
  });

  it('profiles are separate', async () => {
    await world.run(['--profile', 'staging', 'config', 'set', 'output', 'json']);
    expect((await world.run(['config', 'get', 'output'])).stdout).toBe('\n');
    expect((await world.run(['config', 'get', 'output'], { env: { TASKCTL_PROFILE: 'staging' } })).stdout).toBe(
      'json\n',
    );
  });

  it('tightens a config file readable by others, with a warning', async () => {
    await world.run(['config', 'set', 'output', 'tsv']);
    chmodSync(configFile(), 0o644);
    const result = await world.run(['balance']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/readable by others \(644\); tightened to 600/);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('a broken config file is a usage error naming the file', async () => {
    await world.run(['config', 'set', 'output', 'tsv']);
    writeFileSync(configFile(), '{ nope', { mode: 0o600 });
    const result = await world.run(['balance']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(configFile());
  });
});

describe('secrets', () => {
  it('a --verbose run never prints the key, with either auth scheme', async () => {
    for (const scheme of ['x-api-key', 'bearer']) {
      await world.run(['config', 'set', 'auth-scheme', scheme]);
      const result = await world.run(['--verbose', 'balance']);
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/REDACTED/);
      expect(result.stdout + result.stderr).not.toContain(world.sandbox.apiKey);
    }
  });
});
