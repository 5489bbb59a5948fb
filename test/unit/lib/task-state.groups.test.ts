/**
 * The vocabulary's groups on the command line: `--until processing` means "working" (a server whose tasks run as
 * `running` satisfies it), and `list --status` takes the groups (`running` = working).
 */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { FakeClock, mockApi, runTaskctl, type MockApi } from '../commands/run-in-process.js';

/** One page of tasks, each with `status`. */
function replyList(api: MockApi, statuses: ReadonlyArray<[number, string]>): void {
  const data = statuses.map(([id, status]) => ({
    id,
    service: 'domain_check_availability',
    status,
    total_items: 1,
    cost: 1,
    created_at: '2025-01-15T12:00:00Z',
  }));
  api.reply('GET', /^\/tasks\?/, 200, {
    success: true,
    data,
    meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: data.length },
  });
}

describe('status groups', () => {
  it('wait --until processing returns once a task of the task-statuses dialect is "running", before its end', async () => {
    const clock = new FakeClock();
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
    const tasks: Array<[number, string]> = [
      [1, 'processing'],
      [2, 'running'],
      [3, 'pending'],
      [4, 'completed'],
      [5, 'in_progress'],
    ];
    replyList(api, tasks);
    const result = await runTaskctl(['list', '--status', 'running', '-q'], { api });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['1', '2', '5']);
  });

  it('list --status ended,waiting: groups combine with each other and with words', async () => {
    const api = mockApi();
    const tasks: Array<[number, string]> = [
      [1, 'queued'],
      [2, 'cancelled'],
      [3, 'processing'],
      [4, 'failed'],
    ];
    replyList(api, tasks);
    const result = await runTaskctl(['list', '--status', 'ended,waiting', '-q'], { api });
    expect(result.stdout.trim().split('\n')).toEqual(['1', '2', '4']);
  });
});
