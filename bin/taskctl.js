#!/usr/bin/env node
// Tiny shim: Node version check, compile cache where available, then main. Nothing else belongs here.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`error: taskctl needs Node.js 20.18 or newer; this is ${process.version}.\n`);
  process.exitCode = 2;
} else {
  const { enableCompileCache } = await import('node:module');
  enableCompileCache?.();
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(process.argv.slice(2));
}
