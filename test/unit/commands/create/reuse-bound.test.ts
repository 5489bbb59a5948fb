/**
 * `--reuse-window` on a list longer than the walk's bound (10 pages of 100): a search that did not reach the window's
 * start never becomes "none found, send" (the items may have a task further down: that would pay twice). Exit 9, nothing
 * sent, saying what was searched and the way on.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl, type MockApi } from '../harness.js';

const S = 'domain_check_availability';
const PAGES = 12;

/** A newest-first list of PAGES pages of 100 one-item tasks of another service, one every 2 s back from T0. */
function replyBusyList(api: MockApi, quietFirst = 0): void {
  let lists = 0;
  api.reply(
    'GET',
    /^\/tasks\?/,
    200,
    (path: string) => {
      // The first `quietFirst` reads: an empty list (the account was quiet when the job began).
      if (lists++ < quietFirst)
        return { success: true, data: [], meta: { current_page: 1, total_pages: 1, total_count: 0, per_page: 100 } };
      const page = Number(/page=(\d+)/.exec(path)?.[1] ?? '1');
      const data = Array.from({ length: 100 }, (_, i) => {
        const n = (page - 1) * 100 + i;
        const at = new Date(T0 - 1000 - n * 2000).toISOString();
        return {
          id: 5000 - n,
          service: 'email_validation',
          status: 'completed',
          total_items: 1,
          cost: 1,
          created_at: at,
          completed_at: at,
        };
      });
      return {
        success: true,
        data,
        meta: { current_page: page, total_pages: PAGES, total_count: PAGES * 100, per_page: 100 },
      };
    },
    { times: 100 },
  );
}

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
    expect(result.stderr).toMatch(/10 pages read \(1,000 tasks\) reach back to 2025-01-15T11:26:41Z/);
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
    replyBusyList(api, 1);
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
    expect(result.stderr).toMatch(/taskctl resume j-[0-9a-z]+ --yes\n?$/);
    expect(result.stderr).not.toMatch(/Re-run with/);
  });
});
