#!/usr/bin/env node
// Tiny shim: Node version check, process-wide start-up settings, then main. Nothing else belongs here.
// CommonJS on purpose (bin/package.json): Node's ESM loader costs ~5 ms to start, so `--version` is answered before
// anything loads it (DESIGN.md section 7: ≤ 1.3 × `node -e 0`); src/main.ts prints the same for in-process callers.
'use strict';
const [major, minor, patch] = process.versions.node.split('.').map(Number);
const args = process.argv.slice(2);
// package.json "engines" (undici 7 needs 20.18.1).
if (major < 20 || (major === 20 && (minor < 18 || (minor === 18 && patch < 1)))) {
  process.stderr.write(`error: taskctl needs Node.js 20.18.1 or newer; this is ${process.version}.\n`);
  process.exitCode = 2;
} else if (args.length === 1 && args[0] === '--version') {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  require('node:module').enableCompileCache?.();
  // Node 20 only: undici's HTTP parser is WebAssembly, V8 11 keeps compiling it in the background with its optimising
  // tier, and the process waits for that at exit (~80 ms on two cores). The baseline tier is plenty for a CLI's
  // responses. Node 22 and 24 do not wait, and the flag would cost them 5–10 ms.
  if (major === 20) require('node:v8').setFlagsFromString('--liftoff-only');
  // A reader that went away (`taskctl list | head -1`) ends the run quietly, as SIGPIPE ends a C tool.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
  import('../dist/main.js')
    .then(({ main }) => main(args))
    .then((code) => {
      process.exitCode = code;
    });
}
