// What scripts/build.ts bundles with: the esbuild plugin that keeps the sandbox server in its own file.
import type { Plugin } from 'esbuild';

/**
 * The sandbox server is its own file, dist/sandbox.cjs: only `--sandbox` and `taskctl sandbox` load it, and the CLI
 * bundle every other command reads stays ~300 kB smaller.
 */
export const sandboxApart: Plugin = {
  name: 'sandbox-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]sandbox[\\/]index\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './sandbox.cjs', external: true } : undefined,
    );
  },
};
