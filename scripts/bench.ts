#!/usr/bin/env node
// `npm run bench`: the docs/performance.md figures, each beside a baseline measured in the same run, as one Markdown
// table. Timing lives here and never in unit tests. Generated data goes to .bench/ (gitignored).
//
//   tsx scripts/bench.ts [--only startup,dryrun,wait,follow,sandbox,show,job,scale,diff,create] [--runs 30]
//                        [--lines 1000000] [--json FILE] [--show-items 100000] [--sandbox-tasks 200000]
//                        [--nodes 22,24] [--diff-items 1000000,10000000]
//                          [--env clean|inherit] [--no-hyperfine]
//
// Needs a build (dist/). Uses hyperfine, jq and /usr/bin/time when present; a missing tool skips or replaces a figure
// with a note. The start-up section also times `node -e 0` and `balance` under the Node majors of --nodes (default
// 22 and 24; `--nodes ''` for none): their binaries come from the npm registry's node-<os>-<arch> packages, installed
// on first use under .bench/node/<major>/ (a few tens of MB each, kept for the next run). The machine may be shared: start-up figures are medians of runs interleaved in small blocks, so
// load that drifts during the run hits the command and its baseline alike, and the spread is printed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { undiciSubset } from './bundling.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'taskctl.js');
const DIST_SANDBOX = join(ROOT, 'dist', 'sandbox.cjs');
const WORK = join(ROOT, '.bench');
const NODE = process.execPath;

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    runs: { type: 'string', default: '30' },
    lines: { type: 'string', default: '1000000' },
    json: { type: 'string' },
    env: { type: 'string', default: 'clean' },
    'no-hyperfine': { type: 'boolean' },
    'child-memory': { type: 'boolean' },
    'show-items': { type: 'string', default: '100000' },
    'sandbox-tasks': { type: 'string', default: '200000' },
    'diff-items': { type: 'string', default: '1000000,10000000' },
    nodes: { type: 'string', default: '22,24' },
  },
});
const SECTIONS = new Set(
  (flags.only ?? 'startup,dryrun,wait,follow,sandbox,show,job,scale,diff,create').split(',').map((s) => s.trim()),
);
const RUNS = Math.max(5, Number(flags.runs));
const LINES = Math.max(1000, Number(flags.lines));
if (flags.env !== 'clean' && flags.env !== 'inherit') throw new Error('--env is clean or inherit');

/** One line of the final table. `ok` is true/false against a target, or undefined when there is none. */
interface Row {
  figure: string;
  result: string;
  baseline: string;
  ratio: string;
  target: string;
  ok: boolean | undefined;
  note?: string;
}
const rows: Row[] = [];
const notes: string[] = [];
function row(figure: string, result: string, baseline = '', ratio = '', target = '', ok?: boolean): void {
  rows.push({ figure, result, baseline, ratio, target, ok });
  log(
    `  ${figure}: ${result}${baseline ? ` (baseline ${baseline})` : ''}${ratio ? `, ${ratio}` : ''}${ok === false ? '  ← misses target' : ''}`,
  );
}
function skip(figure: string, why: string): void {
  rows.push({ figure, result: 'skipped', baseline: '', ratio: '', target: '', ok: undefined, note: why });
  notes.push(`${figure}: skipped (${why})`);
  log(`  ${figure}: skipped (${why})`);
}
function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

// ---------- small helpers ----------

const median = (xs: number[]): number => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const [low, high] = [s[lo] ?? NaN, s[hi] ?? NaN];
  return low + (high - low) * (pos - lo);
}
const ms = (x: number): string => `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;
const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;
const ratioText = (r: number): string => `${r.toFixed(2)}×`;

/** Spawns and collects; never spawnSync, so the in-process sandbox keeps answering while a child runs. */
interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  exitedAt: number;
}

interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
  onStderrLine?: (line: string, at: number) => void;
}

function run(
  cmd: string,
  args: string[],
  { env = cliEnv(), input, timeoutMs = 120_000, onStderrLine }: RunOptions = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { env, cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (!onStderrLine) return;
      const at = performance.now();
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onStderrLine(line, at);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - started, exitedAt: Date.now() });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

async function hasTool(cmd: string, args = ['--version']): Promise<boolean> {
  try {
    const result = await run(cmd, args, { env: process.env, timeoutMs: 10_000 });
    return result.code === 0;
  } catch {
    return false;
  }
}

/**
 * The environment of every timed process, baselines included, with a private config and cache under .bench/.
 * `--env clean` (default): only PATH and locale from the parent, so the figures do not depend on the shell: e.g.
 * NODE_EXTRA_CA_CERTS makes every Node process parse the certificates at start-up (+40 ms for a 144-certificate bundle).
 * `--env inherit`: the parent's environment, minus TASKCTL_* and CI, which would change what the CLI does.
 */
function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = join(WORK, 'home');
  const inherited: Record<string, string> = {};
  if (flags.env === 'inherit') {
    for (const [key, value] of Object.entries(process.env))
      if (!key.startsWith('TASKCTL_') && key !== 'CI' && value !== undefined) inherited[key] = value;
  }
  return {
    ...inherited,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: home,
    TASKCTL_CONFIG_DIR: join(home, 'config'),
    TASKCTL_CACHE_DIR: join(home, 'cache'),
    TASKCTL_STATE_DIR: join(home, 'state'),
    ...extra,
  };
}

type SandboxModule = typeof import('../src/sandbox/index.ts');
type Sandbox = Awaited<ReturnType<SandboxModule['startSandbox']>>;

async function loadSandbox(): Promise<SandboxModule> {
  if (!existsSync(DIST_SANDBOX))
    throw new Error('dist/sandbox.cjs is missing: run `npm run build` (npm run bench does)');
  return (await import(pathToFileURL(DIST_SANDBOX).href)) as SandboxModule;
}

/** A request to the sandbox; `T` is the shape its documented JSON answer has (the bench trusts its own sandbox). */
async function http<T = unknown>(
  method: string,
  url: string,
  { key, body }: { key?: string; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Creates tasks through the API with a few requests in flight; returns their ids in creation order. */
async function createTasks(
  sandbox: Sandbox,
  count: number,
  itemsFor: (i: number) => string[],
  key = sandbox.apiKey,
): Promise<number[]> {
  const ids = new Array<number>(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const { data } = await http<{ data: { id: number } }>('POST', `${sandbox.url}/tasks`, {
        key,
        body: { service: 'domain_check_availability', items: itemsFor(i) },
      });
      ids[i] = data.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

// ---------- start-up: --version, --help, balance, list -o json ----------

/**
 * Two floors for `balance`: the least any Node client can do for the same GET /balance and printed line. `node:http`:
 * a plain script. `undici`: a bundle of undici and ten lines of code, built as the CLI is and started through the
 * CLI's own dist/boot.cjs (so with the same compile cache). The distance from that floor to `balance` is what
 * taskctl itself costs (commander, config, zod, printer); the floor's distance from `node -e 0` is undici's.
 */
async function buildFloors(): Promise<{ http: string; undici: string }> {
  const { build } = await import('esbuild');
  const dir = join(WORK, 'floor');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'floor.mjs'),
    `import { Agent } from 'undici';
export async function main() {
  const url = new URL(process.env.TASKCTL_BASE_URL + '/balance');
  const agent = new Agent();
  const response = await agent.request({ origin: url.origin, path: url.pathname, method: 'GET', headers: { authorization: 'Bearer ' + process.env.TASKCTL_API_KEY } });
  const { data } = await response.body.json();
  process.stdout.write(data.balance + '\\t' + data.currency + '\\n');
  await agent.close();
  return response.statusCode === 200 ? 0 : 1;
}
`,
  );
  await build({
    entryPoints: [join(dir, 'floor.mjs')],
    outfile: join(dir, 'taskctl.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.18',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: ROOT,
    plugins: [undiciSubset], // the same undici the CLI bundles
  });
  writeFileSync(
    join(dir, 'undici.cjs'),
    `require(${JSON.stringify(join(ROOT, 'dist', 'boot.cjs'))}).boot(process.argv.slice(2), __dirname);\n`,
  );
  writeFileSync(
    join(dir, 'http.cjs'),
    `const url = new URL(process.env.TASKCTL_BASE_URL + '/balance');
require('node:http').get(url, { headers: { authorization: 'Bearer ' + process.env.TASKCTL_API_KEY } }, (response) => {
  let text = '';
  response.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () => {
    const { data } = JSON.parse(text);
    process.stdout.write(data.balance + '\\t' + data.currency + '\\n');
  });
});
`,
  );
  return { http: join(dir, 'http.cjs'), undici: join(dir, 'undici.cjs') };
}

/**
 * Median wall times of `commands` (name → argv) beside `node -e 0`. Runs are interleaved: hyperfine (or the Node
 * fallback) is called in blocks of a few runs per command, round-robin, so a load spike from another process lands on
 * every command rather than on one.
 */
interface Timing {
  median: number;
  p25: number;
  p75: number;
  min: number;
  runs: number;
}

async function timeCommands(
  commands: Record<string, string[]>,
  env: Record<string, string>,
): Promise<Record<string, Timing>> {
  const names = Object.keys(commands);
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const argv = (name: string): string[] => commands[name] ?? [];
  const block = 5;
  const rounds = Math.ceil(RUNS / block);
  const useHyperfine = !flags['no-hyperfine'] && (await hasTool('hyperfine'));
  if (!useHyperfine)
    notes.push(
      'hyperfine not found: start-up times come from the Node fallback harness (spawn → exit), which adds a little spawn overhead to every figure, baseline included',
    );
  const jsonFile = join(WORK, 'hyperfine.json');
  const quote = (arg: string): string => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    if (useHyperfine) {
      const args = ['-N', '--style', 'none', '--warmup', '1', '--runs', String(block), '--export-json', jsonFile];
      for (const name of order) args.push('-n', name);
      for (const name of order) args.push(argv(name).map(quote).join(' '));
      const result = await run('hyperfine', args, { env });
      if (result.code !== 0)
        throw new Error(`hyperfine failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
      const { results } = JSON.parse(readFileSync(jsonFile, 'utf8')) as {
        results: Array<{ command: string; times: number[] }>;
      };
      for (const r of results) times[r.command]?.push(...r.times.map((t) => t * 1000));
    } else {
      for (const name of order) {
        const [cmd = '', ...args] = argv(name);
        await run(cmd, args, { env });
        for (let i = 0; i < block; i++) {
          const result = await run(cmd, args, { env });
          if (result.code !== 0) throw new Error(`${name} exited ${result.code}: ${result.stderr.trim()}`);
          times[name]?.push(result.wallMs);
        }
      }
    }
  }
  return Object.fromEntries(
    names.map((n) => {
      const xs = times[n] ?? [];
      return [
        n,
        { median: median(xs), p25: quantile(xs, 0.25), p75: quantile(xs, 0.75), min: Math.min(...xs), runs: xs.length },
      ];
    }),
  );
}

/**
 * The `node` binary of Node `major` (the newest release of that line), from the npm registry's node-<os>-<arch>
 * package, installed under .bench/node/<major>/ on first use; undefined (with a note) when it cannot be had.
 */
async function otherNode(major: string): Promise<string | undefined> {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  const pkg = `node-${os}-${process.arch}`;
  const dir = join(WORK, 'node', major);
  const binary = join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(binary)) {
    log(`  installing Node ${major} (${pkg}@${major}) under ${dir}`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const args = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', dir];
    const result = await run(npm, [...args, `${pkg}@${major}`], { env: process.env, timeoutMs: 600_000 }).catch(
      (error: unknown) => ({ code: 1, stderr: String(error) }),
    );
    if (result.code !== 0 || !existsSync(binary)) {
      notes.push(
        `Node ${major}: not measured (npm install ${pkg}@${major} failed: ${result.stderr.trim().split('\n').pop() ?? ''})`,
      );
      return undefined;
    }
  }
  return binary;
}

async function benchStartup(): Promise<void> {
  log('start-up: node -e 0 vs taskctl --version / --help / balance / list -o json');
  const majors = flags.nodes
    .split(',')
    .map((m) => m.trim())
    .filter((m) => /^\d+$/.test(m) && m !== process.versions.node.split('.')[0]);
  /** Other Node versions: binary and version, each timed beside its own `node -e 0`. */
  const others: Array<{ binary: string; version: string }> = [];
  for (const major of majors) {
    const binary = await otherNode(major);
    if (binary === undefined) continue;
    const version = (await run(binary, ['--version'], { env: process.env })).stdout.trim();
    others.push({ binary, version });
  }
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0 });
  try {
    await createTasks(sandbox, 100, (i) => [`list-${i}.example.com`]);
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
    const floors = await buildFloors();
    const commands: Record<string, string[]> = {
      'node -e 0': [NODE, '-e', '0'],
      'taskctl --version': [NODE, BIN, '--version'],
      'taskctl --help': [NODE, BIN, '--help'],
      'taskctl balance': [NODE, BIN, 'balance'],
      'taskctl list -o json (100 tasks)': [NODE, BIN, 'list', '--per-page', '100', '-o', 'json'],
      // What a first run after an install or upgrade costs, before the compile cache exists (plus ~1 ms for `env`).
      'taskctl balance, no compile cache': ['env', 'NODE_DISABLE_COMPILE_CACHE=1', NODE, BIN, 'balance'],
      'floor: undici GET /balance': [NODE, floors.undici],
      'floor: node:http GET /balance': [NODE, floors.http],
    };
    // Node 22 and 24 carry the `balance` target: each with its own `node -e 0` and its own undici floor, all
    // interleaved with the rest in this one run.
    for (const { binary, version } of others) {
      commands[`${version}: node -e 0`] = [binary, '-e', '0'];
      commands[`${version}: taskctl balance`] = [binary, BIN, 'balance'];
      commands[`${version}: floor: undici GET /balance`] = [binary, floors.undici];
    }
    // Each command must work before it is timed: a fast failure would look like a fast command.
    for (const [name, [cmd = '', ...args]] of Object.entries(commands)) {
      const result = await run(cmd, args, { env });
      if (result.code !== 0) throw new Error(`${name} exited ${String(result.code)}: ${result.stderr.trim()}`);
      if (name.startsWith('taskctl list') && (JSON.parse(result.stdout) as unknown[]).length !== 100)
        throw new Error('list -o json did not print 100 tasks');
      if (name.includes('balance') && !/^\d+\tcoins$/m.test(result.stdout))
        throw new Error(`balance printed ${JSON.stringify(result.stdout)}`);
    }
    const t = await timeCommands(commands, env);
    const timing = (name: string): Timing => {
      const found = t[name];
      if (!found) throw new Error(`no timing for ${name}`);
      return found;
    };
    const base = timing('node -e 0');
    const spread = (s: Timing): string => `±${Math.round(((s.p75 - s.p25) / 2 / s.median) * 100)}%`;
    row('`node -e 0` (baseline)', `${ms(base.median)} (IQR ${spread(base)})`);
    // The start-up targets of docs/performance.md (balance: a bare undici request alone is about 2.0-2.3×).
    // `balance`'s target is Node 22's and 24's (rows below); on an older Node it is measured, not judged.
    const judged = Number(process.versions.node.split('.')[0]) >= 22;
    const targets: Record<string, number> = {
      'taskctl --version': 1.3,
      'taskctl --help': 1.3,
      ...(judged && { 'taskctl balance': 2.4 }),
    };
    for (const name of Object.keys(commands).slice(1)) {
      if (name.startsWith('v')) continue; // another Node's: below, beside its own `node -e 0`
      const s = timing(name);
      const r = s.median / base.median;
      const target = targets[name];
      row(
        `\`${name}\``,
        `${ms(s.median)} (IQR ${spread(s)})`,
        ms(base.median),
        ratioText(r),
        target ? `≤ ${target}×` : '',
        target ? r <= target : undefined,
      );
    }
    // Rows per other Node version: `balance` and the undici floor beside that Node's own `node -e 0` (the target on
    // Node 22 and 24: docs/performance.md); this Node's are the rows above.
    const BALANCE_TARGET = 2.4;
    const besideOwn = (figure: string, own: Timing, s: Timing, target?: number): void => {
      const r = s.median / own.median;
      row(
        figure,
        `${ms(s.median)} (IQR ${spread(s)})`,
        `${ms(own.median)} (\`node -e 0\`, IQR ${spread(own)})`,
        ratioText(r),
        target === undefined ? '' : `≤ ${target}×`,
        target === undefined ? undefined : r <= target,
      );
    };
    for (const { version } of others) {
      const own = timing(`${version}: node -e 0`);
      besideOwn(`\`taskctl balance\` on Node ${version}`, own, timing(`${version}: taskctl balance`), BALANCE_TARGET);
      besideOwn(
        `\`floor: undici GET /balance\` on Node ${version}`,
        own,
        timing(`${version}: floor: undici GET /balance`),
      );
    }
    notes.push(
      `start-up: median of ${base.runs} runs per command, interleaved in blocks of 5; IQR = half the interquartile range, relative to the median`,
    );
  } finally {
    await sandbox.close();
  }
}

// ---------- create --dry-run of 1,000,000 lines vs jq ----------

async function domainsFile(): Promise<string> {
  const file = join(WORK, `domains-${LINES}.txt`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  log(`  generating ${file}`);
  const out = createWriteStream(file);
  const batch = 10_000;
  for (let i = 0; i < LINES; i += batch) {
    let text = '';
    for (let j = i; j < Math.min(LINES, i + batch); j++) text += `host-${j.toString(36)}.example-${j % 97}.com\n`;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

/** Wall time and peak RSS (KB) of `sh -c script`, with /usr/bin/time or a preload that reports the node child's maxRSS. */
async function measured(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  haveTime: boolean,
): Promise<RunResult & { rssKb: number }> {
  const rssFile = join(WORK, 'maxrss.txt');
  rmSync(rssFile, { force: true });
  let result: RunResult;
  if (haveTime) {
    result = await run('/usr/bin/time', ['-f', '%M', '-o', rssFile, 'sh', '-c', script, 'sh', ...args], { env });
  } else {
    const preload = join(WORK, 'maxrss.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => require('fs').writeFileSync(process.env.BENCH_MAXRSS_FILE, String(process.resourceUsage().maxRSS)));\n",
    );
    result = await run('sh', ['-c', script, 'sh', ...args], {
      env: { ...env, NODE_OPTIONS: `--require ${preload}`, BENCH_MAXRSS_FILE: rssFile },
    });
  }
  const rssKb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) : NaN;
  return { ...result, rssKb };
}

async function benchDryRun(): Promise<void> {
  log(`create --dry-run of ${LINES.toLocaleString('en')} domain lines from stdin vs jq -R . | jq -s .`);
  const file = await domainsFile();
  const haveTime = await hasTool('/usr/bin/time', ['-f', '%M', 'true']);
  if (!haveTime)
    notes.push(
      '/usr/bin/time not found: peak RSS of taskctl from process.resourceUsage().maxRSS (jq RSS not measured)',
    );
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 100_000_000 });
  const runs = 3;
  try {
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey });
    const script = 'cat "$1" | "$2" "$3" create domain_check_availability --dry-run --chunk-size 10000 -o json';
    const cli: Array<RunResult & { rssKb: number }> = [];
    for (let i = 0; i < runs; i++) {
      const result = await measured(script, [file, NODE, BIN], env, haveTime);
      if (result.code !== 0)
        throw new Error(`create --dry-run exited ${String(result.code)}: ${result.stderr.trim().slice(0, 500)}`);
      const summary = JSON.parse(result.stdout) as { items: number };
      if (summary.items !== LINES)
        throw new Error(`create --dry-run counted ${summary.items} items, expected ${LINES}`);
      cli.push(result);
    }
    const wall = median(cli.map((r) => r.wallMs));
    const rss = median(cli.map((r) => r.rssKb));
    let jqWall: number | undefined;
    let jqRss: number | undefined;
    if (await hasTool('jq')) {
      const jq: Array<RunResult & { rssKb: number }> = [];
      for (let i = 0; i < runs; i++) {
        const result = await measured('jq -R . "$1" | jq -s . > /dev/null', [file], process.env, haveTime);
        if (result.code !== 0) throw new Error(`jq exited ${String(result.code)}: ${result.stderr.trim()}`);
        jq.push(result);
      }
      jqWall = median(jq.map((r) => r.wallMs));
      jqRss = haveTime ? median(jq.map((r) => r.rssKb)) : undefined;
    } else notes.push('jq not found: the jq baseline of the dry run is skipped');
    const label = `\`create --dry-run\`, ${LINES.toLocaleString('en')} lines on stdin`;
    row(
      `${label}: wall time`,
      ms(wall),
      jqWall ? `jq ${ms(jqWall)}` : '',
      jqWall ? ratioText(wall / jqWall) : '',
      `≤ 2000 ms, ≤ 1× jq`,
      wall <= 2000 && (jqWall === undefined || wall <= jqWall),
    );
    row(
      `${label}: peak RSS`,
      Number.isFinite(rss) ? mb(rss) : 'n/a',
      jqRss ? `jq ${mb(jqRss)}` : '',
      jqRss ? ratioText(rss / jqRss) : '',
      '≤ 400 MB',
      Number.isFinite(rss) ? rss <= 400 * 1024 : undefined,
    );
    notes.push(
      `dry run: median of ${runs} runs each; \`cat FILE | taskctl create domain_check_availability --dry-run --chunk-size 10000 -o json\` against an in-process sandbox, beside \`jq -R . FILE | jq -s . > /dev/null\`; peak RSS is the largest single process of each pipeline`,
    );
  } finally {
    await sandbox.close();
  }
}

// ---------- wait on 300 tasks under the default rate limit ----------

async function benchWait(): Promise<void> {
  const count = 300;
  const budget = Math.ceil(count / 100) + 1;
  log(`wait on ${count} tasks, rate limit 100/min`);
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 100, itemMs: 300 });
  try {
    // 300 creates would spend three minutes of a 100/min budget. The limit is counted per presented key, so the tasks
    // are created under keys that are rotated away (admin API), and `wait` starts with a fresh key and a fresh budget.
    const ids: number[] = [];
    let key = sandbox.apiKey;
    for (let done = 0; done < count; done += 90) {
      const n = Math.min(90, count - done);
      ids.push(
        ...(await createTasks(
          sandbox,
          n,
          (i) => Array.from({ length: ((done + i) % 10) + 1 }, (_, j) => `w${done + i}-${j}.example.com`),
          key,
        )),
      );
      ({ apiKey: key } = await http<{ apiKey: string }>('POST', `${sandbox.origin}/__sandbox/rotate-key`));
    }
    await http('POST', `${sandbox.origin}/__sandbox/stats/reset`);
    const requestTimes: number[] = [];
    const env = cliEnv({ TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: key });
    const result = await run(NODE, [BIN, 'wait', '--verbose', '-o', 'json', ...ids.map(String)], {
      env,
      timeoutMs: 150_000,
      onStderrLine: (line, at) => {
        if (/^> (GET|POST) /.test(line)) requestTimes.push(at);
      },
    });
    if (result.code !== 0)
      throw new Error(`wait exited ${String(result.code)}: ${result.stderr.trim().split('\n').slice(-5).join('\n')}`);
    const stats = await http<{ total: number; rateLimited: number; requests: Record<string, number> }>(
      'GET',
      `${sandbox.origin}/__sandbox/stats`,
    );
    const state = await http<{ tasks: Array<{ completed_at?: string; failed_at?: string }> }>(
      'GET',
      `${sandbox.origin}/__sandbox/state`,
    );
    const finishedAt = Math.max(...state.tasks.map((t) => Date.parse(t.completed_at ?? t.failed_at ?? '')));
    // A poll round is a burst of requests; rounds are at least the poll interval (2 s, growing) apart.
    const rounds: Array<{ first: number; last: number; n: number }> = [];
    for (const at of requestTimes) {
      let round = rounds.at(-1);
      if (round === undefined || at - round.last > 500) rounds.push((round = { first: at, last: at, n: 0 }));
      round.last = at;
      round.n++;
    }
    const perRound = rounds.map((r) => r.n);
    row(
      `\`wait\` on ${count} tasks: requests`,
      `${stats.total} in ${rounds.length} rounds (${result.wallMs > 0 ? (result.wallMs / 1000).toFixed(1) : '?'} s)`,
      '',
      '',
      '',
    );
    row(
      `\`wait\` on ${count} tasks: requests per poll round (max)`,
      `${Math.max(...perRound)} (rounds: ${perRound.join(' ')})`,
      '',
      '',
      `≤ ⌈N/100⌉+1 = ${budget}`,
      Math.max(...perRound) <= budget,
    );
    row(`\`wait\` on ${count} tasks: 429s drawn`, String(stats.rateLimited), '', '', '0', stats.rateLimited === 0);
    row(`\`wait\` on ${count} tasks: last task finished → wait exited`, ms(result.exitedAt - finishedAt), '', '', '');
    notes.push(
      `wait: sandbox with the default 100 requests/min and 300 ms per item, tasks of 1–10 items; rounds are bursts of \`--verbose\` request lines more than 0.5 s apart; requests and 429s from GET /__sandbox/stats (by route: ${Object.entries(
        stats.requests,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
    );
  } finally {
    await sandbox.close();
  }
}

// ---------- sandbox: GET /balance throughput, memory of a 10,000-item task ----------

/** `taskctl sandbox ARGS -o json` in its own process, once it printed its URL and key; `stop` ends it. */
async function sandboxChild(
  args: string[],
): Promise<{ url: string; apiKey: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(NODE, [BIN, 'sandbox', '--port', '0', ...args, '-o', 'json'], {
    env: cliEnv(),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL'); // even if the bench itself crashes, the server must not outlive it
  process.once('exit', killOnExit);
  const stop = async () => {
    child.kill('SIGINT');
    await Promise.race([once(child, 'exit'), new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    process.removeListener('exit', killOnExit);
  };
  try {
    let out = '';
    const info = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the sandbox did not start within 10 s')), 10_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        try {
          const parsed = JSON.parse(out) as { url: string; apiKey: string }; // `-o json`: the URL and the key
          clearTimeout(timer);
          resolve(parsed);
        } catch {
          // not complete yet
        }
      });
      child.on('exit', (code) => {
        reject(new Error(`the sandbox exited ${String(code)}`));
      });
    });
    return { ...info, pid: child.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function benchSandboxThroughput(): Promise<void> {
  log('sandbox: GET /balance per second, rate limit off (server in its own process, 32 keep-alive connections)');
  let Pool: typeof import('undici').Pool;
  try {
    ({ Pool } = await import('undici'));
  } catch {
    skip('sandbox GET /balance throughput', 'undici is not installed');
    return;
  }
  const info = await sandboxChild(['--rate-limit', '0']);
  try {
    const url = new URL(info.url);
    const pool = new Pool(url.origin, { connections: 32, pipelining: 1 });
    const path = `${url.pathname.replace(/\/$/, '')}/balance`;
    let ok = 0;
    let other = 0;
    let counting = false;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const { statusCode, body } = await pool.request({ method: 'GET', path, headers: { 'x-api-key': info.apiKey } });
        await body.dump();
        if (!counting) continue;
        if (statusCode === 200) ok++;
        else other++;
      }
    };
    const loops = Array.from({ length: 32 }, loop);
    await new Promise((r) => setTimeout(r, 300)); // warm up: connections open, code optimised
    counting = true;
    const started = performance.now();
    await new Promise((r) => setTimeout(r, 2000));
    counting = false;
    const elapsed = (performance.now() - started) / 1000;
    stop = true;
    await Promise.all(loops);
    await pool.close();
    const rps = ok / elapsed;
    row(
      'sandbox `GET /balance` per second (rate limit off)',
      `${Math.round(rps).toLocaleString('en')}/s${other ? ` (${other} non-200)` : ''}`,
      '',
      '',
      '≥ 5,000/s',
      rps >= 5000 && other === 0,
    );
    notes.push(
      "throughput: `taskctl sandbox --rate-limit 0` in its own process, an undici Pool with 32 keep-alive connections in the bench process, 0.3 s warm-up then 2 s counted; both share the machine's cores",
    );
  } finally {
    await info.stop();
  }
}

/** VmRSS and VmHWM (KB) of a process, from /proc. */
function rssOf(pid: number): { rssKb: number; hwmKb: number } {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/**
 * The sandbox (its own process, default item time) after `--sandbox-tasks` (default 200,000) one-item tasks created
 * through its API with the rate limit off: RSS, and what each stored task adds over the same sandbox holding one.
 */
async function benchSandboxTaskMemory(): Promise<void> {
  const count = Math.max(1000, Number(flags['sandbox-tasks']));
  const figure = `sandbox: ${count.toLocaleString('en')} one-item tasks created through the API: RSS / per task`;
  if (!existsSync('/proc/self/status')) {
    skip(figure, 'no /proc to read the RSS from');
    return;
  }
  log(`sandbox: memory of ${count.toLocaleString('en')} one-item tasks created through the API`);
  const { Pool } = await import('undici');
  const info = await sandboxChild(['--rate-limit', '0', '--balance', String(count * 10)]);
  try {
    const url = new URL(info.url);
    const pool = new Pool(url.origin, { connections: 8, pipelining: 1 });
    const path = `${url.pathname.replace(/\/$/, '')}/tasks`;
    const headers = { 'x-api-key': info.apiKey, 'content-type': 'application/json' };
    const create = async (i: number) => {
      const body = JSON.stringify({ service: 'domain_check_availability', items: [`task-${i}.example.com`] });
      const response = await pool.request({ method: 'POST', path, headers, body });
      await response.body.dump();
      if (response.statusCode !== 201) throw new Error(`POST /tasks answered ${response.statusCode}`);
    };
    await create(0);
    const one = rssOf(info.pid);
    let next = 1;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) await create(i);
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await new Promise((r) => setTimeout(r, 1000)); // the last tasks finish (item time 200 ms)
    const all = rssOf(info.pid);
    await pool.close();
    const perTask = ((all.rssKb - one.rssKb) * 1024) / (count - 1);
    row(
      figure,
      `${mb(all.rssKb)} (peak ${mb(all.hwmKb)}), ${Math.round(perTask)} B a task`,
      `one task: ${mb(one.rssKb)}`,
      '',
      '≤ 300 MB, ≤ 1 KB a task',
      all.hwmKb <= 300 * 1024 && perTask <= 1024,
    );
  } finally {
    await info.stop();
  }
}

/** Runs in a child (`--child memory`, with --expose-gc): heap and RSS growth from one 10,000-item task. */
async function memoryChild(): Promise<void> {
  const { startSandbox } = await loadSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimit: 0, itemMs: 0, balance: 1_000_000 });
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await new Promise((r) => setTimeout(r, 20));
    }
    const m = process.memoryUsage();
    return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss };
  };
  // Warm-up: the same requests once with a small task, so fetch and the server's code paths are loaded before measuring.
  const small = await createTasks(sandbox, 1, () => ['warm.example.com']);
  await http('GET', `${sandbox.url}/tasks/${small[0]}`, { key: sandbox.apiKey });
  const before = await settle();
  const items = Array.from({ length: 10_000 }, (_, i) => `memory-${i}.example.com`);
  const [id] = await createTasks(sandbox, 1, () => items);
  items.length = 0;
  const after = await settle();
  const gets: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await http('GET', `${sandbox.url}/tasks/${id}`, { key: sandbox.apiKey });
    gets.push(performance.now() - t0);
  }
  await sandbox.close();
  process.stdout.write(
    JSON.stringify({ heapDelta: after.heap - before.heap, rssDelta: after.rss - before.rss, getMs: median(gets) }),
  );
}

async function benchSandboxMemory(): Promise<void> {
  log('sandbox: memory of a 10,000-item task');
  // process.execArgv: the child runs this file as the bench does (through tsx's loader on Node 20).
  const result = await run(
    NODE,
    [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), '--child-memory'],
    {
      env: { ...process.env },
      timeoutMs: 60_000,
    },
  );
  if (result.code !== 0)
    throw new Error(`memory child exited ${String(result.code)}: ${result.stderr.trim().slice(0, 500)}`);
  const m = JSON.parse(result.stdout) as { heapDelta: number; rssDelta: number; getMs: number };
  row(
    'sandbox: memory held by a 10,000-item task (heap after GC)',
    `${(m.heapDelta / 1024 / 1024).toFixed(2)} MB`,
    '',
    '',
    '',
  );
  row('sandbox: `GET /tasks/:id` of that task (finished, median of 5)', ms(m.getMs), '', '', '');
}

// ---------- show of a large task (every output linear in the items) ----------

/**
 * `show` of one task with `--show-items` items (default 100,000) in table, csv and ndjson, from a loopback server that
 * answers GET /tasks/1 with a prebuilt body (the sandbox's per-task item cap is lower). Before the fix, table took
 * 3.8 s for 10k items and over 300 s for 100k (cli-table3's layout is quadratic).
 */
async function benchShow() {
  const count = Math.max(1, Number(flags['show-items']));
  const items = Array.from({ length: count }, (_, i) => ({
    target: `domain-${i}.com`,
    status: i % 10 === 0 ? 'failed' : 'completed',
    data: i % 10 === 0 ? null : { available: i % 3 === 0, whois: { registrar: `R${i % 7}` } },
    ...(i % 10 === 0 ? { error: 'lookup failed' } : {}),
  }));
  const { server } = await serveFinishedTask(items);
  try {
    const { port } = server.address() as AddressInfo;
    const env = cliEnv({ TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: 'sk_bench_show' });
    for (const format of ['table', 'csv', 'ndjson']) {
      const result = await run(NODE, [BIN, 'show', '1', '-o', format], { env, timeoutMs: 600_000 });
      const figure = `\`show -o ${format}\` of a ${count.toLocaleString('en')}-item task`;
      if (result.code !== 0) skip(figure, `exit ${result.code}: ${result.stderr.split('\n')[0]}`);
      else row(figure, ms(result.wallMs), '', '', '≤ 10 s', result.wallMs <= 10_000);
    }
  } finally {
    server.close();
  }
  await benchShowMemory();
}

/** A loopback server answering every request with task 1, completed, holding `items` (the show figures' answer). */
async function serveFinishedTask(items: unknown[]): Promise<{ server: ReturnType<typeof createServer>; body: string }> {
  const task = {
    id: 1,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: items.length,
    cost: items.length,
    created_at: '2026-01-01T00:00:00Z',
    completed_at: '2026-01-01T00:10:00Z',
    items,
  };
  const body = JSON.stringify({ success: true, data: task });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, body };
}

/**
 * Peak RSS of `show -o json|tsv|ndjson` on a 60 MiB answer of long strings (1,000 items of 60,000 characters), within
 * the 64 MiB body cap, next to the answer's size (≤ 300 MB in every format; it was 958/735/621 MB).
 */
async function benchShowMemory(): Promise<void> {
  const text = 'x'.repeat(60_000);
  const items = Array.from({ length: 1000 }, (_, i) => ({ target: `d${i}.io`, status: 'completed', data: { text } }));
  const { server, body } = await serveFinishedTask(items);
  const haveTime = await hasTool('/usr/bin/time', ['-f', '%M', 'true']);
  const size = `${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MiB answer`;
  try {
    const { port } = server.address() as AddressInfo;
    const env = cliEnv({ TASKCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TASKCTL_API_KEY: 'sk_bench_show' });
    for (const format of ['json', 'tsv', 'ndjson']) {
      const script = '"$1" "$2" show 1 -o "$3" > /dev/null';
      const result = await measured(script, [NODE, BIN, format], env, haveTime);
      const figure = `peak RSS of \`show -o ${format}\` on a 60 MiB long-string answer`;
      if (result.code !== 0) skip(figure, `exit ${result.code}: ${result.stderr.split('\n')[0]}`);
      else {
        const mb = result.rssKb / 1024;
        row(
          figure,
          `${mb.toFixed(0)} MB`,
          size,
          `${(mb / (Buffer.byteLength(body) / 1024 / 1024)).toFixed(1)}×`,
          '≤ 300 MB',
          mb <= 300,
        );
      }
    }
  } finally {
    server.close();
  }
}

// ---------- main ----------

async function section(name: string, fn: () => Promise<void>, figure: string): Promise<void> {
  try {
    await fn();
  } catch (error) {
    skip(figure, `${name} failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  }
}

function markdown(): string {
  const lines = ['| Figure | Result | Baseline (same run) | Ratio | Target | Met |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const met = r.ok === undefined ? '' : r.ok ? 'yes' : '**no**';
    lines.push(
      `| ${r.figure} | ${r.result}${r.note ? ` (${r.note})` : ''} | ${r.baseline} | ${r.ratio} | ${r.target} | ${met} |`,
    );
  }
  return lines.join('\n');
}

if (flags['child-memory']) {
  await memoryChild();
} else {
  if (!existsSync(join(ROOT, 'dist', 'taskctl.cjs'))) {
    log('dist/taskctl.cjs is missing: run `npm run build` first (`npm run bench` does).');
    process.exit(2);
  }
  mkdirSync(WORK, { recursive: true });
  rmSync(join(WORK, 'home'), { recursive: true, force: true });
  const started = performance.now();
  const [loadBefore = NaN] = loadavg();
  if (SECTIONS.has('startup')) await section('start-up', benchStartup, 'start-up figures');
  if (SECTIONS.has('dryrun')) await section('dry run', benchDryRun, '`create --dry-run` figures');
  if (SECTIONS.has('wait')) await section('wait', benchWait, '`wait` figures');
  if (SECTIONS.has('follow')) {
    const { benchFollow } = await import('./bench-follow.ts');
    const tools = { row, log, notes, run, NODE, BIN, ROOT, cliEnv, loadSandbox };
    await section('follow', () => benchFollow(tools), 'follow policy figures');
  }
  if (SECTIONS.has('sandbox')) {
    await section('throughput', benchSandboxThroughput, 'sandbox GET /balance throughput');
    await section('memory', benchSandboxMemory, 'sandbox memory of a 10,000-item task');
    await section('task memory', benchSandboxTaskMemory, 'sandbox memory per stored one-item task');
  }
  if (SECTIONS.has('show')) await section('show', benchShow, '`show` of a large task');
  if (SECTIONS.has('job')) {
    const { benchShowJob } = await import('./bench-job.ts');
    const tools = { row, skip, log, notes, run, measured, hasTool, NODE, BIN, WORK, cliEnv, loadSandbox };
    await section('job', () => benchShowJob(tools), '`show --job` figures');
  }
  if (SECTIONS.has('scale')) {
    const { benchScale } = await import('./bench-scale.ts');
    const tools = { row, skip, log, notes, run, measured, hasTool, NODE, BIN, ROOT, WORK, cliEnv, loadSandbox, rssOf };
    await section('scale', () => benchScale(tools), 'large jobs (docs/performance.md)');
  }
  if (SECTIONS.has('diff')) {
    const { benchDiff } = await import('./bench-diff.ts');
    const sizes = flags['diff-items']
      .split(',')
      .map(Number)
      .filter((n) => n >= 100);
    const tools = { row, skip, log, notes, run, hasTool, NODE, BIN, WORK, cliEnv };
    await section('diff', () => benchDiff(tools, sizes), '`diff` figures');
  }
  if (SECTIONS.has('create')) {
    const { benchCreate } = await import('./bench-create.ts');
    const tools = { row, skip, log, notes, run, hasTool, timeCommands, NODE, BIN, ROOT, WORK, cliEnv, loadSandbox };
    await section('create', () => benchCreate(tools), '`create` of one item beside the build before jobs');
  }
  const seconds = (performance.now() - started) / 1000;
  const header =
    `taskctl ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}, Node ${process.version}, ` +
    `${process.platform}/${process.arch}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ` +
    `environment ${flags.env}${flags.env === 'inherit' && process.env.NODE_EXTRA_CA_CERTS ? ' (with NODE_EXTRA_CA_CERTS)' : ''}, load average ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? NaN).toFixed(2)}, ${new Date().toISOString().slice(0, 10)}, bench took ${seconds.toFixed(0)} s`;
  const text = `${header}\n\n${markdown()}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`;
  process.stdout.write(`\n${text}`);
  const jsonOut = flags.json ?? join(WORK, 'results.json');
  writeFileSync(jsonOut, JSON.stringify({ header, rows, notes }, null, 2));
  writeFileSync(join(WORK, 'results.md'), text);
  if (rows.some((r) => r.ok === false)) log('\nsome figures miss their target (see the Met column)');
}
