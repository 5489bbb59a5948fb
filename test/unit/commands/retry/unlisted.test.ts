/** retry never says "nothing to retry" (exit 0) while the server's own counts say items did not complete. */
import { expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

it('a finished task whose counts report failed items it does not list is exit 8, not "nothing to retry"', async () => {
  const api = mockApi();
  const items = [{ target: 'a.com', status: 'completed', data: {} }];
  api.reply('GET', '/tasks/1', 200, {
    success: true,
    data: task(1, { total_items: 2, completed_items: 1, failed_items: 1, items }),
  });
  const result = await runTaskctl(['retry', '1', '--dry-run'], { api });
  expect(result.stderr).not.toMatch(/nothing to retry/);
  expect(result.stderr).toMatch(/task 1 reports items that did not complete but does not list them/);
  expect(result.code).toBe(8);
});

it('every listed item completed and the counts agree: nothing to retry, exit 0', async () => {
  const api = mockApi();
  const items = [{ target: 'a.com', status: 'completed', data: {} }];
  api.reply('GET', '/tasks/1', 200, {
    success: true,
    data: task(1, { total_items: 1, completed_items: 1, failed_items: 0, items }),
  });
  const result = await runTaskctl(['retry', '1'], { api });
  expect(result.stderr).toMatch(/nothing to retry: every item of task 1 completed/);
  expect(result.code).toBe(0);
});
