/**
 * The context has no side effects of its own: building it (the printer and its output format) reads flags, environment
 * and the profile only. `--sandbox` starts a server when a command first needs the API, and stdin is read only by the
 * command that asked for it (`--api-key-file -` is read when the key is needed).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { InputStream } from '../../src/output/io.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl } from './commands/run-in-process.js';

const sandboxes = vi.hoisted(() => ({ started: 0 }));
vi.mock('../../src/sandbox/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/sandbox/index.js')>();
  return {
    ...real,
    startSandbox: (...args: Parameters<typeof real.startSandbox>) => {
      sandboxes.started++;
      return real.startSandbox(...args);
    },
  };
});

/** Stdin that counts how often it is read and yields `text` once. */
function countingStdin(text: string): InputStream & { reads: number } {
  const stdin = {
    isTTY: false,
    reads: 0,
    async *[Symbol.asyncIterator]() {
      stdin.reads++;
      await Promise.resolve();
      yield text;
    },
  };
  return stdin;
}

describe('context without side effects', () => {
  it('`--sandbox config path` prints the path without starting a sandbox', async () => {
    sandboxes.started = 0;
    const result = await runTaskctl(['--sandbox', 'config', 'path'], { env: { TASKCTL_CONFIG_DIR: '/cfg' } });
    expect(result).toMatchObject({ code: 0, stdout: '/cfg/config.json\n' });
    expect(sandboxes.started).toBe(0);
  });

  it('`--sandbox balance` starts one sandbox and talks to it', async () => {
    sandboxes.started = 0;
    const result = await runTaskctl(['--sandbox', 'balance', '-o', 'json'], {});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ currency: expect.any(String) });
    expect(sandboxes.started).toBe(1);
  });

  it('`--api-key-file - config path` leaves stdin unread', async () => {
    const stdin = countingStdin('sk_from_stdin_1234\n');
    const result = await runTaskctl(['--api-key-file', '-', 'config', 'path'], { stdinStream: stdin });
    expect(result.code).toBe(0);
    expect(stdin.reads).toBe(0);
  });

  it('`--api-key-file -` is read once, by the command that needs the key', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 3, currency: 'coins' } });
    const stdin = countingStdin('sk_from_stdin_1234\n');
    const result = await runTaskctl(['--api-key-file', '-', 'balance', '-o', 'tsv'], {
      api,
      env: { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: undefined },
      stdinStream: stdin,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(stdin.reads).toBe(1);
    expect(api.headers[0]?.['x-api-key']).toBe('sk_from_stdin_1234');
    expect(api.headers[0]?.['x-api-key']).not.toBe(API_KEY);
  });

  it('takes the output format from the profile, and leaves a bad key file to the command that needs the key', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-context-'));
    try {
      expect((await runTaskctl(['config', 'set', 'output', 'json'], { home })).code).toBe(0);
      const api = mockApi();
      api.reply('GET', '/balance', 200, { success: true, data: { balance: 3, currency: 'coins' } });
      const result = await runTaskctl(['balance'], { api, home });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ balance: 3, currency: 'coins' });

      const unread = await runTaskctl(['--api-key-file', join(home, 'missing'), 'config', 'path'], { home });
      expect(unread.code).toBe(0);
      const needed = await runTaskctl(['--api-key-file', join(home, 'missing'), 'balance'], { api: mockApi(), home });
      expect(needed.code).toBe(2);
      expect(needed.stderr).toMatch(/^error: cannot read --api-key-file .*missing: no such file or directory$/m);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("the config's warnings while the format is read are printed as every warning: wrapped, `warning:` in yellow", async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-context-'));
    try {
      mkdirSync(join(home, 'config'));
      chmodSync(join(home, 'config'), 0o755);
      const result = await runTaskctl(['config', 'path'], {
        home,
        stderrTTY: true,
        columns: 60,
        env: { FORCE_COLOR: '1' },
      });
      expect(result.code).toBe(0);
      const rows = result.stderr.trimEnd().split('\n');
      expect(rows[0]).toMatch(/^\x1b\[33mwarning:\x1b\[39m config directory\b/);
      expect(rows.join(' ')).toMatch(/was accessible to others \(755\); tightened to 700$/);
      for (const row of rows) expect(row.replace(/\x1b\[\d+m/g, '').length, row).toBeLessThanOrEqual(59);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
