/**
 * `taskctl sandbox` as a user runs it: export lines on stdout, usable at once, clean stop that saves --state. The
 * sandbox and a port in use (an error of the sandbox's own bundle keeps its exit code) are the bin; the commands
 * against it and the refused flags run `main()` in this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { BIN, exitOf, isolatedHome, runCli, waitFor, type IsolatedHome } from './spawn-cli.js';

let home: IsolatedHome | undefined;
let sandbox: ChildProcess | undefined;
// A sandbox left running by a failed test is stopped, and has exited, before its home goes.
afterEach(async () => {
  const running = sandbox;
  if (running?.exitCode === null && running.signalCode === null) {
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }
  sandbox = undefined;
  home?.cleanup();
  home = undefined;
});

describe('taskctl sandbox', () => {
  it('prints export lines, serves the API, and saves its state on SIGTERM with exit 0', async () => {
    home = isolatedHome();
    const state = join(home.dir, 'sandbox.json');
    const child = spawn(
      process.execPath,
      [BIN, 'sandbox', '--port', '0', '--item-ms', '0', '--balance', '50', '--state', state],
      {
        env: { PATH: process.env.PATH ?? '', ...home.env },
      },
    );
    sandbox = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    // stdout and stderr are two pipes: the export lines may come before the dashboard's line or after it.
    await waitFor(() => stdout.includes('TASKCTL_API_KEY=') && stderr.includes('dashboard: '), {
      timeoutMs: 30_000,
      describe: () => `the sandbox did not start: stdout ${stdout}, stderr ${stderr}`,
    });
    const env = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.replace(/^export /, '').split('=', 2) as [string, string]),
    );
    expect(env.TASKCTL_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(env.TASKCTL_API_KEY).toBe('sk_sandbox_0000');
    // stdout keeps only the two export lines; the dashboard's address is logged on stderr.
    expect(stdout.trim().split('\n')).toHaveLength(2);
    const origin = (env.TASKCTL_BASE_URL ?? '').replace(/\/api\/v1$/, '');
    expect(stderr).toContain(`dashboard: ${origin}/ (this machine only)`);
    const page = await fetch(`${origin}/`);
    expect(await page.text()).toContain('<title>taskctl sandbox</title>');

    const here = { env: { ...home.env, ...env }, home: home.dir };
    const created = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-q'], here);
    expect(created.code).toBe(0);
    const balance = await runTaskctl(['balance'], here);
    expect(balance.stdout).toBe('49\tcoins\n');

    child.kill('SIGTERM');
    const { code } = await exitOf(child, { timeoutMs: 15_000, describe: () => `stderr so far: ${stderr}` });
    expect(code).toBe(0);
    expect(stderr).toMatch(/state saved/);
    expect(existsSync(state)).toBe(true);
    expect(JSON.parse(readFileSync(state, 'utf8'))).toMatchObject({ balance: 49 });
  });

  it('refuses a bad flag value with exit 2', async () => {
    const result = await runTaskctl(['sandbox', '--port', '70000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port/);
  });

  it('exits 2 with a clear message when the port is in use (not "a bug in taskctl")', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as AddressInfo).port;
      const result = await runCli(['sandbox', '--port', String(port)]);
      expect(result.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(result.stderr).toMatch(/--port 0/);
      expect(result.stderr).not.toMatch(/bug in taskctl/);
      expect(result.code).toBe(2);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  it('exits 2 for a webhook URL off this machine', async () => {
    const result = await runTaskctl(['sandbox', '--port', '0', '--webhook-url', 'https://example.com/hook']);
    expect(result.stderr).not.toMatch(/bug in taskctl/);
    expect(result.stderr).toMatch(/loopback|this machine|localhost/i);
    expect(result.code).toBe(2);
  });
});
