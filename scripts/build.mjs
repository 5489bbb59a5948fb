// Bundles src/ into dist/ with esbuild, as CommonJS (the format V8's code cache can be used with on Node 20):
//   dist/boot.cjs     what bin/taskctl.js loads: help from help.json, else taskctl.cjs through the code cache
//   dist/taskctl.cjs  the CLI; modules src/ imports dynamically stay lazy (esbuild wraps them), so a command runs only
//                     the code it needs. Its last line is a build id (a hash of the rest) that names its code cache.
//   dist/help.json    every command's --help, rendered by the CLI itself (src/boot/render-help.ts)
//   dist/sandbox.cjs  the sandbox server alone, for scripts/bench.mjs
//
// Runtime dependencies are bundled too: one file instead of hundreds of package files to resolve and read (see
// "Performance" in README.md for the figures). The price: a fix in a dependency (an undici security release, say)
// reaches users with a taskctl release, not with a reinstall. dist/THIRD_PARTY_LICENSES.txt carries the licences of
// everything bundled.
//
//   node scripts/build.mjs            development build, with linked source maps (node --enable-source-maps ...)
//   node scripts/build.mjs --release  what the package ships: no source maps. `prepack` passes --release; npm also
//                                     runs `prepare` during pack/publish (after prepack), which must not undo it.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const release = process.argv.includes('--release') || ['pack', 'publish'].includes(process.env.npm_command ?? '');

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
const undiciSubset = {
  name: 'undici-subset',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-subset' }));
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => (args.importer.includes('undici') ? { path: 'client-h2', namespace: 'undici-subset' } : undefined));
    b.onLoad({ filter: /^client-h2$/, namespace: 'undici-subset' }, () => ({
      contents: "module.exports = () => { throw new Error('HTTP/2 is not part of this build (allowH2 is never set)'); };",
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
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) => (/[\\/]commander[\\/]/.test(args.importer) ? { path: args.path, namespace: 'lazy-builtin' } : undefined));
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
const sandboxApart = {
  name: 'sandbox-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]sandbox[\\/]index\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './sandbox.cjs', external: true } : undefined));
  },
};

// Built beside dist/ and swapped in, so a CLI or test running from dist/ meanwhile never sees it half-written or gone.
const dist = join(root, 'dist');
const staging = join(root, `.dist-building-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
const result = await build({
  entryPoints: { boot: 'src/boot.ts', taskctl: 'src/bundle.ts', sandbox: 'src/sandbox/index.ts' },
  outdir: staging,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  // `await import('x')` becomes a lazy require of the bundled module: no ESM loader at run time.
  supported: { 'dynamic-import': false },
  platform: 'node',
  target: 'node20.18',
  plugins: [undiciSubset, lazyBuiltins, sandboxApart],
  sourcemap: release ? false : 'linked',
  // Less to read at every start. Also drops comments, the only place non-ASCII text survives (esbuild escapes it in
  // strings): src/boot reads the bundle as latin1, ~2x faster than decoding UTF-8, and the check below keeps it right.
  // Names stay, for readable stack traces (--verbose).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none', // the full licence texts go to THIRD_PARTY_LICENSES.txt instead
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
});

const bundleFile = join(staging, 'taskctl.cjs');
const nonAscii = /[^\x00-\x7f]/.exec(readFileSync(bundleFile, 'latin1'));
if (nonAscii) throw new Error(`dist/taskctl.cjs has a non-ASCII character at offset ${nonAscii.index}; src/boot reads it as latin1`);
const buildId = createHash('sha256').update(readFileSync(bundleFile)).digest('hex').slice(0, 16);
appendFileSync(bundleFile, `// taskctl-build-id: ${buildId}\n`);
const { main, renderHelpTexts } = createRequire(import.meta.url)(bundleFile);
writeFileSync(join(staging, 'help.json'), JSON.stringify(await renderHelpTexts(main)));
writeFileSync(join(staging, 'THIRD_PARTY_LICENSES.txt'), thirdPartyLicenses(result.metafile));
const retired = `${staging}-old`;
if (existsSync(dist)) renameSync(dist, retired);
renameSync(staging, dist);
rmSync(retired, { recursive: true, force: true });

/** Name, version, licence and licence text of every package that contributed code to dist/. */
function thirdPartyLicenses(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.set(match[1], true);
  }
  const sections = [];
  for (const dir of [...packages.keys()].sort()) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, dir)).find((f) => /^licen[cs]e/i.test(f));
    if (!file) throw new Error(`${pkg.name}: no licence file found in ${dir}; add it to THIRD_PARTY_LICENSES by hand`);
    sections.push(`${pkg.name}@${pkg.version} (${pkg.license ?? 'see below'})\n\n${readFileSync(join(root, dir, file), 'utf8').trim()}\n`);
  }
  return `taskctl bundles the following packages in dist/. Their licences follow.\n\n${sections.join(`\n${'-'.repeat(78)}\n\n`)}`;
}
