/**
 * `list --since/--until DURATION` counts back from the service's clock as the first page's `Date` header reads it
 * (docs/commands.md#taskctl-list), not from this machine's: a local clock ahead of the service's must not cut off
 * tasks the service made within the window. An ISO time is an instant, whatever either clock reads.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0, type MockApi } from '../run-in-process.js';

/** A task the service stamped `minutes` before T0 on its own clock. */
function task(id: number, minutes: number) {
  const at = new Date(T0 - minutes * 60_000).toISOString();
  return { id, service: 'domain_check_availability', status: 'completed', total_items: 1, cost: 1, created_at: at };
}

/** One page of the three tasks (55, 65 and 125 minutes old on the service's clock), its `Date` given or none. */
function onePage(api: MockApi, date: number | undefined) {
  api.reply(
    'GET',
    '/tasks?page=1&per_page=100',
    200,
    {
      success: true,
      data: [task(3, 55), task(2, 65), task(1, 125)],
      meta: { current_page: 1, total_pages: 1, total_count: 3, per_page: 100 },
    },
    date === undefined ? {} : { headers: { date: new Date(date).toUTCString() } },
  );
}

const ids = ['-o', 'tsv', '--columns', 'id'];

describe('list --since/--until on the service clock', () => {
  it('a local clock 10 minutes ahead of the service: --since 1h keeps the task made 55 minutes ago', async () => {
    const api = mockApi();
    onePage(api, T0);
    const result = await runTaskctl(['list', '--since', '1h', ...ids], { api, clock: new FakeClock(T0 + 600_000) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('3\n');
  });

  it('a local clock 10 minutes behind: --since 1h leaves out the task made 65 minutes ago', async () => {
    const api = mockApi();
    onePage(api, T0);
    const result = await runTaskctl(['list', '--since', '1h', ...ids], { api, clock: new FakeClock(T0 - 600_000) });
    expect(result.stdout).toBe('3\n');
  });

  it('--until 1h counts back from the service clock too', async () => {
    const api = mockApi();
    onePage(api, T0);
    const result = await runTaskctl(['list', '--until', '1h', ...ids], { api, clock: new FakeClock(T0 + 600_000) });
    expect(result.stdout).toBe('2\n1\n');
  });

  it('a Date of whole seconds: the window errs by under a second toward keeping a task, never cutting one', async () => {
    const api = mockApi();
    // The answer arrives 0.9 s into the second its Date names: the service's clock reads at least that second.
    onePage(api, T0);
    const result = await runTaskctl(['list', '--since', '55m', ...ids], { api, clock: new FakeClock(T0 + 900) });
    expect(result.stdout).toBe('3\n');
  });

  it('no Date header: the local clock, as before', async () => {
    const api = mockApi();
    onePage(api, undefined);
    const result = await runTaskctl(['list', '--since', '1h', ...ids], { api, clock: new FakeClock(T0 + 600_000) });
    expect(result.stdout).toBe('');
  });

  it('an ISO --since is an instant: the Date does not move it', async () => {
    const api = mockApi();
    onePage(api, T0 - 3_600_000);
    const since = new Date(T0 - 70 * 60_000).toISOString();
    const result = await runTaskctl(['list', '--since', since, ...ids], { api, clock: new FakeClock(T0) });
    expect(result.stdout).toBe('3\n2\n');
  });

  it('ages in the table are told on the service clock too: a task made 55 minutes ago is `55m ago` with this clock 7 minutes ahead', async () => {
    const api = mockApi();
    onePage(api, T0);
    const result = await runTaskctl(['list', '--per-page', '100', '--columns', 'id,created'], {
      api,
      clock: new FakeClock(T0 + 420_000),
      stdoutTTY: true,
      columns: 120,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ *3 +55m ago *$/m);
    expect(result.stdout).toMatch(/^ *1 +2h ago *$/m);
  });
});
