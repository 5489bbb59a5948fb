// What scripts/build.mjs bundles with: esbuild plugins and the build id. scripts/bench.mjs builds its start-up floor
// with them too, so that the floor loads exactly the undici the CLI does, through the same code cache.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;

/**
 * Checks that a built bundle is ASCII (src/boot reads it as latin1) and appends its build id, a hash of its content,
 * on the last line: src/boot/code-cache.ts names the code cache after it.
 */
export function stampBuildId(file) {
  const text = readFileSync(file, 'latin1');
  const nonAscii = /[^\x00-\x7f]/.exec(text);
  if (nonAscii)
    throw new Error(`${file} has a non-ASCII character at offset ${nonAscii.index}; src/boot reads it as latin1`);
  const buildId = createHash('sha256').update(text, 'latin1').digest('hex').slice(0, 16);
  appendFileSync(file, `// taskctl-build-id: ${buildId}\n`);
}

/**
 * `import ... from 'undici'` resolves to the parts src/api uses, not undici's index, which also loads fetch, WebSocket,
 * the cache stores and the mocks (start-up: ~40 ms less for every command that talks to the API). The lines below are
 * what undici's index.js does for them. A name src/ imports that is not exported here fails the build ("No matching
 * export"), and a moved file fails it too ("Could not resolve"), so an undici upgrade cannot break this silently.
 * Tests import undici itself (MockAgent etc.), unaffected.
 *
 * undici's HTTP/2 client is replaced by a stub: loading it loads `node:http2` (~15 ms), and it is only used when TLS
 * ALPN picks h2, which undici offers only with `allowH2`, never set by src/api. Should undici rename the file, the
 * real client is bundled again: slower, still correct.
 */
export const undiciSubset = {
  name: 'undici-subset',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-subset' }));
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.includes('undici') ? { path: 'client-h2', namespace: 'undici-subset' } : undefined,
    );
    b.onLoad({ filter: /^client-h2$/, namespace: 'undici-subset' }, () => ({
      contents:
        "module.exports = () => { throw new Error('HTTP/2 is not part of this build (allowH2 is never set)'); };",
      loader: 'js',
    }));
    b.onLoad({ filter: /^undici$/, namespace: 'undici-subset' }, () => ({
      contents: [
        "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
        "import api from 'undici/lib/api/index.js';",
        'Object.assign(Dispatcher.prototype, api);',
        "export { default as Agent } from 'undici/lib/dispatcher/agent.js';",
        "export { default as EnvHttpProxyAgent } from 'undici/lib/dispatcher/env-http-proxy-agent.js';",
        "export { default as Dispatcher } from 'undici/lib/dispatcher/dispatcher.js';",
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/**
 * commander requires node:child_process when it loads, for external-executable subcommands, which taskctl does not
 * have (~1 ms). It gets a stand-in that requires the real module on first use.
 */
export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: args.path, namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require(${JSON.stringify(args.path)}))[key] });`,
      loader: 'js',
    }));
  },
};

/**
 * The sandbox server is its own file, dist/sandbox.cjs: only `--sandbox` and `taskctl sandbox` load it, and the CLI
 * bundle every other command reads stays ~300 kB smaller.
 */
export const sandboxApart = {
  name: 'sandbox-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]sandbox[\\/]index\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './sandbox.cjs', external: true } : undefined,
    );
  },
};
