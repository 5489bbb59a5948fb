#!/usr/bin/env node
// `npm run test:node-matrix`: the whole suite under other Node majors, on top of the usual run on the current one (not
// only the e2e tier: Node 24's URL parser keeps a punycode label that does not decode, which only a unit test saw).
// Node binaries come from the npm registry's `node` package (`npm exec --package=node@22`), so nothing but the
// registry is needed; npm caches them after the first run. The e2e tests spawn the CLI with `process.execPath`, so
// running vitest under a Node runs the CLI under it too; PATH gets the same Node first for `#!/usr/bin/env node`.
//
//   tsx scripts/node-matrix.ts            Node 22 and 24
//   tsx scripts/node-matrix.ts 20 22 24   any majors (or exact versions such as 22.12.0)
//   tsx scripts/node-matrix.ts 24 -- test/e2e/read.test.ts   extra arguments go to vitest
import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const versions = (dash === -1 ? argv : argv.slice(0, dash)).filter(Boolean);
const vitestArgs = dash === -1 ? [] : argv.slice(dash + 1);
if (versions.length === 0) versions.push('22', '24');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: string[],
  options: { capture?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: options.env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve({ code: -1, stdout, stderr: String(error) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The path of a Node binary of `version`, fetched through npm (the `node` package) when it is not cached yet. */
async function nodeBinary(version: string): Promise<{ path: string; actual: string }> {
  const result = await run(
    'npm',
    ['exec', '--yes', `--package=node@${version}`, '--', 'node', '-p', 'process.execPath + " " + process.version'],
    { capture: true },
  );
  const line = result.stdout.trim().split('\n').pop() ?? '';
  const [path, actual] = line.split(' ');
  if (result.code !== 0 || !path || !actual)
    throw new Error(
      `npm exec --package=node@${version} failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`,
    );
  return { path, actual };
}

const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const results: Array<{ version: string; actual: string; outcome: string }> = [];
for (const version of versions) {
  process.stderr.write(`\n=== Node ${version}: fetching the binary through npm\n`);
  let node;
  try {
    node = await nodeBinary(version);
  } catch (error) {
    results.push({
      version,
      actual: '?',
      outcome: `not run: ${error instanceof Error ? error.message : String(error)}`,
    });
    continue;
  }
  process.stderr.write(`=== Node ${node.actual} (${node.path}): vitest run ${vitestArgs.join(' ')}\n`);
  const started = Date.now();
  const env = { ...process.env, PATH: `${dirname(node.path)}${delimiter}${process.env.PATH ?? ''}` };
  const result = await run(node.path, [vitest, 'run', ...vitestArgs], { env });
  const seconds = Math.round((Date.now() - started) / 1000);
  results.push({
    version,
    actual: node.actual,
    outcome: result.code === 0 ? `passed (${seconds} s)` : `FAILED, exit ${String(result.code)} (${seconds} s)`,
  });
}

process.stdout.write(`\nNode matrix (current: ${process.version}), vitest run ${vitestArgs.join(' ')}\n`);
for (const r of results) process.stdout.write(`  node@${r.version} → ${r.actual}: ${r.outcome}\n`);
process.exitCode = results.every((r) => r.outcome.startsWith('passed')) ? 0 : 1;
