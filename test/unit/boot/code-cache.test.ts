/**
 * boot/code-cache.ts: the CLI bundle runs as `require` would, with a V8 code cache saved after the run (
 * Node's compile cache holds only what a file's top level compiles). A cache of another bundle is never used.
 */
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeCacheFile, requireWithCodeCache, type CacheFs } from '../../../src/boot/code-cache.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-code-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A CommonJS module whose function is compiled only when called (lazily, as most of the bundle is). */
function writeModule(name: string, answer: number): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `'use strict';\nconst path = require('node:path');\nfunction later() { return ${answer}; }\n` +
      `module.exports = { later, file: __filename, dir: __dirname, base: path.basename(__filename), self: this === exports };\n`,
  );
  return file;
}

describe('requireWithCodeCache', () => {
  it('gives the module what require gives it, and its exports, with a cache or without', () => {
    for (const [name, cache] of [
      ['cached.cjs', join(dir, 'cache', 'x')],
      ['plain.cjs', undefined],
    ] as const) {
      const file = writeModule(name, 42);
      const { exports } = requireWithCodeCache(file, cache) as { exports: Record<string, unknown> };
      expect(exports).toMatchObject({ file, dir, base: name, self: true });
      expect((exports.later as () => number)()).toBe(42);
    }
  });

  it('saves a cache after the run, uses it next time, and never uses one made from another bundle', () => {
    const file = writeModule('bundle.cjs', 42);
    const cache = join(dir, 'cache', 'balance');
    const first = requireWithCodeCache(file, cache);
    expect((first.exports as { later: () => number }).later()).toBe(42); // compiled during the run
    first.save();
    const saved = readFileSync(cache);
    expect(saved.length).toBeGreaterThan(100);

    // Accepted: nothing to save again.
    const second = requireWithCodeCache(file, cache);
    second.save();
    expect(readFileSync(cache).equals(saved)).toBe(true);
    expect((second.exports as { later: () => number }).later()).toBe(42);

    // Another bundle of the same length: V8 alone would take the cache; its first line (inode, size, mtime) refuses it.
    writeModule('bundle.cjs', 43);
    // time-lint: system time (a file's mtime, which the OS dates: one other than the first bundle's)
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const third = requireWithCodeCache(file, cache);
    expect((third.exports as { later: () => number }).later()).toBe(43);
    third.save();
    expect(readFileSync(cache).equals(saved)).toBe(false);
  });

  it('is never a reason to fail: an unreadable cache compiles, an unwritable one is skipped', () => {
    const file = writeModule('bundle.cjs', 7);
    const notAFile = join(dir, 'cache-dir');
    writeFileSync(join(dir, 'blocker'), '');
    const { exports, save } = requireWithCodeCache(file, join(dir, 'blocker', 'cache')); // parent is a file
    expect((exports as { later: () => number }).later()).toBe(7);
    expect(() => save()).not.toThrow();
    expect(existsSync(notAFile)).toBe(false);
  });
});

describe('requireWithCodeCache on a disk that is nearly full', () => {
  /** A pid no process has: above the highest any system gives (Linux's pid_max is at most 2^22). */
  const deadPid = 2 ** 22 + 1;

  it('removes its temp file when the write fails half-way, and the leftovers of runs that died', () => {
    const file = writeModule('bundle.cjs', 7);
    const cacheDir = join(dir, 'cache');
    fs.mkdirSync(cacheDir);
    const cache = join(cacheDir, 'balance');
    const dead = join(cacheDir, `create-v1-x64-0.${deadPid}.tmp`);
    const live = join(cacheDir, `list-v1-x64-0.${process.ppid}.tmp`); // a run that is writing its own now
    for (const leftover of [dead, live]) writeFileSync(leftover, 'partial');
    const full: CacheFs = {
      ...fs,
      writeFileSync: (path, data) => {
        fs.writeFileSync(path, (data as Buffer).subarray(0, 64)); // what fitted before the disk was full
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    };
    const { exports, save } = requireWithCodeCache(file, cache, full);
    expect((exports as { later: () => number }).later()).toBe(7);
    save();
    expect(readdirSync(cacheDir)).toEqual([basename(live)]);
  });

  it('does not write a cache where the file system has too little room left', () => {
    const file = writeModule('bundle.cjs', 7);
    const cache = join(dir, 'cache', 'balance');
    const writes: string[] = [];
    const tight: CacheFs = {
      ...fs,
      // 8 KiB free.
      statfsSync: ((path: string) =>
        Object.assign(fs.statfsSync(path), { bavail: 2, bsize: 4096 })) as CacheFs['statfsSync'],
      writeFileSync: (path, ...rest) => {
        writes.push(String(path));
        fs.writeFileSync(path, ...rest);
      },
    };
    requireWithCodeCache(file, cache, tight).save();
    expect(writes).toEqual([]);
    expect(readdirSync(join(dir, 'cache'))).toEqual([]);
  });
});

describe('codeCacheFile', () => {
  it('is one file per command word, Node version and install', () => {
    const tail = `${process.version}-${process.arch}-`;
    const a = codeCacheFile('/c', ['balance', '-o', 'json'], '/a/dist/taskctl.cjs');
    expect(a).toMatch(new RegExp(`^/c/balance-${tail}[0-9a-f]{8}$`.replaceAll('.', '\\.')));
    expect(codeCacheFile('/c', ['balance'], '/a/dist/taskctl.cjs')).toBe(a);
    expect(codeCacheFile('/c', ['balance'], '/b/dist/taskctl.cjs')).not.toBe(a); // another install, another file
    expect(codeCacheFile('/c', ['--profile', 'x', 'balance'], '/a/dist/taskctl.cjs')).toMatch(`/c/_-${tail}`);
    expect(codeCacheFile('/c', ['../x'], '/a/dist/taskctl.cjs')).toMatch(`/c/_-${tail}`);
  });
});
