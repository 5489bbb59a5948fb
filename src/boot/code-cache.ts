/**
 * Loads the CLI bundle (one CommonJS file) through V8's code cache, as Node 22's `module.enableCompileCache()` does for
 * modules, but on every supported Node (20 has no such API). The first run compiles from source and, once the command
 * is done, saves the bytecode V8 produced, including the functions that run needed; later runs skip most parsing and
 * compiling (README "Performance" has the figures).
 *
 * Safety: V8 checks only the source's length, not its content, before it accepts a cache. So the cache file is named
 * after the bundle's build id (a hash of its content, stamped by scripts/bundling.mjs), the Node version and the CPU
 * architecture; V8 itself rejects a cache from another V8 version or other flags. A rejected, unreadable or missing
 * cache only means compiling from source. Everything here is best effort: a read-only cache directory is no error,
 * and a directory other users could write to is not used at all (see mayUse).
 *
 * NODE_DISABLE_COMPILE_CACHE (Node's own switch for its compile cache) turns it off.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The last line of a built bundle: `// taskctl-build-id: <hex>`. */
const BUILD_ID = /\/\/ taskctl-build-id: ([0-9a-f]{8,64})\s*$/;

export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** Whether V8 used a saved cache for this run. */
  cacheHit: boolean;
  /** Writes the cache if this run compiled from source. Call when the command is done (it then covers its functions). */
  save(): void;
}

/**
 * Runs `file` as a CommonJS module. `cacheDir` undefined (or a bundle without a build id) means no cache, the plain
 * equivalent of `require(file)`.
 */
export function loadBundle(file: string, cacheDir: string | undefined): LoadedBundle {
  // Node applies source maps (--enable-source-maps, for development builds) to what it loads itself, not to vm scripts.
  if (process.sourceMapsEnabled)
    return { exports: createRequire(file)(file) as Record<string, unknown>, cacheHit: false, save() {} };
  // ASCII (scripts/bundling.mjs checks): latin1 is the same text, read without UTF-8 decoding.
  const source = readFileSync(file, 'latin1');
  const buildId = BUILD_ID.exec(source.slice(-100))?.[1];
  const cacheFile =
    cacheDir && buildId && mayUse(cacheDir)
      ? join(cacheDir, `${buildId}-${process.version}-${process.arch}.bin`)
      : undefined;
  const cachedData = cacheFile ? readOrUndefined(cacheFile) : undefined;
  // The same wrapper as Node's CommonJS loader, on the first line so line numbers in stack traces stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const cacheHit = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cacheHit,
    save() {
      if (cacheHit || !cacheFile || !buildId) return;
      try {
        writeAtomically(cacheFile, script.createCachedData());
        removeOldCaches(dirname(cacheFile));
      } catch {
        // Best effort: no cache next time either.
      }
    },
  };
}

/** Where the code cache lives, or undefined when it is turned off. */
export function codeCacheDirectory(
  cacheRoot: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const disabled = env.NODE_DISABLE_COMPILE_CACHE;
  if (disabled !== undefined && disabled !== '' && disabled !== '0') return undefined;
  return join(cacheRoot, 'v8');
}

/**
 * A code cache is code: it is used only from a directory no other user can write to (owned by this user, not group-
 * or world-writable), as the completion cache beside it is. A directory not made yet is made so (0700). POSIX only.
 */
function mayUse(dir: string): boolean {
  if (process.platform === 'win32' || !process.getuid) return true;
  try {
    const stats = statSync(dir);
    return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeAtomically(file: string, data: Buffer): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, data, { mode: 0o600 });
  renameSync(temporary, file);
}

/** Caches kept: a few taskctl versions or Node versions used side by side each keep theirs (about 1 MB each). */
export const CACHES_KEPT = 4;

/** Keeps the CACHES_KEPT most recently written caches; the others belong to upgraded or unused builds. */
function removeOldCaches(dir: string): void {
  const caches = readdirSync(dir)
    .filter((name) => name.endsWith('.bin'))
    .map((name) => ({ path: join(dir, name), written: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.written - a.written);
  for (const { path } of caches.slice(CACHES_KEPT)) rmSync(path, { force: true });
}
