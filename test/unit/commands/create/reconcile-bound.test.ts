/** The reconciliation after a lost create answer keeps to its window even when every list read fails and is retried. */
import { expect, it } from 'vitest';
import { FakeClock, T0, mockApi, replyServices, runTaskctl } from '../run-in-process.js';

const S = 'domain_check_availability';

it('every GET /tasks failing: exit 9 "could not be read" within the 10 s window (plus 2 s), not 20 s of retries', async () => {
  const api = mockApi();
  replyServices(api);
  const down = { success: false, error: { code: 'internal_error', message: 'down' } };
  api.reply('GET', /^\/tasks\?/, 500, down, { times: 1000 });
  api.reply('POST', '/tasks', 503, { success: false, error: { code: 'internal_error', message: 'busy' } });
  const clock = new FakeClock();
  const result = await runTaskctl(['create', S, 'a.com', '-q'], { api, clock });
  expect(result.code).toBe(9);
  expect(result.stderr).toMatch(/the task list could not be read to find out/);
  // From the failed POST to the verdict: the window, and at most the 2 s grace for the last scan.
  expect(clock.nowMs - T0).toBeLessThanOrEqual(14_000);
});
