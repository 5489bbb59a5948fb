/**
 * Where the config and cache live when the environment is odd: an empty or relative HOME, or a relative XDG_* value
 * (which the XDG spec says to ignore), must never put the API key's config or the ledger of creates in whatever
 * directory the command happens to run in.
 */
import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDirectory } from '../../../src/store/cache-dir.js';
import { configDirectory } from '../../../src/store/config-file.js';

describe('config and cache directories', () => {
  it.each([
    ['an empty HOME', {}, ''],
    ['a relative HOME', {}, 'somewhere'],
    ['a relative XDG_*_HOME', { XDG_CONFIG_HOME: 'rel', XDG_CACHE_HOME: 'rel' }, '/home/u'],
  ])('%s: an absolute path, never one relative to the working directory', (_name, env, home) => {
    expect(isAbsolute(configDirectory(env, home))).toBe(true);
    expect(isAbsolute(cacheDirectory(env, home))).toBe(true);
  });

  it('keeps an absolute XDG_*_HOME and HOME as they are', () => {
    expect(configDirectory({ XDG_CONFIG_HOME: '/x/c' }, '/home/u')).toBe('/x/c/taskctl');
    expect(cacheDirectory({ XDG_CACHE_HOME: '/x/k' }, '/home/u')).toBe('/x/k/taskctl');
    expect(configDirectory({}, '/home/u')).toBe('/home/u/.config/taskctl');
    expect(cacheDirectory({}, '/home/u')).toBe('/home/u/.cache/taskctl');
  });
});
