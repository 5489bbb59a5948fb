/**
 * The start-up paths of bin/taskctl.js (src/boot.ts): help answered from dist/help.json, and the CLI bundle loaded
 * through the V8 code cache. Both must be invisible: the same bytes and exit codes as the full path.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPaths } from '../../src/boot/render-help.js';
import { main } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { systemClock } from '../../src/core/time.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { BIN, isolatedHome, runCli, startWorld, type E2EWorld, type IsolatedHome } from './harness.js';

/** What commander prints for `args` when stdout is not a terminal, in process, from src/. */
async function fullPath(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const memory = createMemoryIO();
  const code = await main(args, { io: memory.io, env: {}, clock: systemClock, signal: new AbortController().signal });
  return { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
}

const codeCacheDir = (home: IsolatedHome) => join(home.env.TASKCTL_CACHE_DIR, 'v8');
const cacheFiles = (home: IsolatedHome) => (existsSync(codeCacheDir(home)) ? readdirSync(codeCacheDir(home)) : []);

describe('help from dist/help.json', () => {
  const paths = [...commandPaths(buildProgram(createMemoryIO().io, async () => {}))];

  it('covers every command, and each text is exactly what commander prints', async () => {
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const home = isolatedHome();
      try {
        const [fast, full] = await Promise.all([
          runCli([...path, '--help'], { env: home.env }),
          fullPath([...path, '--help']),
        ]);
        expect({ path, ...fast }).toEqual({ path, code: 0, signal: null, stdout: full.stdout, stderr: '' });
        // Answered without loading the CLI bundle: nothing was compiled, so no code cache was written.
        expect(cacheFiles(home)).toEqual([]);
      } finally {
        home.cleanup();
      }
    }
  });

  it('answers `help COMMAND` and `-h` the same way', async () => {
    const expected = (await fullPath(['config', 'set', '--help'])).stdout;
    expect((await runCli(['help', 'config', 'set'])).stdout).toBe(expected);
    expect((await runCli(['config', 'set', '-h'])).stdout).toBe(expected);
  });

  it('leaves other help requests to commander, with the same result', async () => {
    const home = isolatedHome();
    try {
      const withFlag = await runCli(['--profile', 'x', '--help'], { env: home.env });
      expect(withFlag.code).toBe(0);
      expect(withFlag.stdout).toBe((await fullPath(['--help'])).stdout);
      expect(cacheFiles(home)).toHaveLength(1); // the bundle was loaded this time

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

describe('code cache', () => {
  let world: E2EWorld;
  beforeAll(async () => {
    world = await startWorld({ itemMs: 0 });
  });
  afterAll(() => world.close());

  it('is written by the first run, used as is by the next, and changes no output', async () => {
    const first = await world.run(['services', '-o', 'json']);
    expect(first.code).toBe(0);
    const files = cacheFiles(world.home);
    expect(files).toEqual([
      expect.stringMatching(new RegExp(`^[0-9a-f]{16}-${process.version}-${process.arch}\\.bin$`)),
    ]);
    const file = join(codeCacheDir(world.home), files[0]!);
    const before = statSync(file).mtimeMs;

    const second = await world.run(['services', '-o', 'json']);
    expect(second).toEqual(first);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('survives a corrupt cache file, and NODE_DISABLE_COMPILE_CACHE turns it off', async () => {
    const expected = await world.run(['balance', '-o', 'json']);
    const [name] = cacheFiles(world.home);
    writeFileSync(join(codeCacheDir(world.home), name!), 'garbage');
    expect(await world.run(['balance', '-o', 'json'])).toEqual(expected);

    const home = isolatedHome();
    try {
      const off = await world.run(['balance', '-o', 'json'], { env: { ...home.env, NODE_DISABLE_COMPILE_CACHE: '1' } });
      expect(off).toEqual(expected);
      expect(existsSync(codeCacheDir(home))).toBe(false);
    } finally {
      home.cleanup();
    }
  });
});

describe.skipIf(!existsSync('/dev/full'))('output that cannot be written (stdout on a full disk)', () => {
  /** Async: the sandbox answering the CLI runs in this process. */
  async function runToFullDisk(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ status: number | null; stderr: string }> {
    const fd = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', fd, 'pipe'],
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const [status] = (await once(child, 'close')) as [number | null];
      return { status, stderr };
    } finally {
      closeSync(fd);
    }
  }

  it('is one line on stderr and exit 1, for help and for a command', async () => {
    const world = await startWorld({ itemMs: 0 });
    try {
      for (const args of [['--help'], ['services']]) {
        const result = await runToFullDisk(args, world.env);
        expect({ args, status: result.status, stderr: result.stderr }).toEqual({
          args,
          status: 1,
          stderr: 'error: cannot write the output: ENOSPC: no space left on device, write\n',
        });
      }
    } finally {
      await world.close();
    }
  });
});
