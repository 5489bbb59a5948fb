/**
 * `-q` alone prints what the next command takes, one a line, at a terminal as in a pipe: each command's output here is
 * fed to the next one as a script would (docs/behaviour.md#quiet). With an explicit `-o` the format wins.
 */
import { describe, expect, it } from 'vitest';
import { sandboxRun } from '../commands/run-in-process.js';

const lines = (text: string) => text.trim().split('\n');

describe('-q: the identifiers the next command takes', () => {
  it('services → create → list → wait → show → create, then retry and balance', async () => {
    const { run } = await sandboxRun(0);
    for (const stdoutTTY of [false, true]) {
      const services = await run(['services', '-q'], { stdoutTTY });
      expect(services.code, services.stderr).toBe(0);
      expect(lines(services.stdout)).toContain('domain_check_availability');
      expect(services.stdout).not.toMatch(/\s(coins|1)\s/);
    }
    const service = lines((await run(['services', '-q'])).stdout)[0] ?? '';
    expect(service).toBe('domain_check_availability');

    const created = await run(['create', service, 'a.com', 'fail-b.com', '-q', '--wait', '--allow-item-failures']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('1\n');

    const listed = await run(['list', '-q'], { stdoutTTY: true, columns: 80 });
    expect(listed.stdout).toBe('1\n');

    const waited = await run(['wait', '-', '-q', '--allow-item-failures'], { stdin: listed.stdout });
    expect(waited).toMatchObject({ code: 0, stdout: '' });

    const shown = await run(['show', '1', '-q'], { stdoutTTY: true, columns: 80 });
    expect(shown.stdout).toBe('a.com\nfail-b.com\n');
    const failedOnly = await run(['show', '1', '--items-status', 'failed', '-q']);
    expect(failedOnly.stdout).toBe('fail-b.com\n');
    const again = await run(['create', service, '-f', '-', '-q'], { stdin: shown.stdout });
    expect(again.stdout).toBe('2\n');

    const retried = await run(['retry', ...lines(created.stdout), '-q', '--yes']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/^\d+\n$/);

    const balance = await run(['balance', '-q'], { stdoutTTY: true });
    expect(balance.stdout).toMatch(/^\d+\n$/);
    expect(Number(balance.stdout)).toBeGreaterThan(0);
  });

  it('create --dry-run: the estimate in coins; config list: the keys set; auth status: nothing, the exit code tells', async () => {
    const { run } = await sandboxRun(0);
    for (const stdoutTTY of [false, true]) {
      const dry = await run(['create', 'domain_check_availability', 'a.com', 'b.com', '--dry-run', '-q'], {
        stdoutTTY,
      });
      expect(dry, dry.stderr).toMatchObject({ code: 0, stdout: '2\n' });
      const keys = await run(['config', 'list', '-q'], { stdoutTTY });
      expect(keys, keys.stderr).toMatchObject({ code: 0, stdout: 'base-url\napi-key\n' });
      expect(await run(['auth', 'status', '-q'], { stdoutTTY })).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const out = await run(['auth', 'status', '-q'], { env: { TASKCTL_API_KEY: undefined } });
    expect(out).toMatchObject({ code: 4, stdout: '' });
    expect(out.stderr).toMatch(/^error: not logged in/);
  });

  it('with an explicit -o the format wins: -q only quiets stderr', async () => {
    const { run } = await sandboxRun(0);
    await run(['create', 'domain_check_availability', 'a.com', '-q']);
    expect(JSON.parse((await run(['balance', '-q', '-o', 'json'])).stdout)).toEqual({
      balance: expect.any(Number) as unknown,
      currency: 'coins',
    });
    expect(lines((await run(['list', '-q', '-o', 'tsv'])).stdout)[0]).toMatch(/^1\tdomain_check_availability\t/);
    expect(lines((await run(['services', '-q', '--json'])).stdout)[0]).toBe('[');
    expect((await run(['show', '1', '-q', '-o', 'csv'])).stdout).toMatch(/^task,target,status/);
  });
});
