/**
 * `--reuse-window` with several chunks: the list is walked once per run, not once per chunk. Later chunks read its
 * first page again (tasks created since), and each same-size candidate's items are read once, kept as a digest.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';
import { replyCreates } from '../busy-list.js';

const S = 'domain_check_availability';
const PAGES = 3;

/** Newest first: 3 pages of 100 tasks, one a minute back from T0; every 50th is a one-item task of S (other items). */
function listed(n: number) {
  const at = new Date(T0 - (n + 1) * 60_000).toISOString();
  const same = n % 50 === 0;
  return {
    id: 1000 - n,
    service: same ? S : 'email_validation',
    status: 'completed',
    total_items: same ? 1 : 3,
    completed_items: same ? 1 : 3,
    failed_items: 0,
    cost: 1,
    created_at: at,
    completed_at: at,
  };
}

function replyList(api: MockApi): void {
  api.reply(
    'GET',
    /^\/tasks\?/,
    200,
    (path: string) => {
      const page = Number(/page=(\d+)/.exec(path)?.[1] ?? '1');
      const data = Array.from({ length: 100 }, (_, i) => listed((page - 1) * 100 + i));
      return { success: true, data, meta: { current_page: page, total_pages: PAGES, total_count: 300, per_page: 100 } };
    },
    { times: 100 },
  );
  api.reply(
    'GET',
    /^\/tasks\/\d+$/,
    200,
    (path: string) => {
      const id = Number(path.split('/').pop());
      const task = listed(1000 - id);
      // Task 950 holds chunk 2's item: found among the digests chunk 1's lookup read.
      const target = id === 950 ? 'b.com' : `other-${id}.com`;
      return { success: true, data: { ...task, items: [{ target, status: 'completed' }] } };
    },
    { times: 100 },
  );
}

describe('--reuse-window over several chunks', () => {
  it('walks the list once, reads each candidate once (a later chunk reuses one by its digest), and later chunks read only the first page again', async () => {
    const api = mockApi();
    api.allowUnused();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
    replyList(api);
    replyCreates(api, S, 2);
    const args = ['create', S, 'a.com', 'b.com', 'c.com', '--chunk-size', '1', '--reuse-window', '4h', '-y', '-q'];
    const result = await runTaskctl(args, { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(0);
    const pages = api.calls.filter((call) => call.startsWith('GET /tasks?'));
    const reads = api.calls.filter((call) => /^GET \/tasks\/\d+$/.test(call));
    // The walk: 3 pages (the list ends within the window); chunks 2 and 3: the first page each.
    expect(pages).toHaveLength(PAGES + 2);
    // The 5 one-item tasks of S within the 4 h (the sixth is 251 minutes old), each read once, not once per chunk (15),
    // and task 950 again before chunk 2 reuses it (its status now).
    expect(reads).toHaveLength(6);
    expect(new Set(reads).size).toBe(5);
    expect(reads.filter((call) => call === 'GET /tasks/950')).toHaveLength(2);
    expect(result.stdout.split('\n')[1]).toBe('950');
    expect(api.calls.filter((call) => call.startsWith('POST'))).toHaveLength(2);
  });
});
