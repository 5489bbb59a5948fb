import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHES_KEPT, codeCacheDirectory, loadBundle } from '../../../src/boot/code-cache.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-code-cache-'));
  dirs.push(dir);
  return dir;
}

let serial = 0;
/** A bundle as scripts/build.mjs writes it: CommonJS, ASCII, a build id on the last line. Unique per call. */
function writeBundle(dir: string, answer: number, buildId = (++serial).toString(16).padStart(16, 'a')): string {
  const file = join(dir, 'taskctl.cjs');
  const body = `"use strict";function compute(){return ${answer}+${serial}-${serial}}module.exports.answer=compute();module.exports.file=__filename;module.exports.dir=__dirname;module.exports.req=typeof require("node:path").join;\n`;
  writeFileSync(file, `${body}// taskctl-build-id: ${buildId}\n`);
  return file;
}

/**
 * The same bundle under another name. V8 also keeps compiled scripts in memory, by source and file name: loading the
 * same file twice in one process would never consult the code cache, as a new process does.
 */
function copyOf(file: string, name: string): string {
  const copy = join(file, '..', name);
  writeFileSync(copy, readFileSync(file));
  return copy;
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.bin')) : []);

describe('loadBundle', () => {
  it('runs the file as a CommonJS module (exports, require, __filename, __dirname)', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 42);
    const bundle = loadBundle(file, undefined);
    expect(bundle.exports).toEqual({ answer: 42, file, dir, req: 'function' });
  });

  it('saves the cache after a run from source, and the next run uses it', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const file = writeBundle(dir, 7);
    const first = loadBundle(file, cache);
    expect(first.cacheHit).toBe(false);
    first.save();
    const saved = cacheFiles(cache);
    expect(saved).toEqual([expect.stringMatching(new RegExp(`-${process.version}-${process.arch}\\.bin$`))]);
    const mtime = statSync(join(cache, saved[0]!)).mtimeMs;

    const second = loadBundle(copyOf(file, 'second.cjs'), cache);
    expect(second.cacheHit).toBe(true);
    expect(second.exports.answer).toBe(7);
    second.save(); // a hit writes nothing
    expect(statSync(join(cache, saved[0]!)).mtimeMs).toBe(mtime);
  });

  it('never applies a cache to another build, even one of the same length (V8 checks only the length)', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const first = loadBundle(writeBundle(dir, 1, '1111111111111111'), cache);
    first.save();
    // Same length, other content, other build id: a cache from the first would be accepted by V8 and run stale code.
    const second = loadBundle(copyOf(writeBundle(dir, 2, '2222222222222222'), 'other.cjs'), cache);
    expect(second.cacheHit).toBe(false);
    expect(second.exports.answer).toBe(2);
    second.save();
    expect(cacheFiles(cache).sort()).toEqual([
      expect.stringMatching(/^1111111111111111-/),
      expect.stringMatching(/^2222222222222222-/),
    ]);
  });

  it(`keeps the ${CACHES_KEPT} most recently written caches (builds or Node versions used side by side)`, () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    for (let build = 1; build <= CACHES_KEPT + 1; build++) {
      const bundle = loadBundle(copyOf(writeBundle(dir, build, String(build).repeat(16)), `b${build}.cjs`), cache);
      bundle.save();
      // Distinct write times, oldest first, whatever the file system's timestamp resolution.
      const [latest] = cacheFiles(cache).filter((name) => name.startsWith(String(build)));
      utimesSync(join(cache, latest!), build * 1000, build * 1000);
    }
    const names = cacheFiles(cache)
      .map((name) => name.slice(0, 16))
      .sort();
    expect(names).toEqual(['2222222222222222', '3333333333333333', '4444444444444444', '5555555555555555']);
  });

  it('compiles from source when the cache is corrupt, and replaces it', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const file = writeBundle(dir, 5);
    loadBundle(file, cache).save();
    const [name] = cacheFiles(cache);
    writeFileSync(join(cache, name!), 'not a V8 code cache');
    const corrupt = loadBundle(copyOf(file, 'corrupt.cjs'), cache);
    expect(corrupt.cacheHit).toBe(false);
    expect(corrupt.exports.answer).toBe(5);
    corrupt.save();
    expect(loadBundle(copyOf(file, 'repaired.cjs'), cache).cacheHit).toBe(true);
  });

  it('uses no cache for a file without a build id, and a cache directory it cannot write is no error', () => {
    const dir = tempDir();
    const file = join(dir, 'plain.cjs');
    writeFileSync(file, 'module.exports.ok = true;\n');
    const plain = loadBundle(file, join(dir, 'cache'));
    plain.save();
    expect(plain.exports.ok).toBe(true);
    expect(existsSync(join(dir, 'cache'))).toBe(false);

    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const bundle = loadBundle(writeBundle(dir, 3), join(blocker, 'cache'));
    expect(() => bundle.save()).not.toThrow();
    expect(bundle.exports.answer).toBe(3);
  });
  it('loads with require, uncached, when Node applies source maps (--enable-source-maps), which it does not to vm scripts', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 9);
    process.setSourceMapsEnabled(true);
    try {
      const bundle = loadBundle(file, join(dir, 'cache'));
      bundle.save();
      expect(bundle.exports.answer).toBe(9);
      expect(cacheFiles(join(dir, 'cache'))).toEqual([]);
    } finally {
      process.setSourceMapsEnabled(false);
    }
  });
});

describe.skipIf(process.platform === 'win32')('a cache directory other users can write to', () => {
  it('is neither read nor written', () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const file = writeBundle(dir, 11);
    loadBundle(file, cache).save();
    const [name] = cacheFiles(cache);
    chmodSync(cache, 0o777);
    const shared = loadBundle(copyOf(file, 'shared.cjs'), cache);
    expect(shared.cacheHit).toBe(false);
    expect(shared.exports.answer).toBe(11);
    rmSync(join(cache, name!));
    shared.save();
    expect(cacheFiles(cache)).toEqual([]);
  });
});

describe('codeCacheDirectory', () => {
  it('is v8/ in the cache directory, unless NODE_DISABLE_COMPILE_CACHE is set', () => {
    expect(codeCacheDirectory('/c', {})).toBe(join('/c', 'v8'));
    expect(codeCacheDirectory('/c', { NODE_DISABLE_COMPILE_CACHE: '0' })).toBe(join('/c', 'v8'));
    expect(codeCacheDirectory('/c', { NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
  });
});
