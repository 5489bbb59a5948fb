/**
 * Loads the CLI bundle (dist/taskctl.cjs) with a V8 code cache made at the end of a run, so it holds every function
 * that run compiled, not only the bundle's top level as Node's compile cache does (Node compiles the rest lazily on
 * every start: zod's parser, undici's client, the command itself). Measured on `balance` against a loopback sandbox:
 * ~18 ms less CPU on Node 24, and Node 20, which has no compile cache, gets one.
 *
 * One cache file per bundle path, command word and Node version (`balance-v24.1.0-x64-1a2b3c4d`: two installs never
 * take turns overwriting one file), rewritten only when missing or refused:
 * its first line names the bundle it was made from (inode, size, mtime), since V8 itself checks only the source's
 * length. V8 refuses a cache made by another V8 or with other flags, and then the run compiles as usual.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { makeDirectory } from '../store/make-dir.js';

/** The parameters Node gives a CommonJS module; the wrapper is on its own line (lineOffset -1 keeps positions). */
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {\n';

/** The cache file of `args`' command run from `bundle` on this Node, in `cacheDir`. */
export function codeCacheFile(cacheDir: string, args: readonly string[], bundle: string): string {
  const word = args[0] !== undefined && /^[a-z_]{1,20}$/.test(args[0]) ? args[0] : '_';
  return join(cacheDir, `${word}-${process.version}-${process.arch}-${pathHash(bundle)}`);
}

/** FNV-1a of the path, 8 hex digits: names the install without loading node:crypto. */
function pathHash(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Runs the CommonJS file `file` as `require` would: its exports, and `save`, which writes the code cache of what was
 * compiled so far when `cacheFile` had none for this bundle or V8 refused it (boot.ts calls it at exit). `cacheFile`
 * undefined: no cache, and a plain `require` (Node maps stack traces through the bundle's source map, with
 * --enable-source-maps, only for files it loads itself).
 */
export function requireWithCodeCache(
  file: string,
  cacheFile: string | undefined,
): { exports: unknown; save: () => void } {
  if (cacheFile === undefined) return { exports: createRequire(file)(file) as unknown, save: () => undefined };
  const source = readFileSync(file, 'utf8');
  const stat = statSync(file);
  const key = `${stat.ino}-${stat.size}-${stat.mtimeMs}\n`;
  let cachedData: Buffer | undefined;
  try {
    const saved = readFileSync(cacheFile);
    if (saved.subarray(0, key.length).toString('latin1') === key) cachedData = saved.subarray(key.length);
  } catch {
    // none yet, or unreadable: compiled as usual, and saved at exit
  }
  const script = new Script(`${WRAPPER}${source}\n})`, { filename: file, lineOffset: -1, cachedData });
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  const save = (): void => {
    if (!stale) return;
    try {
      // The guarded walk, never Node's recursive mkdir (it spins under /proc): docs/behaviour.md#files.
      if (makeDirectory(dirname(cacheFile)) !== undefined) return;
      const data = script.createCachedData();
      // Whole or not at all: a concurrent run reads either the old file or the new one.
      const temp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(temp, Buffer.concat([Buffer.from(key, 'latin1'), data]), { mode: 0o600 });
      renameSync(temp, cacheFile);
    } catch {
      // A cache is never a reason to fail: the next run compiles and tries again.
    }
  };
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, save };
}
