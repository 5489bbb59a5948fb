// What scripts/build.ts bundles with: the esbuild plugins that keep the sandbox server in its own file, load only the
// part of undici that src/api uses, keep commander from loading node:child_process at start-up, and leave commander
// out of the bundle for a plain command typed alone.
import type { Plugin } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

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

/** The undici files the subset below is made of: what undici's index.js requires for these exports. */
const UNDICI_SUBSET = {
  Dispatcher: 'lib/dispatcher/dispatcher.js',
  api: 'lib/api/index.js',
  Agent: 'lib/dispatcher/agent.js',
  EnvHttpProxyAgent: 'lib/dispatcher/env-http-proxy-agent.js',
} as const;

/**
 * In the CLI bundle, `import { Agent, EnvHttpProxyAgent } from 'undici'` (src/api/dispatcher.ts) gets the connection
 * pool only, not undici's index.js, which also loads fetch, WebSocket, EventSource, the cache stores, the mocks and
 * Node's own bundled undici with them: every command that talks to the API starts ~40 ms sooner (docs/performance.md,
 * where `npm run bench` shows it). The module below does what index.js does for those exports. Types, tests
 * (MockAgent) and tsc keep using undici's public entry. Two guards against an undici upgrade: a name src/ imports that
 * is not exported here fails the build ("No matching export"), and so does a moved file (below), with what to do.
 *
 * undici's HTTP/2 client is loaded on first use rather than with the pool: it loads `node:http2`, `node:tls` and
 * `node:crypto` (~7 ms), and only a TLS connection that negotiates h2 calls it. It is the real client, only later.
 */
export const undiciSubset: Plugin = {
  name: 'undici-subset',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-subset' }));
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[\\/]undici[\\/]lib[\\/]dispatcher$/.test(args.resolveDir)
        ? { path: 'client-h2', namespace: 'undici-lazy', pluginData: join(args.resolveDir, 'client-h2.js') }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-lazy' }, (args) => ({
      contents: `let real; module.exports = function connectH2(...args) { real ??= require(${JSON.stringify(args.pluginData)}); return real(...args); };`,
      resolveDir: root,
      loader: 'js',
    }));
    b.onLoad({ filter: /^undici$/, namespace: 'undici-subset' }, () => {
      const missing = Object.values(UNDICI_SUBSET).filter(
        (file) => !existsSync(join(root, 'node_modules/undici', file)),
      );
      if (missing.length > 0)
        throw new Error(
          `undici has no ${missing.join(', ')} any more: update UNDICI_SUBSET in scripts/bundling.ts from undici's ` +
            `index.js, or drop the undici-subset plugin (the CLI then works through undici's index, ~40 ms slower to start)`,
        );
      const from = (file: string): string => JSON.stringify(`undici/${file}`);
      return {
        contents: [
          `import Dispatcher from ${from(UNDICI_SUBSET.Dispatcher)};`,
          `import api from ${from(UNDICI_SUBSET.api)};`,
          'Object.assign(Dispatcher.prototype, api);',
          `export { default as Agent } from ${from(UNDICI_SUBSET.Agent)};`,
          `export { default as EnvHttpProxyAgent } from ${from(UNDICI_SUBSET.EnvHttpProxyAgent)};`,
        ].join('\n'),
        resolveDir: root,
        loader: 'js',
      };
    });
  },
};

/** What src/main.ts imports, lazily, for every run but a plain command typed alone: commander and the command tree. */
const NOT_PLAIN = ['./program.js', 'commander', './boot/overview.js'];

/**
 * dist/plain.cjs (src/plain-bundle.ts) is the CLI for a plain command typed alone (src/boot/plain-command.ts): main's
 * commander path, which such a run never takes, is left out, and with it the command tree and everything only the
 * other commands load. `taskctl balance` then reads a bundle about half the size, whose top level alone made ~40% of
 * its code cache (docs/performance.md). In that bundle each of those imports is a module that throws, should it ever
 * run. A name in NOT_PLAIN that src/main.ts no longer imports fails the build, so the list cannot silently go stale.
 */
export const plainOnly: Plugin = {
  name: 'plain-only',
  setup(b) {
    const cut = new Set<string>();
    b.onResolve({ filter: /.*/ }, (args) => {
      if (
        args.kind !== 'dynamic-import' ||
        !NOT_PLAIN.includes(args.path) ||
        !/[\\/]src[\\/]main\.ts$/.test(args.importer)
      )
        return undefined;
      cut.add(args.path);
      return { path: args.path, namespace: 'not-plain' };
    });
    b.onLoad({ filter: /.*/, namespace: 'not-plain' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in dist/plain.cjs, which runs a plain command typed alone only (src/boot.ts)`)});`,
      loader: 'js',
    }));
    b.onEnd((result) => {
      const stale = NOT_PLAIN.filter((path) => !cut.has(path));
      if (result.errors.length === 0 && stale.length > 0)
        throw new Error(`src/main.ts no longer imports ${stale.join(', ')}: update NOT_PLAIN in scripts/bundling.ts`);
    });
  },
};

/** The line of commander's lib/command.js that loads node:child_process, for executable subcommands only. */
const COMMANDER_SPAWN_LINE = "const childProcess = require('node:child_process');";

/**
 * Commander requires `node:child_process` when it loads (with `net`, `dgram` and streams behind it: ~3 ms of every
 * start-up), for executable subcommands (`git-foo` style), which taskctl does not have. In the bundle it is required
 * on the first `spawn` instead; commander itself is unchanged. An upgrade that changes the line fails the build.
 */
export const commanderLazySpawn: Plugin = {
  name: 'commander-lazy-spawn',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(COMMANDER_SPAWN_LINE))
        throw new Error(
          `commander's lib/command.js no longer has \`${COMMANDER_SPAWN_LINE}\`: update commanderLazySpawn in ` +
            'scripts/bundling.ts, or drop it (start-up then loads node:child_process, ~3 ms)',
        );
      return {
        contents: source.replace(
          COMMANDER_SPAWN_LINE,
          "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
        ),
        loader: 'js',
      };
    });
  },
};
