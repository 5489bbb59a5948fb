/** The table a create draws at a terminal shows the service's latest states (one list read), else says "as created". */
import { afterEach, expect, it } from 'vitest';
import { task } from '../../hardening/helpers.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl, settleTest, type MockApi } from './harness.js';

const S = 'domain_check_availability';
const page = (data: unknown[]) => ({
  success: true,
  data,
  meta: { current_page: 1, total_pages: 1, total_count: data.length, per_page: 100 },
});

function createApi(): MockApi {
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  api.reply('POST', '/tasks', 201, { success: true, data: task(8, { status: 'pending', total_items: 1, cost: 1 }) });
  return api;
}

afterEach(settleTest);

it('at a terminal the table shows the state the service gives now', async () => {
  const api = createApi();
  api.reply('GET', /^\/tasks\?/, 200, page([task(8, { status: 'completed', total_items: 1, completed_items: 1 })]));
  const result = await runTaskctl(['create', S, 'a.com'], { api, stdoutTTY: true, columns: 120 });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\s*8\s.*completed/m);
  expect(result.stdout).not.toMatch(/pending/);
  expect(result.stderr).not.toMatch(/as created/);
});

it('a list that cannot be read: the states as created, said so with where to see the latest', async () => {
  const api = createApi();
  api.reply('GET', /^\/tasks\?/, 404, { success: false, error: { code: 'not_found', message: 'gone' } }, { times: 5 });
  const result = await runTaskctl(['create', S, 'a.com'], { api, stdoutTTY: true, columns: 120 });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\s*8\s.*pending/m);
  expect(result.stderr).toMatch(/states as created; the latest: taskctl show --job j-[0-9a-z]+/);
});
