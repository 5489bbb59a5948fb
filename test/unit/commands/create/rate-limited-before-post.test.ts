/**
 * A 429 on the task list a create reads before its POST (the insurance against a lost answer): the service is
 * refusing this key, so the create stops there with exit 7, nothing sent, instead of trying the list again and
 * POSTing anyway (a minute's wait each, then the same refusal: 2 minutes for a 429 that asked for years).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, replyServices, runTaskctl, T0 } from '../run-in-process.js';

const LIMITED = { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } };

describe('create when the list before the POST is rate-limited', () => {
  it('a 429 asking for longer than a minute: exit 7 at once, no POST', async () => {
    const api = mockApi();
    replyServices(api);
    api.reply('GET', /^\/tasks\?/, 429, LIMITED, { headers: { 'retry-after': '999999999' } });
    const clock = new FakeClock(T0);
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-y'], { api, clock });
    expect(result.code, result.stderr).toBe(7);
    expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    expect(api.calls.filter((call) => call.startsWith('GET /tasks'))).toHaveLength(1);
    expect(clock.now() - T0).toBeLessThan(1000);
    expect(result.stderr).toMatch(
      /^error: listing tasks: rate limited \(HTTP 429: slow down\); try again in more than a week$/m,
    );
    expect(result.stderr).not.toMatch(/waiting 1m/);
  });

  it('429s within a minute, past the budget: exit 7, no POST, the list read once more at most', async () => {
    const api = mockApi();
    replyServices(api);
    api.reply('GET', /^\/tasks\?/, 429, LIMITED, { headers: { 'retry-after': '20' }, times: 50 });
    api.allowUnused();
    const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', '-y'], { api });
    expect(result.code, result.stderr).toBe(7);
    expect(api.calls.filter((call) => call.startsWith('POST'))).toEqual([]);
  });
});
