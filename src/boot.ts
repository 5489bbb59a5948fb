/**
 * What bin/taskctl.js runs once the Node version is checked and `--version` answered (dist/boot.cjs): process-wide
 * settings, then a help request from dist/help.json, else the CLI bundle (dist/plain.cjs for a plain command typed
 * alone, boot/plain-command.ts), with a code cache made at the end of a run
 * (boot/code-cache.ts) and Node's compile cache for what the bundle requires (22.1+). Start-up speed is the point (docs/performance.md): nothing here loads more than Node
 * built-ins and two small files.
 */
import { readFileSync, writeSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { codeCacheFile, requireWithCodeCache } from './boot/code-cache.js';
import { cachedHelp, helpCommandPath, type HelpTexts } from './boot/help.js';
import type * as Bundle from './bundle.js';
import { cacheDirectory } from './store/cache-dir.js';
import { describeDirectoryProblem, makeDirectory } from './store/make-dir.js';
import { writeAdvice } from './store/write-advice.js';
import { blockOnPipe, guardStdout, writeWhole } from './output/stdout-guard.js';
import { releaseHungUpTerminals } from './boot/hung-up-terminal.js';
import { plainCommandWord } from './boot/plain-command.js';

/** Node 22.1+ (@types/node follows the oldest supported Node, 20, which has no such function). */
const { enableCompileCache } = nodeModule as { enableCompileCache?: (cacheDir: string) => unknown };

/**
 * `distDir`: the directory holding help.json and taskctl.cjs. True when the command runs (src/main.ts): its own
 * listeners hear the stop signals from now on; false when help was answered here.
 */
export function boot(args: string[], distDir: string): boolean {
  // A terminal that hangs up (EIO on it) is a hang-up, whether or not SIGHUP came: the run stops as at SIGHUP (129).
  guardStdout(
    process.stdout,
    process.stderr,
    (code) => process.exit(code),
    () => process.kill(process.pid, 'SIGHUP'),
  );
  blockOnPipe(process.stdout);
  // A file that fills up mid-chunk: the error of the rest is an error (exit 14), not a cut file and exit 0.
  writeWhole(process.stdout, writeSync);
  writeWhole(process.stderr, writeSync);
  process.on('exit', () => releaseHungUpTerminals());

  if (helpCommandPath(args) !== undefined) {
    const text = cachedHelp(
      JSON.parse(readFileSync(join(distDir, 'help.json'), 'utf8')) as HelpTexts,
      args,
      process.stdout,
    );
    if (text !== undefined) {
      process.stdout.write(text);
      return false;
    }
  }

  // Node 20 only: undici's HTTP parser is WebAssembly, V8 11 keeps compiling it in the background with its optimising
  // tier, and the process waits for that at exit (~80 ms on two cores). The baseline tier is plenty for a CLI's
  // responses. Node 22 and 24 do not wait, and the flag would cost them 5–10 ms.
  // node:v8 is fetched only here: loading it costs 2-3 ms (it pulls in heap_utils and streams) on every Node.
  if (process.versions.node.startsWith('20.')) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');

  // The bytecode of what a run compiled is saved and reused by the next runs: the bundle's by boot/code-cache.ts
  // (every Node), what it requires (dist/sandbox.cjs) by Node's compile cache (22.1+). In the user's own cache
  // directory rather than the shared tmpdir; NODE_DISABLE_COMPILE_CACHE turns both off, and --enable-source-maps
  // the bundle's (Node maps stack traces only for files it loads itself).
  // Node makes the compile cache's directory with its recursive mkdir, which spins forever under /proc or through a
  // dangling symlink: the directory is made first by the guarded walk (store/make-dir.ts), and a cache directory that
  // cannot be made means a run without the caches and a one-line warning (docs/behaviour.md#files).
  const cacheDir = cacheDirectory(process.env);
  const compileDir = join(cacheDir, 'compile');
  const cached = !process.env.NODE_DISABLE_COMPILE_CACHE && usableCacheDir(cacheDir, compileDir);
  if (cached) enableCompileCache?.(compileDir);
  // A plain command typed alone (`taskctl balance`) runs from plain.cjs, the CLI without commander, the command tree
  // and what only they load: less code to read and a smaller code cache (docs/performance.md).
  const bundleFile = join(distDir, plainCommandWord(args) === undefined ? 'taskctl.cjs' : 'plain.cjs');
  const cacheFile =
    !cached || process.sourceMapsEnabled ? undefined : codeCacheFile(join(compileDir, 'taskctl'), args, bundleFile);
  const bundle = requireWithCodeCache(bundleFile, cacheFile);
  process.once('exit', bundle.save); // once the command ran: the cache then holds what it compiled
  const { main } = bundle.exports as typeof Bundle;
  void main(args).then((code) => {
    process.exitCode = code;
  });
  return true;
}

/** True when `dir` (inside the cache directory `cacheDir`) is a directory now; else a warning, and false. */
function usableCacheDir(cacheDir: string, dir: string): boolean {
  const problem = makeDirectory(dir);
  if (problem === undefined) return true;
  process.stderr.write(
    `warning: running without the cache directory ${cacheDir}: ${describeDirectoryProblem(problem)}. ` +
      `${writeAdvice(problem, 'set TASKCTL_CACHE_DIR to another directory', 'Set TASKCTL_CACHE_DIR to a writable directory.')}\n`,
  );
  return false;
}
