/** main(argv, deps) → exit code, with in-memory IO: the one place errors become numbers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Deps, GlobalOptions } from '../../src/context.js';
import { main, PLAIN_GLOBALS } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { createMemoryIO, type MemoryIO } from '../../src/output/memory-io.js';
import { FakeClock } from '../clock.js';

const home = mkdtempSync(join(tmpdir(), 'taskctl-main-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function deps(memory: MemoryIO, env: Record<string, string> = {}): Deps {
  return {
    io: memory.io,
    env: {
      TASKCTL_CONFIG_DIR: join(home, 'cfg'),
      TASKCTL_CACHE_DIR: join(home, 'cache'),
      TASKCTL_STATE_DIR: join(home, 'state'),
      ...env,
    },
    clock: new FakeClock(),
    signal: new AbortController().signal,
  };
}

async function run(argv: string[], options: { env?: Record<string, string>; stdinTTY?: boolean } = {}) {
  const memory = createMemoryIO(options.stdinTTY === undefined ? {} : { stdinTTY: options.stdinTTY });
  const code = await main(argv, deps(memory, options.env));
  return { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
}

describe('main', () => {
  it('returns 0 for --version and --help', async () => {
    expect((await run(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:/);
  });

  it('returns 2 for an unknown command with a suggestion, and for a bad flag value', async () => {
    const unknown = await run(['balanse']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean "balance"\?/);
    const bad = await run(['list', '--per-page', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--per-page/);
  });

  it('returns 2 when no base URL is configured, 4 when no key is', async () => {
    const noUrl = await run(['balance']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/no API base URL configured/);
    const noKey = await run(['balance'], { env: { TASKCTL_BASE_URL: 'https://api.example.com' } });
    expect(noKey.code).toBe(4);
    expect(noKey.stderr.trim().split('\n')).toHaveLength(2);
  });

  it('refuses items from a terminal stdin instead of waiting', async () => {
    const result = await run(['create', 'domain_check_availability'], {
      stdinTTY: true,
      env: { TASKCTL_BASE_URL: 'https://api.example.com', TASKCTL_API_KEY: 'sk_x_1234' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no items given/);
  });

  it('scrubs the key from error messages', async () => {
    const result = await run(['--base-url', 'http://sk_secret_9999.example.com', 'balance'], {
      env: { TASKCTL_API_KEY: 'sk_secret_9999' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('sk_secret_9999');
    expect(result.stderr).toContain('[REDACTED]');
  });
});

describe('an error no part of taskctl expected', () => {
  it('a system error that escapes is told in words (no errno name, no Node text): exit 1, the bug hint', async () => {
    const memory = createMemoryIO();
    const denied = Object.assign(new Error("EACCES: permission denied, open '/srv/ids.txt'"), {
      code: 'EACCES',
      errno: -13,
      syscall: 'open',
      path: '/srv/ids.txt',
    });
    const io = Object.defineProperty({ ...memory.io }, 'stdin', {
      get: () => {
        throw denied;
      },
    });
    const env = { TASKCTL_BASE_URL: 'https://api.example.com', TASKCTL_API_KEY: 'sk_x_1234' };
    const code = await main(['wait', '-'], { ...deps(memory, env), io });
    expect(code).toBe(1);
    expect(memory.stderr.text()).toBe(
      'error: unexpected error: permission denied (/srv/ids.txt)\n' +
        'This is a bug in taskctl: please report it with the output of the same command run with --verbose.\n',
    );
  });
});

describe('a command typed alone (run without commander: test/unit/main.without-commander.test.ts)', () => {
  it('gets the global options commander gives it', async () => {
    let seen: GlobalOptions | undefined;
    const program = buildProgram(createMemoryIO().io, (command) => {
      seen = command.optsWithGlobals<GlobalOptions>();
      return Promise.resolve();
    });
    await program.parseAsync(['balance'], { from: 'user' });
    expect(seen).toEqual(PLAIN_GLOBALS);
  });
});
