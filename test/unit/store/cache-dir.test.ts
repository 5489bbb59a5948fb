/**
 * Where the config, cache and state live when the environment is odd: an empty or relative HOME, or a relative XDG_*
 * value (which the XDG spec says to ignore), must never put the API key's config or the ledger of creates in whatever
 * directory the command happens to run in; and no home at all (no HOME, a uid with no account: Node's homedir()
 * throws) is never a crash.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cacheDirectory } from '../../../src/store/cache-dir.js';
import { configDirectory } from '../../../src/store/config-file.js';
import { stateDirectory } from '../../../src/store/state-dir.js';
import { UsageError } from '../../../src/errors.js';

const home = (path: string) => () => path;
/** What os.homedir() does with no HOME for a uid the system has no account for. */
const noHome = () => {
  throw Object.assign(new Error('A system error occurred: uv_os_homedir returned ENOENT'), {
    code: 'ERR_SYSTEM_ERROR',
  });
};

describe('config and cache directories', () => {
  it.each([
    ['an empty HOME', {}, ''],
    ['a relative HOME', {}, 'somewhere'],
    ['a relative XDG_*_HOME', { XDG_CONFIG_HOME: 'rel', XDG_CACHE_HOME: 'rel' }, '/home/u'],
  ])('%s: an absolute path, never one relative to the working directory', (_name, env, given) => {
    expect(isAbsolute(configDirectory(env, home(given)))).toBe(true);
    expect(isAbsolute(cacheDirectory(env, home(given)))).toBe(true);
  });

  it('a relative TASKCTL_*_DIR is taken from the working directory: an absolute path, the same in every module', () => {
    const env = { TASKCTL_CONFIG_DIR: 'rel/c', TASKCTL_CACHE_DIR: 'rel/k', TASKCTL_STATE_DIR: './rel/s/' };
    expect(configDirectory(env, noHome)).toBe(resolve('rel/c'));
    expect(cacheDirectory(env, noHome)).toBe(resolve('rel/k'));
    expect(stateDirectory(env, noHome)).toBe(resolve('rel/s'));
  });

  it('keeps an absolute XDG_*_HOME and HOME as they are', () => {
    expect(configDirectory({ XDG_CONFIG_HOME: '/x/c' }, home('/home/u'))).toBe('/x/c/taskctl');
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x/k' }, home('/home/u'))).toBe('/x/k/taskctl');
    expect(configDirectory({}, home('/home/u'))).toBe('/home/u/.config/taskctl');
    expect(cacheDirectory({}, home('/home/u'))).toBe('/home/u/.cache/taskctl');
  });
});

/** Runs `work` (synchronous) with node:os's homedir() and userInfo() throwing as they do with no home, then puts them back. */
function withoutHome<T>(work: () => T): T {
  const os = createRequire(import.meta.url)('node:os') as Record<string, unknown>;
  const real = { homedir: os.homedir, userInfo: os.userInfo };
  os.homedir = noHome;
  os.userInfo = noHome;
  syncBuiltinESMExports();
  try {
    return work();
  } finally {
    Object.assign(os, real);
    syncBuiltinESMExports();
  }
}

describe('no home at all', () => {
  const env = {
    TASKCTL_CONFIG_DIR: '/x/cfg',
    TASKCTL_CACHE_DIR: '/x/cache',
    TASKCTL_STATE_DIR: '/x/state',
    XDG_CONFIG_HOME: undefined,
  };

  it('the TASKCTL_*_DIR and XDG_*_HOME variables are enough: the home is never looked for', () => {
    expect(configDirectory(env, noHome)).toBe('/x/cfg');
    expect(cacheDirectory(env, noHome)).toBe('/x/cache');
    expect(stateDirectory(env, noHome)).toBe('/x/state');
    expect(configDirectory({ XDG_CONFIG_HOME: '/x/c' }, noHome)).toBe('/x/c/taskctl');
    // The system's own home, which the commands use, is not looked for either.
    expect(withoutHome(() => [configDirectory(env), cacheDirectory(env), stateDirectory(env)])).toEqual([
      '/x/cfg',
      '/x/cache',
      '/x/state',
    ]);
  });

  it('the config is exit 2 naming HOME and TASKCTL_CONFIG_DIR; the cache and state fall back to the temp dir', () => {
    const error = withoutHome(() => {
      try {
        return configDirectory({});
      } catch (e) {
        return e;
      }
    });
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toMatch(/home directory.*HOME is unset/);
    expect((error as UsageError).hint).toMatch(/Set HOME, or TASKCTL_CONFIG_DIR/);
    const uid = process.getuid?.() ?? 'user';
    expect(withoutHome(() => cacheDirectory({}))).toBe(join(tmpdir(), `taskctl-cache-${uid}`));
    expect(withoutHome(() => stateDirectory({}))).toBe(join(tmpdir(), `taskctl-state-${uid}`));
  });
});
