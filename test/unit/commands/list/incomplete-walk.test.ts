/**
 * `list --all` (or a search) whose walk cannot be complete: a page that comes back empty while the service's own meta
 * says more pages follow, or a last page whose meta counts more tasks than its pages hold (`total_count` past
 * `total_pages` × `per_page`). Exit 8 naming what the service said and what was printed, never exit 0 with a short list.
 */
import { expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

const task = (id: number) => ({
  id,
  service: 'domain_check_availability',
  status: 'completed',
  total_items: 1,
  completed_items: 1,
  failed_items: 0,
  cost: 1,
  created_at: new Date(T0 - id * 60_000).toISOString(),
});
const tasks = (from: number, count: number) => Array.from({ length: count }, (_, i) => task(from - i));

it('page 2 of 3 empty: exit 8, the page and the count read named; page 1 printed as it came', async () => {
  const api = mockApi();
  const meta = (page: number) => ({ current_page: page, total_pages: 3, total_count: 250, per_page: 100 });
  api.reply('GET', /^\/tasks\?(?=.*page=1\b)/, 200, { success: true, data: [task(2), task(1)], meta: meta(1) });
  api.reply('GET', /^\/tasks\?(?=.*page=2\b)/, 200, { success: true, data: [], meta: meta(2) });
  const result = await runTaskctl(['list', '--all', '-o', 'tsv'], { api });
  expect(result.code, result.stderr).toBe(8);
  expect(result.stderr).toMatch(
    /^error: listing tasks: page 2 of 3 came back empty, though the service says 3 pages: the list is incomplete \(2 tasks printed\)$/m,
  );
  expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(2);
});

it('one page of 100 said to hold 500 tasks: exit 8 with both counts, the page printed as it came', async () => {
  const api = mockApi();
  const meta = { current_page: 1, total_pages: 1, total_count: 500, per_page: 100 };
  api.reply('GET', /^\/tasks\?/, 200, { success: true, data: tasks(500, 100), meta });
  const result = await runTaskctl(['list', '--all', '-o', 'tsv'], { api });
  expect(result.code, result.stderr).toBe(8);
  expect(result.stderr).toMatch(
    /^error: listing tasks: the service counts 500 tasks but 1 page of 100: the list is incomplete \(100 tasks printed\)$/m,
  );
  expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(100);
});

it('a count its pages can hold ends the walk as usual: exit 0', async () => {
  const api = mockApi();
  const meta = (page: number) => ({ current_page: page, total_pages: 2, total_count: 150, per_page: 100 });
  api.reply('GET', /^\/tasks\?(?=.*page=1\b)/, 200, { success: true, data: tasks(150, 100), meta: meta(1) });
  api.reply('GET', /^\/tasks\?(?=.*page=2\b)/, 200, { success: true, data: tasks(50, 50), meta: meta(2) });
  const result = await runTaskctl(['list', '--all', '-o', 'tsv'], { api });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(150);
});

it('a search that reaches the end of such a list says the same (its matches may be in what was not sent)', async () => {
  const api = mockApi();
  const meta = { current_page: 1, total_pages: 1, total_count: 300, per_page: 100 };
  api.reply('GET', /^\/tasks\?/, 200, { success: true, data: tasks(300, 100), meta });
  const result = await runTaskctl(['list', '--status', 'failed', '-o', 'tsv'], { api });
  expect(result.code, result.stderr).toBe(8);
  expect(result.stderr).toMatch(
    /the service counts 300 tasks but 1 page of 100: the list is incomplete \(0 tasks printed\)/,
  );
});
