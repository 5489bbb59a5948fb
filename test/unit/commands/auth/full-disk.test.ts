/**
 * `auth login` whose key the service accepts, on a full disk under the config directory: exit 2 saying that nothing
 * was saved although the key is fine, with advice for a full disk (never the permissions).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { whileFailingFs, writesFailUnder } from '../../store/failing-fs.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

let home: string;
let configDir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-login-full-'));
  configDir = join(home, 'cfg');
  mkdirSync(configDir, { mode: 0o700 });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('auth login on a full disk', () => {
  it('says the key was accepted but nothing was saved, and advises space, not permissions (exit 2)', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
    const key = 'sk_live_full_disk_0001';
    const result = await whileFailingFs(writesFailUnder(configDir), () =>
      runTaskctl(['auth', 'login', '--with-key'], {
        api,
        home,
        stdin: `${key}\n`,
        env: { TASKCTL_CONFIG_DIR: configDir, TASKCTL_API_KEY: undefined },
      }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(api.calls).toEqual(['GET /balance']);
    expect(result.stderr).toBe(
      `error: cannot lock the config file (${join(configDir, 'config.json.lock')}): the disk is full; ` +
        'the service accepted the key, but nothing was saved\n' +
        'Free space there, or set TASKCTL_CONFIG_DIR to another directory.\n',
    );
    expect(result.stderr).not.toContain(key);
    expect(readdirSync(configDir)).toEqual([]);
  });
});

/**
 * A profile already logged in elsewhere, logged in to a new base URL with a new key, while one write under the config
 * directory fails (ENOSPC). The file must hold both old values or both new ones, never the old key with the new base
 * URL (later commands would send that key to the new host), and the message must say which.
 */
describe('auth login over an existing profile, with a failure at each write', () => {
  const OLD = { 'base-url': 'https://prod.example.com/api/v1', 'api-key': 'sk_live_PROD_OLD_KEY_0001' };
  const NEW = { 'base-url': 'https://api.test/api/v1', 'api-key': 'sk_live_NEW_KEY_0002' };
  /** A call that changes something under the config directory (the path-based writes, and every fd write or fsync). */
  const isWrite = (name: string, args: readonly unknown[]) =>
    name === 'writeSync' ||
    name === 'fsyncSync' ||
    (typeof args[0] === 'string' && args[0].startsWith(`${configDir}/`) && writesFailUnder(configDir)(name, args));
  const login = (failAt: number) => {
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: OLD } }), { mode: 0o600 });
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
    const steps: string[] = [];
    return whileFailingFs(
      (name, args) => {
        if (!isWrite(name, args)) return undefined;
        const paths = args.filter((arg): arg is string => typeof arg === 'string' && arg.startsWith(`${configDir}/`));
        steps.push([name, ...paths.map((path) => path.slice(configDir.length + 1))].join(' '));
        return steps.length === failAt ? 'ENOSPC' : undefined;
      },
      () =>
        runTaskctl(['auth', 'login', '--with-key'], {
          api,
          home,
          stdin: `${NEW['api-key']}\n`,
          env: { TASKCTL_CONFIG_DIR: configDir, TASKCTL_API_KEY: undefined },
        }),
    ).then((result) => ({ result, steps }));
  };
  const saved = () =>
    (JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: { default?: unknown } }).profiles
      .default;

  it('leaves the old profile whole or the new one whole, and says which', async () => {
    const { result: clean, steps } = await login(0);
    expect(clean.code, clean.stderr).toBe(0);
    expect(saved()).toEqual(NEW);
    // One change of config.json: a single atomic replace.
    expect(steps.filter((step) => step.startsWith('renameSync') && step.endsWith(' config.json'))).toHaveLength(1);
    let refused = 0;
    for (let failAt = 1; failAt <= steps.length; failAt++) {
      const { result } = await login(failAt);
      const at = `failing ${steps[failAt - 1]} (write ${failAt} of ${steps.length})`;
      if (result.code !== 0) refused++;
      if (result.code === 0) {
        expect(saved(), at).toEqual(NEW);
        continue;
      }
      expect(result.code, at).toBe(2);
      expect(saved(), at).toEqual(OLD);
      expect(result.stderr, at).toMatch(/the service accepted the key, but nothing was saved\n/);
      expect(result.stderr, at).not.toContain('the base URL was');
    }
    // The lock, the temp file's open, write and fsync, and the rename each fail the login; a failed cleanup does not.
    expect(refused).toBeGreaterThanOrEqual(5);
  });
});
