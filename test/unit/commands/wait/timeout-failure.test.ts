/** A wait that times out still names the tasks that already failed: the resume hint alone would hide them. */
import { expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

it('wait --timeout names a task that already failed beside the resume hint; the exit is 124', async () => {
  const api = mockApi();
  api.reply(
    'GET',
    '/tasks/1',
    200,
    {
      success: true,
      data: task(1, { status: 'failed', completed_at: null, failed_at: '2025-01-15T12:00:01Z', error_message: 'boom' }),
    },
    { times: 100 },
  );
  api.reply(
    'GET',
    '/tasks/2',
    200,
    { success: true, data: task(2, { status: 'processing', completed_at: null }) },
    {
      times: 100,
    },
  );
  const result = await runTaskctl(['wait', '1', '2', '--timeout', '2s', '-q'], { api });
  expect(result.code).toBe(124);
  expect(result.stderr).toMatch(/error: task 1 failed: boom/);
  expect(result.stderr).toMatch(/error: timed out after 2s\nstill running: taskctl wait 2\n$/);
});
