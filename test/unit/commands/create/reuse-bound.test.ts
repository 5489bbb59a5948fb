/**
 * `--reuse-window` on a list longer than the walk's bound (10 pages of 100): a search that did not reach the window's
 * start never becomes "none found, send" (the items may have a task further down: that would pay twice). Exit 9, nothing
 * sent, saying what was searched and the way on.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl } from '../run-in-process.js';
import { busyTask, replyBusyList } from '../busy-list.js';

const S = 'domain_check_availability';
describe('a --reuse-window walk stopped by its page bound', () => {
  it('exits 9 before the POST, naming the pages read, how far back they reached, and a shorter window', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    replyBusyList(api);
    const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '1h', '-y'], {
      api,
      clock: new FakeClock(),
    });
    expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/--reuse-window 1h/);
    expect(result.stderr).toMatch(/10 pages read \(1,000 tasks\) reach back only to 2025-01-15T11:26:41Z/);
    expect(result.stderr).toMatch(/nothing was sent/);
    expect(result.stderr).not.toMatch(/may have created|in doubt|not found/i);
    // The 10 pages reach back 2,000 s (33 min): a window the walk covers is offered, and the way to skip it.
    expect(result.stderr).toMatch(/--reuse-window \d+m\b/);
    expect(result.stderr).toMatch(/without --reuse-window/);
  });

  it('part-way through a job that created tasks: its one next step is its resume, never a re-run that is a second job', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    replyBusyList(api, { quietFirst: 1 });
    const created = {
      id: 7001,
      service: S,
      status: 'pending',
      total_items: 1,
      cost: 1,
      created_at: new Date(T0).toISOString(),
    };
    api.reply('POST', '/tasks', 201, { success: true, data: created, message: 'created' });
    const result = await runTaskctl(
      ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-y'],
      {
        api,
        clock: new FakeClock(),
      },
    );
    expect(api.calls.filter((call) => call.startsWith('POST'))).toHaveLength(1);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/the task list is too long to search/);
    // The resume looks again with the job's window: the hint names it with one the list covers, or with no lookup.
    expect(result.stderr).toMatch(
      /Continue it with a window the list covers: taskctl resume (j-[0-9a-z]+) --yes --reuse-window (\d+)m \(tasks older than \2m are not looked at, so a task of a chunk not sent yet made between [-0-9T:]+Z, the 1h window's start, and \2m before the resume would be paid again\), or without looking: taskctl resume \1 --yes --no-reuse\n?$/,
    );
    expect(result.stderr).not.toMatch(/Re-run with/);
  });

  it('offers only a window shorter than the one that stopped, whatever older task the run saw before', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    // Chunk 1's walk: one task of two hours ago, so the run's oldest task seen is older than chunk 2's window start,
    // and says nothing of how far back chunk 2's walk (the busy list, 12 pages) reached.
    const old = new Date(T0 - 2 * 3600_000).toISOString();
    api.reply('GET', /^\/tasks\?/, 200, {
      success: true,
      data: [{ id: 10, service: 'email_validation', status: 'completed', total_items: 1, cost: 1, created_at: old }],
      meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 },
    });
    replyBusyList(api);
    const created = {
      id: 7001,
      service: S,
      status: 'pending',
      total_items: 1,
      cost: 1,
      created_at: new Date(T0).toISOString(),
    };
    api.reply('POST', '/tasks', 201, { success: true, data: created, message: 'created' });
    const result = await runTaskctl(
      ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-y'],
      { api, clock: new FakeClock() },
    );
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toMatch(/the task list is too long to search/);
    const offered = [...result.stderr.matchAll(/--reuse-window (\d+)m\b/g)].map((match) => Number(match[1]));
    for (const minutes of offered) expect(minutes).toBeLessThan(60);
    // Chunk 2's own walk (not the older task chunk 1's saw) says what a shorter window covers.
    expect(offered.length).toBeGreaterThan(0);
    expect(result.stderr).toMatch(
      /Continue it with a window the list covers: taskctl resume j-[0-9a-z]+ --yes --reuse-window/,
    );
  });

  it('on an account of same-size tasks, reads the 100 newest candidates the pages listed, then refuses', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    replyBusyList(api, { service: () => S, items: (n) => [`f${busyTask(n).id}.com`] });
    const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '1h', '-y'], {
      api,
      clock: new FakeClock(),
    });
    expect(result.code, result.stderr).toBe(9);
    expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    expect(api.calls.filter((call) => call.startsWith('GET /tasks?'))).toHaveLength(10);
    expect(api.calls.filter((call) => call.startsWith('GET /tasks/'))).toHaveLength(100);
    expect(result.stderr).toMatch(
      /too many tasks to search: of the 1,000 tasks of this service and size made in the window, the 100 newest \(back to 2025-01-15T11:56:41Z\) were read and hold none of these items, so nothing was sent for the task \(its items may have a task among the 900 older ones, or further down the list\)/,
    );
  });

  it('its shorter window says, beside it, that the tasks older than it are not looked at and would be paid again', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    replyBusyList(api);
    const result = await runTaskctl(['create', S, 'a.com', '--reuse-window', '1h', '-y'], {
      api,
      clock: new FakeClock(),
    });
    expect(result.code, result.stderr).toBe(9);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const minutes = Number(/--reuse-window (\d+)m\b/.exec(lines[1] ?? '')?.[1]);
    expect(minutes).toBeLessThan(60);
    // The window's start (an hour back, two minutes more while the server's clock is unknown) is named: a task of
    // these items made from then until the shorter window's start is not looked at, so it would be paid again.
    expect(lines[1]).toContain(`tasks older than ${minutes}m are not looked at`);
    expect(lines[1]).toMatch(
      /made between 2025-01-15T10:58:00Z, the 1h window's start, and \d+m before the re-run would be paid again/,
    );
    expect(lines[1]).toMatch(/without --reuse-window/);
  });
});
