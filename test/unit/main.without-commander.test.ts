/**
 * `taskctl balance` typed alone runs without commander (src/main.ts, start-up: docs/performance.md): here every method
 * of commander's Command is watched, and balance prints its line and exit codes as with commander without calling one.
 * That the bundle does not even load commander for it is checked on the built bin (test/e2e/startup.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/main.js';
import { createMemoryIO } from '../../src/output/memory-io.js';
import { FakeClock } from '../clock.js';

/** Names of Command's methods called during a test (a program built, options declared, argv parsed). */
const called: string[] = [];
beforeEach(() => {
  called.length = 0;
  for (const name of Object.getOwnPropertyNames(Command.prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(Command.prototype, name);
    if (name === 'constructor' || typeof descriptor?.value !== 'function') continue;
    const original = descriptor.value as (...args: unknown[]) => unknown;
    vi.spyOn(Command.prototype as unknown as Record<string, (...args: unknown[]) => unknown>, name).mockImplementation(
      function (this: unknown, ...args: unknown[]) {
        called.push(name);
        return original.apply(this, args);
      },
    );
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

const home = mkdtempSync(join(tmpdir(), 'taskctl-plain-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string>) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get('https://api.example.com')
    .intercept({ path: '/api/v1/balance', method: 'GET' })
    .reply(200, { success: true, data: { balance: 1234, currency: 'coins' } });
  const memory = createMemoryIO();
  try {
    const code = await main(argv, {
      io: memory.io,
      env: { TASKCTL_CONFIG_DIR: join(home, 'cfg'), TASKCTL_CACHE_DIR: join(home, 'cache'), ...env },
      clock: new FakeClock(),
      signal: new AbortController().signal,
      dispatcher: agent,
    });
    return { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
  } finally {
    await agent.close();
  }
}

const SERVICE = { TASKCTL_BASE_URL: 'https://api.example.com', TASKCTL_API_KEY: 'sk_test_1234' };

describe('a command typed alone, without commander', () => {
  it('balance prints its line', async () => {
    expect(await run(['balance'], SERVICE)).toEqual({ code: 0, stdout: '1234\tcoins\n', stderr: '' });
    expect(called).toEqual([]);
  });

  it('balance without a configured URL or key: the same errors and exit codes', async () => {
    const noUrl = await run(['balance'], {});
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/^error: no API base URL configured\n/);
    const noKey = await run(['balance'], { TASKCTL_BASE_URL: SERVICE.TASKCTL_BASE_URL });
    expect(noKey.code).toBe(4);
    expect(noKey.stderr).toMatch(/^error: no API key configured\n/);
    expect(called).toEqual([]);
  });

  it('anything else still goes through commander (the watch sees it)', async () => {
    expect(await run(['balance', '-o', 'json'], SERVICE)).toMatchObject({ code: 0, stderr: '' });
    expect(called).toContain('parseAsync');
  });
});
