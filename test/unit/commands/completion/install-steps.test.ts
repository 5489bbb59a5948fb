/**
 * Every completion install step people copy (the README's, `completion --help`'s examples, the `# Install:` lines at
 * the top of the scripts) works in a fresh HOME: a step that writes into a directory makes it first (`mkdir -p`), as a
 * new machine has no `~/.config/fish/completions` (nor `~/.zfunc`). Each step runs in `sh` with a stand-in `taskctl` on
 * PATH; steps that name zsh's `$fpath` or `source` into the running shell are not `sh`'s to run and are left out.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTaskctl } from '../run-in-process.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `step` in sh in a fresh HOME; the files it wrote there, by path under HOME. */
function runStep(step: string): { code: number; stderr: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'taskctl-install-'));
  made.push(root);
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  mkdirSync(home);
  mkdirSync(bin);
  writeFileSync(join(bin, 'taskctl'), '#!/bin/sh\necho "# completion script for $*"\n');
  chmodSync(join(bin, 'taskctl'), 0o755);
  try {
    execFileSync('sh', ['-ec', step], {
      env: { HOME: home, PATH: `${bin}:/usr/bin:/bin` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return { code: 0, stderr: '', home };
  } catch (error) {
    const failed = error as { status?: number; stderr?: Buffer };
    return { code: failed.status ?? -1, stderr: String(failed.stderr ?? ''), home };
  }
}

/** The redirect target of a `taskctl completion SHELL > PATH` step, `~` as HOME. */
function target(step: string, home: string): string | undefined {
  const path = /taskctl completion \w+ > (\S+)/.exec(step)?.[1];
  return path?.startsWith('~/') ? join(home, path.slice(2)) : undefined;
}

/** Without its comment lines, a step `sh` can run that installs a script. */
const runnable = (step: string) => {
  const code = step
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  return !/fpath|source /.test(code) && code.includes('taskctl completion');
};

function expectWorks(step: string) {
  const ran = runStep(step);
  expect(ran.code, `${step}\n${ran.stderr}`).toBe(0);
  const file = target(step, ran.home);
  if (file !== undefined) expect(existsSync(file), file).toBe(true);
}

describe('completion install steps in a fresh HOME', () => {
  it("the README's blocks", () => {
    const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Shell completion'),
      readme.indexOf('\n## ', readme.indexOf('## Shell completion') + 1),
    );
    const blocks = Array.from(section.matchAll(/```sh\n([\s\S]*?)```/g), (m) => m[1] ?? '').filter(runnable);
    expect(blocks.length).toBe(3);
    for (const block of blocks) expectWorks(block);
  });

  it("completion --help's examples: each install line after the mkdir line before it", async () => {
    const help = await runTaskctl(['completion', '--help']);
    const lines = help.stdout
      .slice(help.stdout.indexOf('Examples:'))
      .split('\n')
      .map((line) => line.trim());
    const steps = lines.flatMap((line, i) => {
      if (!runnable(line)) return [];
      const before = lines[i - 1] ?? '';
      return [before.startsWith('mkdir -p ') ? `${before}\n${line}` : line];
    });
    expect(steps.length).toBe(3);
    for (const step of steps) expectWorks(step);
  });

  for (const shell of ['bash', 'zsh', 'fish']) {
    it(`the # Install lines of the ${shell} script`, async () => {
      const script = await runTaskctl(['completion', shell]);
      const steps = Array.from(script.stdout.matchAll(/^# (?:Install| {5}or): (.*)$/gm), (m) => m[1] ?? '').filter(
        runnable,
      );
      expect(steps.length).toBeGreaterThanOrEqual(1);
      for (const step of steps) expectWorks(step);
    });
  }

  it("zsh: the README, --help and the script's header give the same steps: ~/.zfunc made, then put on fpath", async () => {
    const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
    const help = (await runTaskctl(['completion', '--help'])).stdout;
    const script = (await runTaskctl(['completion', 'zsh'])).stdout.split('\n\n')[0] ?? '';
    // A fresh HOME has no ~/.zfunc, and the first directory of zsh's own fpath is not the user's to write.
    for (const [where, text] of [
      ['README', readme.slice(readme.indexOf('## Shell completion'))],
      ['--help', help],
      ['the script', script],
    ] as const) {
      expect(text, where).toContain('mkdir -p ~/.zfunc');
      expect(text, where).toContain('taskctl completion zsh > ~/.zfunc/_taskctl');
      expect(text, where).toContain('fpath=(~/.zfunc $fpath)');
      expect(text, where).not.toContain('${fpath[1]}');
    }
  });
});
