#!/usr/bin/env node
// Tiny shim: the Node version check and `--version`, then dist/boot.cjs (src/boot.ts) with the stop signals held
// while it loads. Nothing else belongs here.
// CommonJS on purpose (bin/package.json): Node's ESM loader costs ~5 ms to start, and `--version` must stay within
// 1.3 × `node -e 0` (docs/performance.md); src/main.ts prints the same for in-process callers.
'use strict';
const [major, minor, patch] = process.versions.node.split('.').map(Number);
const args = process.argv.slice(2);
// package.json "engines" (undici 7 needs 20.18.1).
if (major < 20 || (major === 20 && (minor < 18 || (minor === 18 && patch < 1)))) {
  process.stderr.write(`error: taskctl needs Node.js 20.18.1 or newer; this is ${process.version}.\n`);
  process.exitCode = 2;
} else if (args.length === 1 && args[0] === '--version') {
  // A full disk or closed descriptor: one line and exit 14, as src/output/stdout-guard.ts does for every command.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') return;
    process.stderr.on('error', () => {});
    // The words of src/errors.ts's systemErrorWords (this shim loads nothing of dist/), never the code itself.
    const words = {
      ENOSPC: 'the disk is full',
      EDQUOT: 'the disk quota is exceeded',
      EFBIG: 'the file is too large',
      EIO: 'an input/output error',
      EBADF: 'the file descriptor is closed',
    };
    process.stderr.write(`error: cannot write the output (${words[error.code] || 'an unexpected system error'})\n`);
    process.exitCode = 14;
  });
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // A stop signal while taskctl loads is held, not fatal: with a listener, Node queues it until the event loop runs,
  // and by then src/main.ts's own listeners hear it and the command says what was done (`interrupted before anything
  // was sent: nothing was created`). Where main does not run (help, not built) it is raised again, to end as before.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const release = () => signals.forEach((signal) => process.off(signal, held));
  const held = (signal) => {
    release();
    process.kill(process.pid, signal);
  };
  signals.forEach((signal) => process.on(signal, held));
  const { join } = require('node:path');
  let boot;
  try {
    boot = require('../dist/boot.cjs').boot;
  } catch (error) {
    // A source checkout before its first build (the package itself always ships dist/).
    if (error.code !== 'MODULE_NOT_FOUND') throw error;
    process.stderr.write('error: taskctl is not built yet (no dist/boot.cjs)\nRun `npm run build` in the checkout.\n');
    process.exitCode = 1;
  }
  // True once main runs: its listeners are in place, and ours go (a second Ctrl-C must find none). Else one more turn
  // of the event loop, which reads a signal queued by then (an exit with nothing left to do would drop it), then none.
  if (boot && boot(args, join(__dirname, '..', 'dist'))) release();
  else setImmediate(release);
}
