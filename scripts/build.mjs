// Bundles src/ into dist/ with esbuild: one ESM entry plus lazily loaded chunks (commands' heavy paths, the sandbox),
// so `taskctl --help` parses only what it needs. Runtime dependencies stay external (installed by npm).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts', sandbox: 'src/sandbox/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: new URL('..', import.meta.url).pathname,
});
