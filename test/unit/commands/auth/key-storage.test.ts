/**
 * `auth` and `config` in process, against a loopback sandbox: key storage, masking, file modes, precedence, and secrets
 * kept out of output. In process: nothing here needs a process of its own.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../../src/sandbox/index.js';
import { producer } from '../../core/items/item-sources.js';
import { runTaskctl, type RunOptions, type RunResult } from '../run-in-process.js';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let home: string;
beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, itemMs: 0 });
  home = mkdtempSync(join(tmpdir(), 'taskctl-auth-config-'));
});
afterEach(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

const configDir = () => join(home, 'config');
const configFile = () => join(configDir(), 'config.json');
/** A logged-in user: the sandbox's URL and key in the environment. */
const run = (argv: string[], options: RunOptions = {}): Promise<RunResult> =>
  runTaskctl(argv, {
    home,
    ...options,
    env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, ...options.env },
  });
/** A fresh user: neither key nor base URL in the environment. */
const fresh = { TASKCTL_API_KEY: undefined, TASKCTL_BASE_URL: undefined };
const login = (stdin: string) =>
  run(['auth', 'login', '--with-key', '--base-url', sandbox.origin], { env: fresh, stdin });

describe('auth', () => {
  it('login verifies the key, saves it with the base URL in a 0600 file in a 0700 directory', async () => {
    const result = await login(`${sandbox.apiKey}\n`);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    expect(result.stderr).not.toContain(sandbox.apiKey);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(configDir()).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(configFile(), 'utf8')) as { profiles: { default: Record<string, string> } };
    expect(saved.profiles.default['base-url']).toBe(sandbox.url);
    expect((await run(['balance'], { env: fresh })).code).toBe(0);
  });

  it('login with a rejected key exits 4 and saves nothing', async () => {
    const result = await login('sk_bad_key_9999\n');
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/rejected this API key; nothing was saved/);
    expect(() => statSync(configFile())).toThrow();
  });

  it('status shows the source, the masked key, whether it works and the rate-limit budget', async () => {
    await login(`${sandbox.apiKey}\n`);
    const result = await run(['auth', 'status', '-o', 'json'], { env: fresh });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      profile: 'default',
      key: `****${sandbox.apiKey.slice(-4)}`,
      key_works: true,
      key_error: null,
      key_source: 'profile "default"',
      // Typed: an integer balance and its currency apart, the budget as numbers and an ISO time.
      balance: expect.any(Number) as number,
      currency: 'coins',
      rate_limit: {
        remaining: expect.any(Number) as number,
        limit: expect.any(Number) as number,
        resets_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      },
    });
    expect(result.stdout).not.toContain(sandbox.apiKey);
    const fromEnv = await run(['auth', 'status', '-o', 'json']);
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ key_source: 'TASKCTL_API_KEY' });
  });

  it('status under --sandbox checks the sandbox key of this invocation', async () => {
    const result = await run(['--sandbox', 'auth', 'status', '-o', 'json'], { env: fresh });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ key_source: '--sandbox', key_works: true });
  });

  it('status exits 4 when not logged in; logout removes the key', async () => {
    expect((await run(['auth', 'status'], { env: fresh })).code).toBe(4);
    await login(`${sandbox.apiKey}\n`);
    expect((await run(['auth', 'logout'], { env: fresh })).code).toBe(0);
    expect((await run(['balance'], { env: fresh })).code).toBe(4);
  });

  it('reads the key from --api-key-file (and - for stdin)', async () => {
    const keyFile = join(home, 'key.txt');
    writeFileSync(keyFile, `${sandbox.apiKey}\n`);
    const env = { TASKCTL_API_KEY: undefined };
    expect((await run(['--api-key-file', keyFile, 'balance'], { env })).code).toBe(0);
    expect((await run(['--api-key-file', '-', 'balance'], { env, stdin: sandbox.apiKey })).code).toBe(0);
  });
});

describe('config', () => {
  it('set, get, unset, list and path', async () => {
    expect((await run(['config', 'set', 'output', 'json'])).code).toBe(0);
    expect((await run(['config', 'get', 'output'])).stdout).toBe('json\n');
    // The profile's output setting applies: balance prints JSON without -o.
    expect(JSON.parse((await run(['balance'])).stdout)).toHaveProperty('balance');
    await run(['config', 'set', 'confirm-above', '5000']);
    const list = await run(['config', 'list', '-o', 'tsv']);
    expect(list.stdout).toMatch(/^confirm-above\t5000\tprofile\tprofile "default"$/m);
    // The effective value: the -o flag wins over the profile's `output`.
    expect(list.stdout).toMatch(/^output\ttsv\tflag\t--output$/m);
    expect(list.stdout).toMatch(/^api-key\t\*\*\*\*\w{4}\tenv\tTASKCTL_API_KEY$/m);
    expect(list.stdout).not.toContain(sandbox.apiKey);
    expect((await run(['config', 'unset', 'output'])).code).toBe(0);
    // Unset: the default this run uses (stdout is not a terminal here).
    expect((await run(['config', 'get', 'output'])).stdout).toBe('tsv\n');
    expect((await run(['config', 'path'])).stdout.trim()).toBe(configFile());
  });

  it('list shows every setting: its effective value, default ones included, and its source', async () => {
    await run(['config', 'set', 'request-timeout', '20s']);
    const json = await run(['config', 'list', '-o', 'json'], { env: { TASKCTL_BASE_URL: undefined } });
    expect(JSON.parse(json.stdout)).toEqual([
      { key: 'profile', value: 'default', source: 'default', origin: null },
      { key: 'base-url', value: null, source: 'default', origin: null },
      { key: 'output', value: 'json', source: 'flag', origin: '--output' },
      { key: 'confirm-above', value: 1000, source: 'default', origin: null },
      { key: 'auth-scheme', value: 'x-api-key', source: 'default', origin: null },
      { key: 'request-timeout', value: '20s', source: 'profile', origin: 'profile "default"' },
      { key: 'outage-tolerance', value: '2m', source: 'default', origin: null },
      { key: 'job-retention', value: '720h', source: 'default', origin: null },
      {
        key: 'api-key',
        value: expect.stringMatching(/^\*{4}\w{4}$/) as unknown,
        source: 'env',
        origin: 'TASKCTL_API_KEY',
      },
    ]);
    await run(['config', 'unset', 'request-timeout']);
    const table = await run(['config', 'list', '-o', 'table']);
    expect(table.stdout).toMatch(/^request-timeout +35s \(create: 1m per attempt\) +default +-$/m);
    expect(table.stdout).toMatch(/^KEY +VALUE +SOURCE +FROM$/m);
    // tsv carries machine values: the output this run uses, as `config get` prints it, and no FROM for a default.
    const tsv = await run(['config', 'list']);
    expect(tsv.stdout).toMatch(/^output\ttsv\tdefault\t$/m);
  });

  it('refuses unknown settings, bad values and the api key with exit 2', async () => {
    expect((await run(['config', 'set', 'colour', 'on'])).code).toBe(2);
    expect((await run(['config', 'set', 'confirm-above', 'lots'])).code).toBe(2);
    const key = await run(['config', 'set', 'api-key', 'x']);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/auth login/);
    expect((await run(['config', 'set', 'base-url', 'http://example.com'])).code).toBe(2);
  });

  it('precedence: flag > environment > profile', async () => {
    await run(['config', 'set', 'output', 'csv']);
    expect((await run(['balance'])).stdout).toMatch(/^balance,currency/);
    expect((await run(['balance'], { env: { TASKCTL_OUTPUT: 'json' } })).stdout).toMatch(/^\{/);
    expect((await run(['balance', '-o', 'tsv'], { env: { TASKCTL_OUTPUT: 'json' } })).stdout).toMatch(/^\d+\tcoins/);
  });

  it('profiles are separate', async () => {
    await run(['--profile', 'staging', 'config', 'set', 'output', 'json']);
    expect((await run(['config', 'get', 'output'])).stdout).toBe('tsv\n');
    expect((await run(['config', 'get', 'output'], { env: { TASKCTL_PROFILE: 'staging' } })).stdout).toBe('json\n');
  });

  it('tightens a config file readable by others, with a warning', async () => {
    await run(['config', 'set', 'output', 'tsv']);
    chmodSync(configFile(), 0o644);
    const result = await run(['balance']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/readable by others \(644\); tightened to 600/);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('a broken config file is a usage error naming the file', async () => {
    await run(['config', 'set', 'output', 'tsv']);
    writeFileSync(configFile(), '{ nope', { mode: 0o600 });
    const result = await run(['balance']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(configFile());
  });
});

describe('secrets', () => {
  it('a --verbose run never prints the key, with either auth scheme', async () => {
    for (const scheme of ['x-api-key', 'bearer']) {
      await run(['config', 'set', 'auth-scheme', scheme]);
      const result = await run(['--verbose', 'balance']);
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/REDACTED/);
      expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey);
    }
  });
});

describe('auth login --with-key with a stdin that never ends', () => {
  it('refused (exit 2) once it passes 64 KiB, the producer stopped, nothing saved', async () => {
    const endless = producer(() => Buffer.alloc(16 * 1024));
    const result = await run(['auth', 'login', '--with-key', '--base-url', sandbox.origin], {
      env: fresh,
      stdinStream: endless.stream,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: stdin holds more than 64 KiB, which is no API key; stopped reading\nPipe the key alone on one line: `echo "\$KEY" \| taskctl .*auth login --with-key`\.\n$/,
    );
    expect(endless.pulls()).toBe(5);
    expect(endless.stopped()).toBe(true);
  });
});
