/** A task that holds fewer items than were sent is never reported as a clean success (the API's total_items is the number sent). */
import { expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, replyNoTasks, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';

const S = 'domain_check_availability';

function createApi(): MockApi {
  const api = mockApi();
  replyServices(api);
  replyNoTasks(api);
  // Two items sent; the server's task holds one.
  api.reply('POST', '/tasks', 201, { success: true, data: task(8, { status: 'pending', total_items: 1, cost: 1 }) });
  return api;
}

it('create warns that the server dropped items; create --wait then exits 11, not 0', async () => {
  const plain = await runTaskctl(['create', S, 'a.com', 'b.com', '-q'], { api: createApi() });
  expect(plain.code).toBe(0);
  expect(plain.stderr).toMatch(/task 8 holds 1 of the 2 items sent: 1 item was dropped by the server/);

  const api = createApi();
  const items = [{ target: 'a.com', status: 'completed', data: { available: true } }];
  api.reply('GET', '/tasks/8', 200, {
    success: true,
    data: task(8, { total_items: 1, completed_items: 1, failed_items: 0, items }),
  });
  const waited = await runTaskctl(['create', S, 'a.com', 'b.com', '--wait', '-q'], { api });
  expect(waited.stderr).toMatch(/task 8 holds 1 of the 2 items sent/);
  expect(waited.code).toBe(11);
});
