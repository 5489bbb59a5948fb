/**
 * `taskctl sandbox` in-process: its export lines carry its own key even when the same key is stored as the
 * user's (after the README's `auth login`), so they can be pasted; the key is the sandbox's, not a secret of the user.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../../src/main.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { waitFor } from '../../../wait-for.js';
import { FakeClock } from '../run-in-process.js';

let home = '';
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Runs `taskctl sandbox ...` until its key line is printed, then stops it as Ctrl-C does. */
async function runSandboxUntilReady(argv: string[], env: Record<string, string>, config?: unknown) {
  home = mkdtempSync(join(tmpdir(), 'taskctl-sandbox-export-'));
  if (config) {
    mkdirSync(join(home, 'config'));
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify(config));
  }
  const memory = createMemoryIO();
  const controller = new AbortController();
  const running = main(['sandbox', '--port', '0', ...argv], {
    io: memory.io,
    env: {
      TASKCTL_CONFIG_DIR: join(home, 'config'),
      TASKCTL_CACHE_DIR: join(home, 'cache'),
      TASKCTL_STATE_DIR: join(home, 'state'),
      ...env,
    },
    clock: new FakeClock(),
    signal: controller.signal,
  });
  await waitFor(() => /TASKCTL_API_KEY|apiKey/.test(memory.stdout.text()), {
    describe: () =>
      `no key printed; stdout ${JSON.stringify(memory.stdout.text())}, stderr ${JSON.stringify(memory.stderr.text())}`,
  });
  controller.abort();
  const code = await running;
  return { code, stdout: memory.stdout.text(), stderr: memory.stderr.text() };
}

describe('taskctl sandbox: export lines', () => {
  it('print the sandbox key even when the environment supplies the same key', async () => {
    const result = await runSandboxUntilReady(['--api-key', 'sk_sandbox_0000'], { TASKCTL_API_KEY: 'sk_sandbox_0000' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^export TASKCTL_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v1\nexport TASKCTL_API_KEY=sk_sandbox_0000\n$/,
    );
  });

  it('are followed on stderr by where the dashboard and the contract (/openapi.json) are served', async () => {
    const result = await runSandboxUntilReady([], {});
    const origin = /TASKCTL_BASE_URL=(\S+)\/api\/v1/.exec(result.stdout)?.[1];
    expect(result.stderr).toContain(`dashboard: ${String(origin)}/ (this machine only)`);
    expect(result.stderr).toContain(`contract: ${String(origin)}/openapi.json (OpenAPI 3.1, this machine only)`);
  });

  it('print it in json too, when the key is stored in the profile (after `auth login`)', async () => {
    const result = await runSandboxUntilReady(
      [],
      {},
      {
        profiles: { default: { 'base-url': 'http://127.0.0.1:8787', 'api-key': 'sk_sandbox_0000', output: 'json' } },
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ apiKey: 'sk_sandbox_0000' });
  });

  it('still keep the user key out of stderr when it differs from the sandbox key', async () => {
    const result = await runSandboxUntilReady(['--api-key', 'sk_sandbox_0000'], {
      TASKCTL_API_KEY: 'sk_live_secret_42',
    });
    expect(result.stdout).toContain('export TASKCTL_API_KEY=sk_sandbox_0000\n');
    expect(result.stdout + result.stderr).not.toContain('sk_live_secret_42');
  });
});
