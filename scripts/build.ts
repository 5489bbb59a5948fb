// Bundles src/ into dist/ with esbuild, as CommonJS (no ESM loader at start-up):
//   dist/boot.cjs     what bin/taskctl.js loads: help from help.json, else taskctl.cjs (with Node's compile cache)
//   dist/taskctl.cjs  the CLI; modules src/ imports dynamically stay lazy (esbuild wraps them), so a command runs only
//                     the code it needs.
//   dist/plain.cjs    the CLI without commander and the command tree, for a plain command typed alone (`balance`)
//   dist/help.json    every command's --help, rendered by the CLI itself (src/boot/render-help.ts)
//   dist/sandbox.cjs  the sandbox server: required by taskctl.cjs for --sandbox and `sandbox`; scripts/bench.ts too
//
// Runtime dependencies are bundled too: one file instead of hundreds of package files to resolve and read (see
// docs/performance.md for the figures). The price: a fix in a dependency (an undici security release, say)
// reaches users with a taskctl release, not with a reinstall. dist/THIRD_PARTY_LICENSES.txt carries the licences of
// everything bundled. Of undici, only the connection pool is bundled (scripts/bundling.ts, `undiciSubset`).
//
//   tsx scripts/build.ts            development build, with linked source maps (node --enable-source-maps ...)
//   tsx scripts/build.ts --release  what the package ships: no source maps. `prepack` passes --release; npm also
//                                     runs `prepare` during pack/publish (after prepack), which must not undo it.
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Bundle from '../src/bundle.ts';
import { commanderLazySpawn, plainOnly, sandboxApart, undiciSubset } from './bundling.ts';
import { statusToneTable } from '../src/lib/task-state.ts';

interface PackageJson {
  name: string;
  version: string;
  license?: string;
}

const root = new URL('..', import.meta.url).pathname;
const release = process.argv.includes('--release') || ['pack', 'publish'].includes(process.env.npm_command ?? '');

// Built beside dist/ and swapped in, so a CLI or test running from dist/ meanwhile never sees it half-written or gone.
const dist = join(root, 'dist');
const staging = join(root, `.dist-building-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
const options = {
  outdir: staging,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  // `await import('x')` becomes a lazy require of the bundled module: no ESM loader at run time.
  supported: { 'dynamic-import': false },
  platform: 'node',
  target: 'node20.18',
  plugins: [sandboxApart, undiciSubset, commanderLazySpawn],
  // The dashboard's copy of the status vocabulary (src/sandbox/dashboard/script.ts), generated from the vocabulary.
  define: { TASKCTL_STATUS_TONES: JSON.stringify(JSON.stringify(statusToneTable())) },
  sourcemap: release ? false : 'linked',
  // Less to read and compile at every start. Names stay, for readable stack traces (--verbose).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none', // the full licence texts go to THIRD_PARTY_LICENSES.txt instead
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
} satisfies BuildOptions;
const result = await build({
  ...options,
  entryPoints: { boot: 'src/boot.ts', taskctl: 'src/bundle.ts', sandbox: 'src/sandbox/index.ts' },
});
// The CLI again without main's commander path, for a plain command typed alone (src/boot.ts); a subset of the above, so
// the licences are the same.
await build({ ...options, entryPoints: { plain: 'src/plain-bundle.ts' }, plugins: [plainOnly, ...options.plugins] });

const bundleFile = join(staging, 'taskctl.cjs');
const { main, renderHelpTexts } = createRequire(import.meta.url)(bundleFile) as typeof Bundle;
writeFileSync(join(staging, 'help.json'), JSON.stringify(await renderHelpTexts(main)));
writeFileSync(join(staging, 'THIRD_PARTY_LICENSES.txt'), thirdPartyLicenses(result.metafile));
const retired = `${staging}-old`;
if (existsSync(dist)) renameSync(dist, retired);
renameSync(staging, dist);
rmSync(retired, { recursive: true, force: true });

/** Name, version, licence and licence text of every package that contributed code to dist/. */
function thirdPartyLicenses(metafile: Metafile): string {
  const packages = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) packages.add(match[1]);
  }
  const sections = [];
  for (const dir of [...packages].sort()) {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as PackageJson;
    const file = readdirSync(join(root, dir)).find((f) => /^licen[cs]e/i.test(f));
    if (!file) throw new Error(`${pkg.name}: no licence file found in ${dir}; add it to THIRD_PARTY_LICENSES by hand`);
    sections.push(
      `${pkg.name}@${pkg.version} (${pkg.license ?? 'see below'})\n\n${readFileSync(join(root, dir, file), 'utf8').trim()}\n`,
    );
  }
  return `taskctl bundles the following packages in dist/. Their licences follow.\n\n${sections.join(`\n${'-'.repeat(78)}\n\n`)}`;
}
