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
import * as nodeFs from 'node:fs';
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { makeDirectory } from '../store/make-dir.js';
import { isRunning } from '../store/process-owner.js';

/** What a save writes through: node:fs, or in tests a disk that fills up mid-write. */
export type CacheFs = Pick<typeof nodeFs, 'readdirSync' | 'renameSync' | 'rmSync' | 'statfsSync' | 'writeFileSync'>;

/** A save needs this much free space, and at least 4 times the cache's size: a cache never fills the disk. */
const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** A temp file a save writes (`balance-v24.1.0-x64-1a2b3c4d.4242.tmp`): the pid of its writer. */
const TEMP_NAME = /\.(\d+)\.tmp$/;

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
  fs: CacheFs = nodeFs,
): { exports: unknown; save: () => void } {
  if (cacheFile === undefined) return { exports: createRequire(file)(file) as unknown, save: () => undefined };
  const source = readFileSync(file, 'utf8');
  const stat = statSync(file);
  const key = `${stat.ino}-${stat.size}-${stat.mtimeMs}\n`;
  let cachedData: Buffer | undefined;
  try {
    const saved = readCacheFile(cacheFile);
    if (saved?.subarray(0, key.length).toString('latin1') === key) cachedData = saved.subarray(key.length);
  } catch {
    // none yet, or unreadable: compiled as usual, and saved at exit
  }
  const script = new Script(`${WRAPPER}${source}\n})`, { filename: file, lineOffset: -1, cachedData });
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  const save = (): void => {
    if (stale) writeCache(cacheFile, key, script, fs);
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

/**
 * The cache file's bytes, or undefined when it is not a regular file. Opened without blocking and without following a
 * link: a FIFO put there would hold a plain open for good, at start, before any signal is handled
 * (docs/behaviour.md#cache-directory). Whatever is there is replaced by the run's save.
 */
function readCacheFile(path: string): Buffer | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the cache of what `script` compiled, whole or not at all: a temp file renamed, so a concurrent run reads the
 * old file or the new one. Never a reason to fail, and never a reason to fill the disk: the temps of runs that died
 * are removed first, a file system with too little room is skipped, and a write that fails removes its temp
 * (docs/behaviour.md#cache-directory). Runs only when the cache was missing or refused: a normal start pays none of this.
 */
function writeCache(cacheFile: string, key: string, script: Script, fs: CacheFs): void {
  const dir = dirname(cacheFile);
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    // The guarded walk, never Node's recursive mkdir (it spins under /proc): docs/behaviour.md#files.
    if (makeDirectory(dir) !== undefined) return;
    removeDeadTemps(dir, fs);
    const data = Buffer.concat([Buffer.from(key, 'latin1'), script.createCachedData()]);
    const free = freeBytes(dir, fs);
    if (free !== undefined && free < Math.max(MIN_FREE_BYTES, 4 * data.length)) return;
    fs.writeFileSync(temp, data, { mode: 0o600 });
    fs.renameSync(temp, cacheFile);
  } catch {
    // The next run compiles and tries again; a partial temp file would only take room.
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // Nothing more to do: the next save sweeps it as a dead run's.
    }
  }
}

/** Free bytes for this user on `dir`'s file system; undefined where that cannot be told. */
function freeBytes(dir: string, fs: CacheFs): number | undefined {
  try {
    const { bavail, bsize } = fs.statfsSync(dir);
    return bavail * bsize;
  } catch {
    return undefined;
  }
}

/**
 * Removes the temp files in `dir` whose writer no longer runs on this machine: a run killed mid-save, or one from
 * before temps were removed on failure. A live run's is kept (it is renaming it now).
 */
function removeDeadTemps(dir: string, fs: CacheFs): void {
  for (const name of fs.readdirSync(dir)) {
    const pid = TEMP_NAME.exec(name)?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    try {
      fs.rmSync(join(dir, name), { force: true });
    } catch {
      // Another run removed it first, or it cannot be: the save goes on.
    }
  }
}
