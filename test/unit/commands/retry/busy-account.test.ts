/**
 * A default `retry` (its 1h reuse window) on an account that creates more than 1,000 tasks an hour: the list the walk
 * reads (10 pages of 100; the contract's `GET /tasks` has no filter to narrow it) does not reach the window's start,
 * so nothing is sent (exit 9). The message says so on one line, naming the retry's own lookup (its user may never
 * have typed the flag), and the hint's shorter window, run as printed, gets the retry done.
 */
import { expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';
import { busyTask, replyBusyList } from '../busy-list.js';

const S = 'domain_check_availability';

/**
 * The failed task 42 (one item failed), and the busy list (busy-list.ts): its tasks of another service, or (`same`) of
 * this one, each candidate's items readable with GET /tasks/:id.
 */
function replyAccount(api: MockApi, same = false): void {
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 10 });
  const at = new Date(T0 - 3 * 3600_000).toISOString();
  api.reply(
    'GET',
    '/tasks/42',
    200,
    {
      success: true,
      data: {
        ...{ id: 42, service: S, status: 'completed', total_items: 1, processed_items: 1, cost: 1 },
        ...{ created_at: at, completed_at: at },
        items: [{ target: 'x.com', status: 'failed', error: 'timeout' }],
      },
    },
    { times: 5 },
  );
  replyBusyList(api, {
    service: () => (same ? S : 'email_verify'),
    ...(same && { items: (n: number) => [`f${busyTask(n).id}.com`] }),
  });
}

it('exit 9 in two lines naming the retry’s own lookup; the window it offers, run as printed, retries', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api);
  const bodies: unknown[] = [];
  api.reply(
    'POST',
    '/tasks',
    201,
    {
      success: true,
      data: {
        id: 7001,
        service: S,
        status: 'pending',
        total_items: 1,
        cost: 1,
        created_at: new Date(T0).toISOString(),
      },
      message: 'created',
    },
    { bodies },
  );
  const clock = new FakeClock();
  const first = await runTaskctl(['retry', '42', '-y'], { api, clock });
  expect(first.code, first.stderr).toBe(9);
  expect(bodies).toEqual([]);
  const lines = first.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(
    /^error: retry's --reuse-window 1h: the task list is too long to search: the 10 pages read \(1,000 tasks\) reach back only to 2025-01-15T11:26:41Z, so nothing was sent for the task \(its items may have a task further down\)$/,
  );
  // The shorter window is offered with what it leaves out: the part of the hour the walk could not search.
  expect(lines[1]).toMatch(
    /^Re-run with --reuse-window (\d+)m, a window the list covers; tasks older than \1m are not looked at, so a task of these items made between 2025-01-15T10:58:00Z, the 1h window's start, and \1m before the re-run would be paid again\. Or re-run with --no-reuse to create without looking\.$/,
  );
  const minutes = Number(/--reuse-window (\d+)m/.exec(lines[1] ?? '')?.[1]);
  expect(minutes).toBeLessThan(60);

  replyServices(api); // the second run's own home: its services read again
  const again = await runTaskctl(['retry', '42', '--reuse-window', `${minutes}m`, '-y'], { api, clock });
  expect(again.code, again.stderr).toBe(0);
  expect(bodies).toEqual([expect.objectContaining({ items: ['x.com'] })]);
});

it('on an account of 1,200 same-size tasks in the hour, reads the 100 newest candidates listed, then refuses', async () => {
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, true);
  const result = await runTaskctl(['retry', '42', '-y'], { api, clock: new FakeClock() });
  expect(result.code, result.stderr).toBe(9);
  expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
  expect(api.calls.filter((call) => call.startsWith('GET /tasks?'))).toHaveLength(10);
  // Of the 1,000 same-size candidates the pages listed, the 100 newest are read, and none is a match.
  expect(api.calls.filter((call) => /^GET \/tasks\/\d+$/.test(call) && call !== 'GET /tasks/42')).toHaveLength(100);
  expect(result.stderr).toMatch(/retry's --reuse-window 1h: too many tasks to search: of the 1,000 tasks/);
  expect(result.stderr).toMatch(
    /reading up to 100 of them, newest first \(a shorter --reuse-window, or --no-reuse, skips this\)/,
  );
});
