/**
 * `list --all` whose walk meets an empty page while the service's own meta says more pages follow: the list is
 * incomplete, exit 8 naming the page and what was read, never exit 0 with a short list.
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
