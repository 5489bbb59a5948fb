/**
 * What bin/taskctl.js runs once the Node version is checked and `--version` answered (dist/boot.cjs): process-wide
 * settings, then a help request from dist/help.json, else the CLI bundle through V8's code cache. Start-up speed is the
 * point (DESIGN.md section 7; README "Performance"): nothing here loads more than Node built-ins and two small files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { codeCacheDirectory, loadBundle } from './boot/code-cache.js';
import { cachedHelp, helpCommandPath, type HelpTexts } from './boot/help.js';
import type * as Bundle from './bundle.js';
import { cacheDirectory } from './core/cache-dir.js';
import { guardStdout } from './output/stdout-guard.js';

/** `distDir`: the directory holding help.json and taskctl.cjs. */
export function boot(args: string[], distDir: string): void {
  guardStdout(process.stdout, process.stderr, (code) => process.exit(code));

  if (helpCommandPath(args) !== undefined) {
    const text = cachedHelp(
      JSON.parse(readFileSync(join(distDir, 'help.json'), 'utf8')) as HelpTexts,
      args,
      process.stdout,
    );
    if (text !== undefined) {
      process.stdout.write(text);
      return;
    }
  }

  // Node 20 only: undici's HTTP parser is WebAssembly, V8 11 keeps compiling it in the background with its optimising
  // tier, and the process waits for that at exit (~80 ms on two cores). The baseline tier is plenty for a CLI's
  // responses. Node 22 and 24 do not wait, and the flag would cost them 5–10 ms.
  if (process.versions.node.startsWith('20.')) setFlagsFromString('--liftoff-only');

  const bundle = loadBundle(join(distDir, 'taskctl.cjs'), codeCacheDirectory(cacheDirectory(process.env), process.env));
  const { main } = bundle.exports as typeof Bundle;
  void main(args).then((code) => {
    process.exitCode = code;
    bundle.save();
  });
}
