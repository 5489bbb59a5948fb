/**
 * The vocabulary's groups on the command line: `--until processing` means "working" (a server whose tasks run as
 * `running` satisfies it), and `list --status` takes the groups (`running` = working).
 */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { AutoClock, mockApi, runTaskctl } from './harness.js';

describe('status groups', () => {
  it('wait --until processing returns once a task of the task-statuses dialect is "running", before its end', async () => {
    const clock = new AutoClock();
    const sandbox = await startSandbox({
      port: 0,
      clock,
      itemMs: 60_000,
      rateLimit: 0,
      seed: 1,
      dialects: ['task-statuses'],
    });
    try {
      const env = { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, NO_COLOR: '1' };
      const items = ['a.com', 'b.com', 'c.com'];
      const created = await runTaskctl(['create', 'domain_check_availability', ...items, '-q'], { clock, env });
      const id = created.stdout.trim();
      const started = clock.now();
      const result = await runTaskctl(['wait', id, '--until', 'processing', '-o', 'tsv'], { clock, env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/\trunning\t/);
      // Three items of a minute each: the wait ended long before the task could.
      expect(clock.now() - started).toBeLessThan(60_000);
    } finally {
      await sandbox.close();
    }
  });

  it('list --status running lists the working tasks, whatever word the server uses for working', async () => {
    const api = mockApi();
    const task = (id: number, status: string) => ({
      id,
      service: 'domain_check_availability',
      status,
      total_items: 1,
      cost: 1,
      created_at: '2025-01-15T12:00:00Z',
    });
    const tasks = [
      task(1, 'processing'),
      task(2, 'running'),
      task(3, 'pending'),
      task(4, 'completed'),
      task(5, 'in_progress'),
    ];
    api.reply('GET', /^\/tasks\?/, 200, {
      success: true,
      data: tasks,
      meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: tasks.length },
    });
    const result = await runTaskctl(['list', '--status', 'running', '-q'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['1', '2', '5']);
  });

  it('list --status ended,waiting: groups combine with each other and with words', async () => {
    const api = mockApi();
    const task = (id: number, status: string) => ({
      id,
      service: 'domain_check_availability',
      status,
      total_items: 1,
      cost: 1,
      created_at: '2025-01-15T12:00:00Z',
    });
    const tasks = [task(1, 'queued'), task(2, 'cancelled'), task(3, 'processing'), task(4, 'failed')];
    api.reply('GET', /^\/tasks\?/, 200, {
      success: true,
      data: tasks,
      meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: tasks.length },
    });
    const result = await runTaskctl(['list', '--status', 'ended,waiting', '-q'], { api });
    expect(result.stdout.trim().split('\n')).toEqual(['1', '2', '4']);
  });
});
