/**
 * One status vocabulary: a completed task with failed items is yellow, never green, in every place that shows it
 * (`list`, `show`, `watch`, `wait`'s lines); green only with counts that show no failure; plain without counts.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl } from '../commands/run-in-process.js';

const ESC = '\x1b';
const GREEN = `${ESC}[32m`;
const YELLOW = `${ESC}[33m`;
const colour = { stdoutTTY: true, columns: 120, env: { FORCE_COLOR: '1' } };

function task(id: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 8,
    completed_items: 7,
    failed_items: 1,
    cost: 8,
    created_at: '2025-01-15T11:00:00Z',
    completed_at: '2025-01-15T11:01:00Z',
    ...extra,
  };
}

const page = (tasks: unknown[]) => ({
  success: true,
  data: tasks,
  meta: { current_page: 1, total_pages: 1, total_count: tasks.length, per_page: 25 },
});

describe('a completed task with failed items is yellow everywhere', () => {
  it('list: its status and its items are yellow; a whole one green; one without counts plain', async () => {
    const api = mockApi();
    const bare = task(3, { completed_items: undefined, failed_items: undefined });
    api.reply(
      'GET',
      '/tasks?page=1&per_page=25',
      200,
      page([task(1), task(2, { completed_items: 8, failed_items: 0 }), bare]),
    );
    const result = await runTaskctl(['list'], { api, ...colour });
    expect(result.code, result.stderr).toBe(0);
    const [, partial, whole, plain] = result.stdout.split('\n');
    expect(partial).toContain(`${YELLOW}completed`);
    expect(partial).toContain(`${YELLOW}7/8, 1 failed`);
    expect(partial).not.toContain(GREEN);
    expect(whole).toContain(`${GREEN}completed`);
    expect(plain).not.toMatch(/\x1b\[3\dmcompleted/);
  });

  it('show: the summary status is yellow; an item that completed is still green', async () => {
    const api = mockApi();
    const items = [
      { target: 'a.com', status: 'completed', data: {} },
      { target: 'b.com', status: 'failed', data: null, error: 'lookup failed' },
    ];
    api.reply('GET', '/tasks/1', 200, {
      success: true,
      data: task(1, { total_items: 2, completed_items: 1, items }),
    });
    const result = await runTaskctl(['show', '1'], { api, ...colour });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Status:.*\x1b\[33mcompleted/);
    expect(result.stdout).toMatch(/a\.com.*\x1b\[32mcompleted/);
  });

  it('watch: the line of the completed task is yellow', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: { ...task(1), items: [] } });
    const result = await runTaskctl(['watch', '1'], { api, ...colour });
    expect(result.stdout).toContain(`${YELLOW}completed`);
    expect(result.stdout).not.toContain(`${GREEN}completed`);
  });

  it("wait's live block: status and tick are not green (--allow-item-failures: a yellow tick)", async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: { ...task(1), items: [] } });
    const result = await runTaskctl(['wait', '1', '--allow-item-failures'], {
      api,
      clock: new FakeClock(),
      stdoutTTY: true,
      stderrTTY: true,
      columns: 120,
      env: { FORCE_COLOR: '1' },
    });
    expect(result.stderr).toContain(`${YELLOW}completed`);
    expect(result.stderr).toContain(`${YELLOW}✓`);
    expect(result.stderr).not.toContain(GREEN);
  });

  it('wait: a completed task whose counts fall short is not a success, its failed items named', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { failed_items: undefined }) });
    const result = await runTaskctl(['wait', '1', '-o', 'json'], { api, clock: new FakeClock() });
    expect(result.code).toBe(11);
    expect(result.stderr).toContain('task 1 completed with 1 failed item: taskctl show 1 --items-status failed');
  });

  it('wait: counts that leave an item out (failed_items 0) are not a success, the item not listed, never failed', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: task(1, { failed_items: 0 }) });
    const result = await runTaskctl(['wait', '1', '-o', 'json'], { api, clock: new FakeClock() });
    expect(result.code).toBe(11);
    expect(result.stderr).toContain(
      'task 1 completed, but its counts account for 7 of its 8 items: taskctl show 1 -o json',
    );
  });
});
