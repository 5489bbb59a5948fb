/**
 * The published package, end to end: `npm pack` (which runs `prepack`, the release build) in a copy of the project,
 * then a plain `npm install -g` of the tarball into a temporary prefix, then the installed `taskctl` through its bin
 * link. Proves the tarball holds what the CLI needs and nothing else, and that installing it adds one package and runs
 * no script.
 *
 * Needs npm and the npm registry (or npm's cache) for the runtime dependencies; takes 5–30 s.
 * Skip it with TASKCTL_SKIP_PACK_TEST=1 (e.g. offline).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedHome } from './harness.js';
import { skippedUnless } from '../skip-reason.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(process.env.TASKCTL_SKIP_PACK_TEST)(
  skippedUnless('npm package', !process.env.TASKCTL_SKIP_PACK_TEST, 'TASKCTL_SKIP_PACK_TEST is set'),
  () => {
    let work: string;
    let home: ReturnType<typeof isolatedHome> | undefined;
    let files: string[];
    let installedBin: string;
    let installOutput: string;
    let installedDir: string;
    let cliEnv: Record<string, string>;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'taskctl-pack-'));
      home = isolatedHome();
      // Pack a copy: prepack rebuilds dist/, which other e2e files running in parallel are using.
      const copy = join(work, 'project');
      for (const entry of [
        'package.json',
        'package-lock.json',
        'bin',
        'src',
        'scripts',
        'completions',
        'README.md',
        'LICENSE',
        'tsconfig.json',
        // The sandbox bundles the service's contract (served at /openapi.json).
        'docs/openapi.json',
      ]) {
        if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
      }
      symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');

      const packed = await exec('npm', ['pack', '--json', '--pack-destination', work], { cwd: copy });
      expect(packed.code, `npm pack failed:\n${packed.stderr}`).toBe(0);
      const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
      files = info!.files.map((f) => f.path).sort();

      const prefix = join(work, 'prefix');
      const installed = await exec(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          prefix,
          join(work, info!.filename),
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
        ],
        { cwd: work, timeoutMs: 120_000 },
      );
      expect(
        installed.code,
        `npm install of the tarball failed (needs the npm registry or cache):\n${installed.stderr}`,
      ).toBe(0);
      installOutput = installed.stdout + installed.stderr;
      installedBin = join(prefix, 'bin', 'taskctl');
      installedDir = join(prefix, 'lib', 'node_modules', PKG.name);
      // Nothing from the project's checkout: only the installed package, a private HOME, and PATH for `node`.
      cliEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...home.env };
    }, 180_000);

    afterAll(() => {
      home?.cleanup();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('holds the bin, the release build, completions and licences, and nothing else', () => {
      expect(files).toEqual(
        expect.arrayContaining([
          'package.json',
          'LICENSE',
          'bin/taskctl.js',
          'bin/package.json',
          'dist/boot.cjs',
          'dist/taskctl.cjs',
          'dist/sandbox.cjs',
          'dist/help.json',
          'dist/THIRD_PARTY_LICENSES.txt',
        ]),
      );
      expect(files).toEqual(
        expect.arrayContaining(['completions/taskctl.bash', 'completions/taskctl.zsh', 'completions/taskctl.fish']),
      );
      if (existsSync(join(ROOT, 'README.md'))) expect(files).toContain('README.md');
      const unexpected = files.filter(
        (f) =>
          !/^(bin\/[^/]+|dist\/[^/]+\.(cjs|json|txt)|completions\/taskctl\.(bash|zsh|fish)|package\.json|README\.md|LICENSE)$/.test(
            f,
          ),
      );
      expect(unexpected).toEqual([]);
      expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    });

    it('declares no dependencies and no install script: a global install adds exactly one package', () => {
      const manifest = JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest.dependencies).toBeUndefined();
      const scripts = (manifest.scripts ?? {}) as Record<string, string>;
      expect(Object.keys(scripts).filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
      expect(installOutput).toMatch(/added 1 package/);
      // npm's own warnings about this machine's npmrc are not the package's; any other warning is (e.g. a missing script).
      const warnings = installOutput
        .split('\n')
        .filter((line) => /npm warn/i.test(line) && !/Unknown (env|user) config/.test(line));
      expect(warnings).toEqual([]);
      expect(existsSync(join(installedDir, 'node_modules'))).toBe(false);
    });

    it('runs `taskctl --version` from the install', async () => {
      const result = await exec(installedBin, ['--version'], { env: cliEnv });
      expect(result).toEqual({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
    });

    it('runs `taskctl --help` from the install, from the help texts rendered at build time', async () => {
      const result = await exec(installedBin, ['--help'], { env: cliEnv });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: taskctl \[options\] \[command\]\n/);
      expect(result.stdout).toContain('Exit codes:');
    });

    it('runs `taskctl --sandbox balance` from the install', async () => {
      const result = await exec(installedBin, ['--sandbox', 'balance'], { env: cliEnv });
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('10000\tcoins\n');
      expect(result.code).toBe(0);
    });

    // The `completion` command belongs to the completion work; this checks only that the installed CLI serves the same
    // script that the package ships in completions/.
    it('runs `taskctl completion bash` from the install', async () => {
      const result = await exec(installedBin, ['completion', 'bash'], { env: cliEnv });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(readFileSync(join(installedDir, 'completions', 'taskctl.bash'), 'utf8'));
      expect(result.stdout).toContain('complete -F _taskctl taskctl');
    });

    it('needs none of its dependencies at run time: they are bundled into dist/', async () => {
      const modules = join(installedDir, 'node_modules');
      const aside = join(work, 'node_modules-aside');
      if (existsSync(modules)) renameSync(modules, aside);
      try {
        const balance = await exec(installedBin, ['--sandbox', 'balance', '-o', 'json'], { env: cliEnv });
        expect(balance.code, balance.stderr).toBe(0);
        expect(JSON.parse(balance.stdout)).toEqual({ balance: 10000, currency: 'coins' });
        // `config set` writes the config file; tables use cli-table3 (bundled, loaded lazily).
        const set = await exec(installedBin, ['config', 'set', 'output', 'table'], { env: cliEnv });
        expect(set.code, set.stderr).toBe(0);
        const services = await exec(installedBin, ['--sandbox', 'services'], { env: cliEnv });
        expect(services.code, services.stderr).toBe(0);
        expect(services.stdout).toMatch(/^SERVICE +NAME +PRICE/);
      } finally {
        if (existsSync(aside)) renameSync(aside, modules);
      }
    });
  },
);

/** The ```sh blocks of a README section, each as the script it is. */
function shellBlocks(readme: string, heading: string, until?: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  const end = readme.indexOf(until ?? '\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/**
 * The README's install and quick start run as written, in bash, on a fresh clone: the files git tracks (no dist/,
 * no node_modules), `npm ci` for real, `--global` going to a temporary prefix (npm_config_prefix). Slow (npm ci:
 * about a minute with a warm npm cache).
 */
describe.skipIf(process.env.TASKCTL_SKIP_PACK_TEST)(
  skippedUnless(
    "the README's install and quick start",
    !process.env.TASKCTL_SKIP_PACK_TEST,
    'TASKCTL_SKIP_PACK_TEST is set',
  ),
  () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const install = shellBlocks(readme, '## Install');
    const quickStart = shellBlocks(readme, '## Quick start', '\nAgainst the real service');
    let work: string;
    let clone: string;
    let env: Record<string, string>;
    let home: ReturnType<typeof isolatedHome> | undefined;
    const bash = (script: string) => exec('bash', ['-c', script], { cwd: clone, env, timeoutMs: 240_000 });

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'taskctl-readme-'));
      clone = join(work, 'clone');
      home = isolatedHome();
      for (const file of execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')) {
        if (!file || !existsSync(join(ROOT, file))) continue;
        mkdirSync(dirname(join(clone, file)), { recursive: true });
        cpSync(join(ROOT, file), join(clone, file));
      }
      const prefix = join(work, 'prefix');
      const cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
      env = {
        ...home.env,
        PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        LANG: 'C.UTF-8',
        npm_config_prefix: prefix,
        npm_config_cache: cache,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
      };
    });

    // The clone's node_modules is large: removed without blocking, with time to do it on a busy machine.
    afterAll(async () => {
      home?.cleanup();
      if (work) await rm(work, { recursive: true, force: true });
    }, 120_000);

    it("installs from the clone with the Install section's commands; the quick start then runs as the README says", async () => {
      expect(readme).not.toMatch(/<repository>|git clone </);
      expect(install).toHaveLength(1);
      expect(existsSync(join(clone, 'dist'))).toBe(false);
      const installed = await bash(install[0] ?? '');
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(`${PKG.version}\n`);
      expect(installed.stdout).toContain('10000\tcoins\n');

      // The quick start's first line installs the same way, in one line: already done above, so not run twice.
      const [first = '', second = ''] = quickStart;
      const [installLine = '', ...rest] = first.split('\n');
      const commands = (script: string) =>
        script
          .split('\n')
          .filter((line) => /^\w/.test(line))
          .map((l) => l.replace(/\s+#.*$/, ''));
      expect(installLine.replace(/\s+#.*$/, '').split(' && ')).toEqual(commands(install[0] ?? '').slice(0, 3));

      const ok = await bash(rest.join('\n'));
      expect(ok.code, ok.stderr).toBe(0);
      // On a pipe the task is one tab-separated record (the README shows the screen of a terminal).
      expect(ok.stdout).toMatch(/^1\tdomain_check_availability\tcompleted\t/m);
      const failed = await bash(second);
      expect(failed.code, failed.stderr).toBe(0);
      expect(failed.stdout).toMatch(/^1\tdomain_check_availability\tcompleted\t/m);
      expect(failed.stdout.trim().split('\n').at(-1)).toBe('11');
    }, 300_000);
  },
);
