/**
 * The README's install and quick start, and the package they install, end to end, once: the Install section's commands
 * run as written in bash, in a fresh copy of the files git tracks (no dist/), with `--global` going to a temporary
 * prefix; then the quick start; then the installed `taskctl` through its bin link. `npm pack` runs `prepack` (the
 * release build) in that copy, so the dist/ other e2e files use is never rebuilt under them.
 *
 * `npm ci` is not run for real (a minute of installing what this checkout already has): `npm ci` becomes
 * `npm ci --dry-run --offline`, which fails when package-lock.json does not satisfy package.json, and then links this
 * checkout's node_modules into the copy, where npm ci would have installed it (the dry run runs in a copy without one,
 * as in a fresh clone: with the installed tree there to read and compare it cost a third more); the test also checks that node_modules is exactly what the lock installs (npm's own record,
 * node_modules/.package-lock.json), so the build cannot use a tool package.json does not declare. The install of the
 * tarball is offline: the package has no dependencies to fetch. Proves the tarball holds what the CLI needs and nothing
 * else, and that installing it adds one package and runs no script.
 *
 * Needs npm and npm's cache (the lock's packages, as `npm ci` would). Skip it with TASKCTL_SKIP_PACK_TEST=1.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedHome } from './spawn-cli.js';
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

/** The ```sh blocks of a README section, each as the script it is. */
function shellBlocks(readme: string, heading: string, until?: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  const end = readme.indexOf(until ?? '\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/** A script's commands: its lines that start with a word, comments removed. */
const commands = (script: string) =>
  script
    .split('\n')
    .filter((line) => /^\w/.test(line))
    .map((line) => line.replace(/\s+#.*$/, ''));

/**
 * `npm ci` as the dry run of itself, then this checkout's node_modules linked where it installs (see the head of this
 * file); every other npm command as it is.
 */
const NPM_CI_DRY = `npm() { if [ "$1" = ci ]; then shift; command npm ci --dry-run --offline "$@" && ln -sT '${join(ROOT, 'node_modules')}' node_modules; else command npm "$@"; fi; }`;

describe.skipIf(process.env.TASKCTL_SKIP_PACK_TEST)(
  skippedUnless(
    "the README's install and quick start, and the package",
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
    /** The Install section's run: its output, the tarball's files, where the package went. */
    let installed: Run;
    let files: string[];
    let installedBin: string;
    let installedDir: string;
    const bash = (script: string) => exec('bash', ['-c', script], { cwd: clone, env, timeoutMs: 240_000 });
    /** The installed CLI with nothing from the checkout: only its bin, a private HOME, and PATH for `node`. */
    const taskctl = (args: string[]) => exec(installedBin, args, { env });

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'taskctl-readme-'));
      clone = join(work, 'clone');
      home = isolatedHome();
      for (const file of execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')) {
        if (!file || !existsSync(join(ROOT, file))) continue;
        mkdirSync(dirname(join(clone, file)), { recursive: true });
        cpSync(join(ROOT, file), join(clone, file));
      }
      expect(existsSync(join(clone, 'dist'))).toBe(false);
      expect(existsSync(join(clone, 'node_modules'))).toBe(false);
      const prefix = join(work, 'prefix');
      // npm and npx hand their cache to what they run (`npm test`, `npx vitest`): asking npm costs a third of a second.
      const cache =
        process.env.npm_config_cache || execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
      env = {
        ...home.env,
        PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        LANG: 'C.UTF-8',
        npm_config_prefix: prefix,
        npm_config_cache: cache,
        npm_config_offline: 'true',
        npm_config_audit: 'false',
      };
      expect(install).toHaveLength(1);
      installed = await bash(`${NPM_CI_DRY}\n${install[0] ?? ''}`);
      expect(installed.code, `the Install section failed:\n${installed.stderr}`).toBe(0);
      const [tarball] = readdirSync(clone).filter((name) => name.endsWith('.tgz'));
      files = execFileSync('tar', ['-tzf', join(clone, tarball ?? 'none.tgz')], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line !== '' && !line.endsWith('/'))
        .map((line) => line.replace(/^package\//, ''))
        .sort();
      installedBin = join(prefix, 'bin', 'taskctl');
      installedDir = join(prefix, 'lib', 'node_modules', PKG.name);
    }, 300_000);

    afterAll(() => {
      home?.cleanup();
      // The clone's node_modules is a link: removed, never followed.
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('the build tools are what package-lock.json installs: node_modules holds the lock and nothing else', () => {
      type Packages = Record<string, { version?: string; optional?: boolean }>;
      const lock = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Packages })
        .packages;
      const present = (
        JSON.parse(readFileSync(join(ROOT, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Packages }
      ).packages;
      const differ = Object.keys(present).filter((path) => present[path]?.version !== lock[path]?.version);
      expect(differ).toEqual([]);
      // What the lock has and node_modules has not: only optional packages of other platforms.
      const absent = Object.keys(lock).filter((path) => path !== '' && !present[path] && !lock[path]?.optional);
      expect(absent).toEqual([]);
    });

    it("installs with the Install section's commands: the version, then the sandbox's balance", () => {
      expect(readme).not.toMatch(/<repository>|git clone </);
      expect(commands(install[0] ?? '')[0]).toBe('npm ci');
      expect(installed.stdout).toContain(`${PKG.version}\n`);
      expect(installed.stdout).toContain('10000\tcoins\n');
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
          'dist/plain.cjs',
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
      const output = installed.stdout + installed.stderr;
      expect(output).toMatch(/added 1 package/);
      // npm's own warnings about this machine's npmrc are not the package's; any other warning is (e.g. a missing script).
      const warnings = output
        .split('\n')
        .filter((line) => /npm warn/i.test(line) && !/Unknown (env|user) config/.test(line));
      expect(warnings).toEqual([]);
      expect(existsSync(join(installedDir, 'node_modules'))).toBe(false);
    });

    it('the quick start then runs as the README says (its first line is the Install section in one line)', async () => {
      const [first = '', second = ''] = quickStart;
      const [installLine = '', ...rest] = first.split('\n');
      expect(installLine.replace(/\s+#.*$/, '').split(' && ')).toEqual(commands(install[0] ?? '').slice(0, 3));
      const ok = await bash(rest.join('\n'));
      expect(ok.code, ok.stderr).toBe(0);
      // On a pipe the task is one tab-separated record (the README shows the screen of a terminal).
      expect(ok.stdout).toMatch(/^1\tdomain_check_availability\tcompleted\t/m);
      const failed = await bash(second);
      expect(failed.code, failed.stderr).toBe(0);
      expect(failed.stdout).toMatch(/^1\tdomain_check_availability\tcompleted\t/m);
      expect(failed.stdout.trim().split('\n').at(-1)).toBe('11');
    });

    it('runs `--help` (the texts rendered at build time) and `completion bash` (the shipped script) from the install', async () => {
      const [help, completion] = await Promise.all([taskctl(['--help']), taskctl(['completion', 'bash'])]);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: taskctl \[options\] \[command\]\n/);
      expect(help.stdout).toContain('Exit codes:');
      expect(completion.code, completion.stderr).toBe(0);
      expect(completion.stdout).toBe(readFileSync(join(installedDir, 'completions', 'taskctl.bash'), 'utf8'));
      expect(completion.stdout).toContain('complete -F _taskctl taskctl');
    });

    // The install has no node_modules (checked above), so every run here proves it; the Install section's balance
    // used undici (bundled), and this table uses cli-table3 (bundled, loaded lazily).
    it('needs none of its dependencies at run time: they are bundled into dist/', async () => {
      // `config set` writes the config file.
      const set = await taskctl(['config', 'set', 'output', 'table']);
      expect(set.code, set.stderr).toBe(0);
      const services = await taskctl(['--sandbox', 'services']);
      expect(services.code, services.stderr).toBe(0);
      expect(services.stdout).toMatch(/^SERVICE +NAME +PRICE/);
    });
  },
);
