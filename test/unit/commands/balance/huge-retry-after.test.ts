/**
 * A 429 or 5xx whose Retry-After asks for a wait no one would take (years, or past what a date can hold): the error
 * says so in words a person reads, never `try again in 277777777777777800h`, and `auth status` shows the window without
 * an impossible date.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl } from '../run-in-process.js';

const LIMITED = { success: false, error: { code: 'rate_limited', message: 'slow down' } };
const FAULT = { success: false, error: { code: 'internal_error', message: 'down' } };

describe('a Retry-After of years', () => {
  it.each([
    ['a 429 of 10^18 seconds', 429, LIMITED, '1000000000000000000'],
    ['a 429 of ten years', 429, LIMITED, String(10 * 365 * 86_400)],
    ['a 503 of 10^18 seconds', 503, FAULT, '1000000000000000000'],
  ] as const)('%s: "more than a week", exit as usual', async (_, status, body, header) => {
    const api = mockApi();
    api.reply('GET', '/balance', status, body, { headers: { 'retry-after': header }, times: 4 });
    const result = await runTaskctl(['balance'], { api, clock: new FakeClock() });
    expect(result.code).toBe(status === 429 ? 7 : 8);
    expect(result.stderr).toMatch(/try again in more than a week/);
    expect(result.stderr).not.toMatch(/\d{4,}h/);
  });

  it('a wait of two days is said in hours', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 429, LIMITED, { headers: { 'retry-after': String(2 * 86_400 + 3 * 3600) } });
    const result = await runTaskctl(['balance'], { api, clock: new FakeClock() });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/try again in 51h\b/);
  });

  it('auth status: the reset beyond any date is said in words, exit 7, no stack', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 429, LIMITED, { headers: { 'retry-after': '1000000000000000000' } });
    const result = await runTaskctl(['auth', 'status', '-o', 'json'], { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).not.toMatch(/RangeError|unexpected/i);
  });
});
