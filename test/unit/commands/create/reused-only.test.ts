/**
 * A `--reuse-window` create that reused a task for its first chunk and stopped before it sent anything is a job like
 * any other (journaled-run.ts `discardUnsent` keeps it): named at its first task, listed by `taskctl jobs`, and its
 * printed resume, run as printed, reuses nothing twice and pays only for the rest. Never "kept no journal … would send
 * every item again".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';

const S = 'domain_check_availability';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-reused-only-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** Task 900 holds `a.com` (done); task 901, older, is another one-item task of S, read by chunk 2's lookup. */
function replyAccount(api: MockApi, task901: 'unreadable' | 'other'): void {
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 1000, currency: 'coins' } }, { times: 5 });
  const task = (id: number, ageMs: number, target: string) => ({
    id,
    service: S,
    status: 'completed',
    total_items: 1,
    processed_items: 1,
    cost: 1,
    created_at: new Date(T0 - ageMs).toISOString(),
    completed_at: new Date(T0 - ageMs).toISOString(),
    items: [{ target, status: 'completed', result: { available: false } }],
  });
  const listed = [task(900, 60_000, 'a.com'), task(901, 120_000, 'c.com')].map(({ items: _items, ...rest }) => rest);
  api.reply(
    'GET',
    /^\/tasks\?/,
    200,
    { success: true, data: listed, meta: { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 } },
    { times: 10 },
  );
  api.reply('GET', '/tasks/900', 200, { success: true, data: task(900, 60_000, 'a.com') }, { times: 5 });
  if (task901 === 'unreadable')
    api.reply(
      'GET',
      '/tasks/901',
      500,
      { success: false, error: { code: 'internal', message: 'boom' } },
      { times: 20 },
    );
  else api.reply('GET', '/tasks/901', 200, { success: true, data: task(901, 120_000, 'c.com') }, { times: 5 });
}

it('stopped after reusing only: the job is named and kept, and its printed resume pays only for the rest', async () => {
  const argv = ['create', S, 'a.com', 'b.com', '--chunk-size', '1', '--reuse-window', '1h', '-y'];
  const api = mockApi();
  api.allowUnused();
  replyAccount(api, 'unreadable');
  const first = await runTaskctl(argv, { api, clock: new FakeClock(), home });
  expect(first.code, first.stderr).not.toBe(0);
  expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
  expect(first.stderr).toMatch(/reusing task 900/);
  const job = /^job (j-[0-9a-z]+): taskctl jobs$/m.exec(first.stderr)?.[1];
  expect(job, first.stderr).toBeDefined();
  expect(first.stderr).not.toMatch(/kept no journal|send every item again/);
  const hint = new RegExp(`taskctl resume ${job} --yes$`, 'm').exec(first.stderr)?.[0];
  expect(hint, first.stderr).toBeDefined();
  const jobs = await runTaskctl(['jobs', '-o', 'json'], { api: mockApi(), clock: new FakeClock(), home });
  expect(JSON.parse(jobs.stdout)).toEqual([expect.objectContaining({ id: job, state: 'interrupted' })]);

  // The printed resume, once the list can be read: task 900 stays the job's, only b.com is paid for.
  const again = mockApi();
  again.allowUnused();
  replyAccount(again, 'other');
  const bodies: unknown[] = [];
  again.reply(
    'POST',
    '/tasks',
    201,
    {
      success: true,
      data: { id: 902, service: S, status: 'pending', total_items: 1, cost: 1, created_at: new Date(T0).toISOString() },
      message: 'created',
    },
    { bodies },
  );
  const second = await runTaskctl((hint ?? '').split(' ').slice(1), { api: again, clock: new FakeClock(), home });
  expect(second.code, second.stderr).toBe(0);
  expect(bodies).toEqual([expect.objectContaining({ items: ['b.com'] })]);
});
