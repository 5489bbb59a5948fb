/** In-process: a rate-limit wait over 2 s is one stderr line (virtual clock); short waits stay silent, -q keeps the line for waits over 5 s. */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl } from './commands/run-in-process.js';

const BALANCE = { success: true, data: { balance: 5, currency: 'coins' } };
const LIMITED = { success: false, error: { code: 'rate_limited', message: 'Too many requests' } };

function limitedOnce(retryAfter: string) {
  const api = mockApi();
  api.reply('GET', '/balance', 429, LIMITED, { headers: { 'retry-after': retryAfter } });
  api.reply('GET', '/balance', 200, BALANCE);
  return api;
}

describe('rate-limit wait notice', () => {
  it('a 429 with Retry-After 25 prints one notice line on stderr, then the answer', async () => {
    const clock = new FakeClock();
    const result = await runTaskctl(['balance', '-o', 'json'], { api: limitedOnce('25'), clock });
    expect(result.code).toBe(0);
    expect(clock.sleeps).toEqual([25_000]);
    expect(result.stderr).toBe('waiting 25s for the rate limit (the server asked to wait)…\n');
    expect(JSON.parse(result.stdout)).toEqual({ balance: 5, currency: 'coins' });
  });

  it('in CI the notice is the same one plain line', async () => {
    const result = await runTaskctl(['balance'], { api: limitedOnce('25'), env: { CI: 'true' }, stderrTTY: true });
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'waiting 25s for the rate limit (the server asked to wait)…',
    ]);
  });

  it('a 1 s wait prints nothing', async () => {
    const clock = new FakeClock();
    const result = await runTaskctl(['balance'], { api: limitedOnce('1'), clock });
    expect(result.code).toBe(0);
    expect(clock.sleeps).toEqual([1_000]);
    expect(result.stderr).toBe('');
  });

  it('-q keeps a wait of 5 s or less off stderr (information, not a warning)', async () => {
    const result = await runTaskctl(['balance', '-q'], { api: limitedOnce('5') });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('-q still says a wait over 5 s, in one line: a silent script would look hung', async () => {
    const result = await runTaskctl(['balance', '-q'], { api: limitedOnce('25') });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('waiting 25s for the rate limit (the server asked to wait)…\n');
    expect(result.stdout).toBe('5\n');
  });

  it("a 5xx's Retry-After of 30 s: the script's line says why in words, never the code", async () => {
    const api = mockApi();
    const failing = { success: false, error: { code: 'internal_error', message: 'maintenance' } };
    api.reply('GET', '/balance', 503, failing, { headers: { 'retry-after': '30' } });
    api.reply('GET', '/balance', 200, BALANCE);
    const clock = new FakeClock();
    const result = await runTaskctl(['balance', '-o', 'json'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(clock.sleeps).toEqual([30_000]);
    expect(result.stderr).toBe('waiting 30s before trying again: server error (HTTP 503)…\n');
  });
});
