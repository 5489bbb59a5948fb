/**
 * The start-up paths of bin/taskctl.js (src/boot.ts) that need a real process: help answered from dist/help.json
 * without loading the CLI bundle, and Node's compile cache (22.1+). Both must be invisible: the same bytes and exit
 * codes as the full path. That every help text equals commander's is checked in process (test/unit/boot).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { systemClock } from '../../src/lib/time.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import {
  BIN,
  exitOf,
  isolatedHome,
  runCli,
  runProcess,
  startWorld,
  type E2EWorld,
  type IsolatedHome,
} from './spawn-cli.js';
import { missing, skippedUnless } from '../skip-reason.js';

/** What commander prints for `args` when stdout is not a terminal, in process, from src/. */
async function fullPath(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const memory = createMemoryIO();
  const code = await main(args, { io: memory.io, env: {}, clock: systemClock, signal: new AbortController().signal });
  return { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
}

/** Node's compile cache directory under a home; entries appear only once the CLI bundle was compiled (Node 22.1+). */
const compileCacheDir = (home: IsolatedHome) => join(home.env.TASKCTL_CACHE_DIR, 'compile');
const compileCacheEntries = (home: IsolatedHome): string[] =>
  existsSync(compileCacheDir(home)) ? readdirSync(compileCacheDir(home), { recursive: true }).map(String) : [];
/** Whether this Node has `module.enableCompileCache()` (22.1+). */
const hasCompileCache =
  typeof ((await import('node:module')) as { enableCompileCache?: unknown }).enableCompileCache === 'function';

// One sandbox for the file, whose answers no test here changes. Every group below has its own homes: the groups run
// side by side, and so do their tests, each with room for its spawns in a row on a loaded machine (a bound, not a
// measure).
let world: E2EWorld;
beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
});
afterAll(() => world.close());

describe('help from dist/help.json', { concurrent: true, timeout: 90_000 }, () => {
  it('answers `--help`, `help COMMAND` and `-h` with what commander prints for `COMMAND --help`', async () => {
    const home = isolatedHome();
    try {
      const requests: Array<[args: string[], same: string[]]> = [
        [['--help'], ['--help']],
        [
          ['create', '--help'],
          ['create', '--help'],
        ],
        [
          ['help', 'config', 'set'],
          ['config', 'set', '--help'],
        ],
        [
          ['config', 'set', '-h'],
          ['config', 'set', '--help'],
        ],
      ];
      const answers = await Promise.all(
        requests.map(async ([args, same]) => {
          const [fast, full] = await Promise.all([runCli(args, { env: home.env }), fullPath(same)]);
          return [
            { args, ...fast },
            { args, code: 0, signal: null, stdout: full.stdout, stderr: '' },
          ];
        }),
      );
      for (const [fast, full] of answers) expect(fast).toEqual(full);
      // Answered without loading the CLI bundle: nothing was compiled, so Node cached nothing.
      expect(compileCacheEntries(home)).toEqual([]);
    } finally {
      home.cleanup();
    }
  });

  it('leaves other help requests to commander, with the same result', async () => {
    const home = isolatedHome();
    try {
      const withFlag = await runCli(['--profile', 'x', '--help'], { env: home.env });
      expect(withFlag.code).toBe(0);
      expect(withFlag.stdout).toBe((await fullPath(['--help'])).stdout);
      if (hasCompileCache) expect(compileCacheEntries(home)).not.toEqual([]); // the bundle was loaded this time

      const [unknown, expected] = await Promise.all([
        runCli(['nope', '--help'], { env: home.env }),
        fullPath(['nope', '--help']),
      ]);
      expect({ code: unknown.code, stdout: unknown.stdout, stderr: unknown.stderr }).toEqual(expected);
    } finally {
      home.cleanup();
    }
  });
});

describe(
  "the bundle's code cache (boot/code-cache.ts, every Node) and Node's compile cache (Node 22.1+)",
  { concurrent: true, timeout: 90_000 },
  () => {
    it("are saved by a command's first run (the code cache per command) and change no output", async () => {
      const home = isolatedHome();
      try {
        const env = { ...home.env };
        const first = await world.run(['balance', '-o', 'json'], { env });
        expect(first.code, first.stderr).toBe(0);
        const saved = (command: string): string[] =>
          compileCacheEntries(home).filter((entry) =>
            entry.startsWith(join('taskctl', `${command}-${process.version}-${process.arch}-`)),
          );
        expect(saved('balance')).toHaveLength(1);
        // Node's own compile cache, under the same directory beside taskctl's.
        if (hasCompileCache)
          expect(compileCacheEntries(home).filter((entry) => !entry.startsWith('taskctl'))).not.toEqual([]);
        expect(await world.run(['balance', '-o', 'json'], { env })).toEqual(first);
        expect((await world.run(['services', '-o', 'json'], { env })).code).toBe(0);
        expect(saved('services')).toHaveLength(1);
      } finally {
        home.cleanup();
      }
    });

    it('leaves the bundle to Node with --enable-source-maps, so stack traces name the source files', async () => {
      const home = isolatedHome();
      try {
        const env = { ...home.env, NODE_OPTIONS: '--enable-source-maps', TASKCTL_BASE_URL: 'http://127.0.0.1:1' };
        // A request budget of 1 s: one back-off (0.4 s) instead of three (3 s) before the error; Node mapping the
        // source is slow to start, so room for a loaded machine.
        const result = await world.run(['--verbose', 'balance', '--request-timeout', '1s'], { env, timeoutMs: 60_000 });
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(/at \S+ \(\S+\/src\/api\/\S+\.ts:\d+:\d+\)/);
        expect(compileCacheEntries(home).filter((entry) => entry.startsWith('taskctl'))).toEqual([]);
      } finally {
        home.cleanup();
      }
    }, 90_000);

    it('neither is written with NODE_DISABLE_COMPILE_CACHE', async () => {
      const home = isolatedHome();
      try {
        const off = await world.run(['balance'], { env: { ...home.env, NODE_DISABLE_COMPILE_CACHE: '1' } });
        expect(off.code, off.stderr).toBe(0);
        expect(compileCacheEntries(home)).toEqual([]);
      } finally {
        home.cleanup();
      }
    });
  },
);

describe(
  'a cache directory that cannot be made (docs/behaviour.md#files)',
  { concurrent: true, timeout: 90_000 },
  () => {
    // Node's recursive mkdir spins forever, deaf to signals, under /proc and through some dangling symlinks: the run
    // goes on without the caches, with a one-line warning, and ends as it would have.
    it.each(['/proc/nope/c', 'dangling'])('%s: a run without the caches, one warning, exit 0', async (where) => {
      const home = isolatedHome();
      try {
        symlinkSync(join(home.dir, 'gone'), join(home.dir, 'dangling'));
        const cacheDir = where === 'dangling' ? join(home.dir, 'dangling', 'c') : where;
        // runCli fails the test past its bound (a loaded machine's, not a measure): a run that spins never ends.
        // Against the file's sandbox: the cache directory is boot.ts's before any command runs (`--sandbox` cost
        // each run the sandbox's load and start).
        const result = await world.run(['balance'], {
          env: { ...home.env, TASKCTL_CACHE_DIR: cacheDir },
          timeoutMs: 20_000,
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/\d/);
        const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
        expect(warnings).toHaveLength(1);
        if (where === 'dangling')
          expect(warnings[0]).toBe(
            `warning: running without the cache directory ${cacheDir}: ${join(home.dir, 'dangling')} is a symlink to nothing (dangling). Set TASKCTL_CACHE_DIR to a writable directory.`,
          );
        else
          expect(warnings[0]).toMatch(
            /^warning: running without the cache directory \/proc\/nope\/c: \/proc\/nope cannot be made: .+\. Set TASKCTL_CACHE_DIR to a writable directory\.$/,
          );
      } finally {
        home.cleanup();
      }
    });
  },
);

// One process serves both views of `balance -o json`: the built-in modules it loaded (a preload lists them at exit) and
// the bundle's modules that ran (V8 coverage). Coverage only adds a module of its own (a source-map cache), so neither
// list hides what the other would show.
describe(
  'what a command that talks to the API loads and runs (src/main.ts, scripts/bundling.ts)',
  { concurrent: true, timeout: 90_000 },
  () => {
    /**
     * The run's Node built-in modules (`process.moduleLoadList`), the CLI bundle's modules that ran, and which of the
     * two bundles they ran from (dist/taskctl.cjs, or dist/plain.cjs for a plain command typed alone).
     */
    async function loadedAndRun(
      args: string[],
    ): Promise<{ stdout: string; builtins: string[]; modules: string[]; bundles: string[] }> {
      const dir = mkdtempSync(join(world.home.dir, 'coverage-'));
      const preload = join(dir, 'loaded-builtins.cjs');
      writeFileSync(
        preload,
        "process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADED ' + JSON.stringify(process.moduleLoadList)));",
      );
      const coverage = join(dir, 'coverage');
      const result = await world.run(args, {
        env: { NODE_V8_COVERAGE: coverage, NODE_OPTIONS: `--require ${preload}` },
      });
      expect(result.code, result.stderr).toBe(0);
      const builtins = JSON.parse(result.stderr.split('\nLOADED ')[1] ?? '[]') as string[];
      // esbuild names each module's wrapper function after its path.
      const ran = new Set<string>();
      const bundles = new Set<string>();
      for (const file of readdirSync(coverage)) {
        const { result: scripts } = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as {
          result: Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }>;
        };
        for (const script of scripts.filter((s) => /\/dist\/(?:taskctl|plain)\.cjs$/.test(s.url)))
          for (const fn of script.functions)
            if ((fn.ranges[0]?.count ?? 0) > 0 && /^(?:src|node_modules)\//.test(fn.functionName)) {
              ran.add(fn.functionName);
              bundles.add(script.url.replace(/^.*\/dist\//, 'dist/'));
            }
      }
      return { stdout: result.stdout, builtins, modules: [...ran], bundles: [...bundles] };
    }

    it("`balance -o json` loads undici's connection pool only: no fetch, WebSocket, HTTP/2 or Node's own undici; and runs commander and the command tree", async () => {
      const { stdout, builtins: loaded, modules, bundles } = await loadedAndRun(['balance', '-o', 'json']);
      expect(JSON.parse(stdout)).toEqual({ balance: 10000, currency: 'coins' });
      expect(loaded).toContain('NativeModule net'); // the list is real: the request went out through node:net
      const unwanted = ['http2', 'tls', 'zlib', 'worker_threads', 'internal/deps/undici/undici'];
      expect(loaded.filter((name) => unwanted.includes(name.replace(/^NativeModule /, '')))).toEqual([]);
      // Nor what only other commands or rarer paths use (2-3 ms each at start-up): V8 flags (boot.ts sets one
      // on Node 20 only), hashes and random names (a config or cache write, an account key read), commander's executable
      // subcommands (scripts/bundling.ts), stdin and file reads, `taskctl api`'s status texts.
      // Nor chalk's terminal checks when no stream is coloured (output/colour.ts): node:tty.
      const notForBalance = ['crypto', 'child_process', 'dgram', 'stream/consumers', 'fs/promises', 'tty'];
      if (!process.versions.node.startsWith('20.')) notForBalance.push('v8');
      expect(loaded.filter((name) => notForBalance.includes(name.replace(/^NativeModule /, '')))).toEqual([]);
      // The check below sees commander and the command tree when they run.
      expect(modules).toContain('node_modules/commander/lib/command.js');
      expect(modules).toContain('src/program.ts');
      expect(bundles).toEqual(['dist/taskctl.cjs']);
    });

    it('`balance` typed alone runs no commander and no command tree, from dist/plain.cjs, which holds neither', async () => {
      const { modules, bundles } = await loadedAndRun(['balance']);
      expect(modules).toContain('src/core/balance.ts');
      expect(modules.filter((name) => /commander|src\/program\.ts|src\/commands\//.test(name))).toEqual([]);
      // The smaller bundle is the point (docs/performance.md): read and deserialised on every run.
      expect(bundles).toEqual(['dist/plain.cjs']);
      const plain = readFileSync(join(BIN, '..', '..', 'dist', 'plain.cjs'), 'utf8');
      expect(plain.match(/node_modules\/commander\/|src\/program\.ts|src\/commands\//g)).toBeNull();
    });
  },
);

/** A uid the system has no account for: with no HOME, Node's homedir() throws for it (a container's arbitrary user). */
const NO_ACCOUNT_UID = '12345';
const asNoAccount = (command: string[]) => [
  `--reuid=${NO_ACCOUNT_UID}`,
  `--regid=${NO_ACCOUNT_UID}`,
  '--clear-groups',
  ...command,
];
/** Why a run as that uid cannot be played here: root and setpriv to run as it, a uid with no account, a bin it can read. */
function noAccountSkip(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root (setpriv needs it to run as another uid)';
  if (spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status !== 0) return missing('setpriv');
  // Whether node as that uid reads the bin (not runs it: a taskctl that fails there is what the test is for), and
  // finds no account (userInfo() throws): 2 and 3 say which is not so.
  const probe = `try { require('node:fs').readFileSync(${JSON.stringify(BIN)}) } catch { process.exit(2) }
    try { require('node:os').userInfo() } catch { process.exit(0) } process.exit(3)`;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const { status } = spawnSync('setpriv', asNoAccount([process.execPath, '-e', probe]), { stdio: 'ignore', env });
  if (status === 3) return `uid ${NO_ACCOUNT_UID} has an account here`;
  if (status !== 0)
    return `uid ${NO_ACCOUNT_UID} cannot run node or read bin/taskctl.js (a private directory on their path)`;
  return undefined;
}
const noHomeSkip = noAccountSkip();

describe.skipIf(noHomeSkip !== undefined)(
  skippedUnless('with no home at all (no HOME, a uid with no account)', noHomeSkip === undefined, noHomeSkip ?? ''),
  { timeout: 90_000 },
  () => {
    it('works when TASKCTL_*_DIR name every directory; without them, exit 2 naming HOME and TASKCTL_CONFIG_DIR', async () => {
      // Beside the run's private temp dir (0700, which the uid cannot enter) when there is one: /dev/shm or /tmp.
      const temp = statSync(tmpdir()).mode & 0o001 ? tmpdir() : dirname(tmpdir());
      const dir = mkdtempSync(join(temp, 'taskctl-no-home-'));
      try {
        chownSync(dir, Number(NO_ACCOUNT_UID), Number(NO_ACCOUNT_UID));
        const dirs = {
          TASKCTL_CONFIG_DIR: join(dir, 'config'),
          TASKCTL_CACHE_DIR: join(dir, 'cache'),
          TASKCTL_STATE_DIR: join(dir, 'state'),
        };
        const base = {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          LANG: 'C.UTF-8',
          TMPDIR: dir, // the cache's fallback with no home
          TASKCTL_BASE_URL: world.sandbox.url,
          TASKCTL_API_KEY: world.sandbox.apiKey,
        };
        const balance = (env: Record<string, string>) =>
          runProcess('setpriv', asNoAccount([process.execPath, BIN, 'balance', '-o', 'json']), {
            env: { ...base, ...env },
            label: 'balance as a uid with no account',
          });
        const withDirs = await balance(dirs);
        expect(withDirs.stderr).toBe('');
        expect(withDirs.code).toBe(0);
        expect(JSON.parse(withDirs.stdout)).toEqual({ balance: 10000, currency: 'coins' });
        const without = await balance({});
        expect(without.code, without.stderr).toBe(2);
        expect(without.stderr).toMatch(/^error: cannot find your home directory for the config file \(HOME is unset/);
        expect(without.stderr).toMatch(/Set HOME, or TASKCTL_CONFIG_DIR/);
        expect(without.stderr).not.toMatch(/ENOENT|uv_os_homedir|\n\s+at /);
        expect(without.stderr.trim().split('\n')).toHaveLength(2);
      } finally {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      }
    });
  },
);

describe('what the CLI bundle holds', { concurrent: true, timeout: 90_000 }, () => {
  it("zod's English messages only, not its other locales: src/lib/zod.ts re-exports zod name by name", () => {
    // A namespace object re-exported (`export { z }`) keeps every export of zod in the bundle: +450 kB to read at start.
    const bundle = readFileSync(join(BIN, '..', '..', 'dist', 'taskctl.cjs'), 'utf8');
    const locales = new Set(bundle.match(/node_modules\/zod\/v4\/locales\/[\w-]+\.js/g));
    expect([...locales].sort()).toEqual(['node_modules/zod/v4/locales/en.js', 'node_modules/zod/v4/locales/index.js']);
  });
});

describe.skipIf(!existsSync('/dev/full'))(
  skippedUnless('output that cannot be written (a full disk)', existsSync('/dev/full'), 'this system has no /dev/full'),
  { concurrent: true, timeout: 90_000 },
  () => {
    /** Async: the sandbox answering the CLI runs in this process. `full`: which stream goes to /dev/full. */
    async function runToFullDisk(
      args: string[],
      env: Record<string, string>,
      full: 'stdout' | 'stderr' = 'stdout',
    ): Promise<{ status: number | null; stdout: string; stderr: string }> {
      const fd = openSync('/dev/full', 'w');
      try {
        const child = spawn(process.execPath, [BIN, ...args], {
          env: { PATH: process.env.PATH ?? '', ...env },
          stdio: full === 'stdout' ? ['ignore', fd, 'pipe'] : ['ignore', 'pipe', fd],
        });
        let stdout = '';
        let stderr = '';
        child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const { code: status } = await exitOf(child, {
          timeoutMs: 60_000, // the whole run, within the describe's 90 s
          describe: () => `stdout so far: ${stdout}; stderr so far: ${stderr}`,
        });
        return { status, stdout, stderr };
      } finally {
        closeSync(fd);
      }
    }

    it('stdout: one line on stderr and exit 14, for --version, --help, completion and a command', async () => {
      const runs = [['--version'], ['--help'], ['completion', 'bash'], ['services']];
      const results = await Promise.all(runs.map((args) => runToFullDisk(args, world.env)));
      for (const [i, result] of results.entries())
        expect({ args: runs[i], status: result.status, stderr: result.stderr }).toEqual({
          args: runs[i],
          status: 14,
          stderr: expect.stringMatching(/^error: cannot write the output \(the disk is full\)\n$/) as unknown,
        });
    });

    it('stderr: exit 14, nothing added to stdout (a pipe: data), never a stack trace', async () => {
      const result = await runToFullDisk(['show', 'not-a-number'], {}, 'stderr');
      expect(result.status).toBe(14);
      expect(result.stdout).toBe('');
    });
  },
);

/** A 64 KiB tmpfs with two pages free, when this machine lets the test mount one (root in a namespace that allows it). */
const smallDisk = (() => {
  if (process.platform !== 'linux') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-small-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  if (mounted.status === 0) return dir;
  rmSync(dir, { recursive: true, force: true });
  return undefined;
})();
// At the file's level, not the group's: mounted when the file loads, so unmounted too when a filter (-t) skips the group.
afterAll(() => {
  if (smallDisk === undefined) return;
  spawnSync('umount', [smallDisk], { stdio: 'ignore' });
  rmSync(smallDisk, { recursive: true, force: true });
});

describe.skipIf(smallDisk === undefined)(
  skippedUnless('a file on a disk that fills up mid-write', smallDisk, 'this machine cannot mount a small tmpfs'),
  { timeout: 60_000 },
  () => {
    it('one write cut short by the full disk is exit 14 and its line, not a cut file and exit 0', async () => {
      const dir = smallDisk ?? '';
      // 14 of its 16 pages: the completion script (~15 KB, one write) gets 8 KiB in, then ENOSPC.
      writeFileSync(join(dir, 'fill'), Buffer.alloc(14 * 4096));
      const fd = openSync(join(dir, 'out'), 'w');
      try {
        const child = spawn(process.execPath, [BIN, 'completion', 'bash'], {
          env: { PATH: process.env.PATH ?? '', ...world.env },
          stdio: ['ignore', fd, 'pipe'],
        });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const { code: status } = await exitOf(child, {
          timeoutMs: 45_000, // the whole run, within the describe's 60 s
          describe: () => `stderr so far: ${stderr}`,
        });
        expect({ status, stderr }).toEqual({
          status: 14,
          stderr: 'error: cannot write the output (the disk is full)\n',
        });
      } finally {
        closeSync(fd);
      }
    });
  },
);
