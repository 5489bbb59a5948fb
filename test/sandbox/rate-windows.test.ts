import { describe, expect, it } from 'vitest';
import { FakeClock, T0 } from '../clock.js';
import { admin, call, start } from './sandbox-calls.js';

describe('sandbox rate limit', () => {
  it('counts per key in a fixed minute window, then answers 429 with Retry-After', async () => {
    const clock = new FakeClock(T0 + 15_000); // 15 s into a window
    const windowEnd = (T0 + 60_000) / 1000;
    const sb = await start({ clock, rateLimit: 5 });
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(sb, '/balance');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const limited = await call(sb, '/tasks');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      success: false,
      error: { code: 'rate_limited', message: 'Rate limit of 5 requests per minute exceeded; try again in 45s' },
    });
    expect(limited.headers.get('retry-after')).toBe('45');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-reset')).toBe(String(windowEnd));

    // Another key has its own budget (and still gets 401 for being wrong).
    const other = await call(sb, '/balance', { key: 'sk_other' });
    expect(other.status).toBe(401);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('4');

    // A new window restores the budget.
    clock.advance(45_000);
    const fresh = await call(sb, '/balance');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(fresh.headers.get('x-ratelimit-reset')).toBe(String(windowEnd + 60));

    const stats = await admin(sb, '/stats');
    expect(stats.body.rateLimited).toBe(1);
  });

  it('puts the headers on every /api/v1 response: 401, 404, 405, 422', async () => {
    const clock = new FakeClock(T0 + 30_000);
    const sb = await start({ clock, rateLimit: 50 });
    const responses = [
      await call(sb, '/balance', { auth: 'none' }),
      await call(sb, '/tasks/99'),
      await call(sb, '/nowhere'),
      await call(sb, '/tasks/1', { method: 'PATCH' }),
      await call(sb, '/tasks?page=0'),
    ];
    expect(responses.map((r) => r.status)).toEqual([401, 404, 404, 405, 422]);
    for (const res of responses) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('50');
      expect(res.headers.get('x-ratelimit-reset')).toBe(String((T0 + 60_000) / 1000));
    }
    expect(responses.slice(1).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['49', '48', '47', '46']);
  });

  it('sends no rate-limit headers and never limits when off', async () => {
    const sb = await start({ rateLimit: 0 });
    for (let i = 0; i < 150; i++) {
      const res = await call(sb, '/balance');
      expect(res.status).toBe(200);
      if (i === 0) expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('defaults to 100 requests per minute', async () => {
    const sb = await start();
    expect((await call(sb, '/balance')).headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('sandbox --rate-window', () => {
  it('windows of the given length: the budget comes back when the short window ends, and Reset names its end', async () => {
    const clock = new FakeClock(T0 + 1_000); // 1 s into a 3 s window
    const sb = await start({ clock, rateLimit: 2, rateWindowMs: 3000 });
    expect((await call(sb, '/balance')).status).toBe(200);
    const last = await call(sb, '/balance');
    expect(last.headers.get('x-ratelimit-reset')).toBe(String((T0 + 3_000) / 1000));
    const limited = await call(sb, '/balance');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    // Its message names the window it has, not a minute.
    expect(limited.body).toMatchObject({
      error: { message: 'Rate limit of 2 requests per 3s exceeded; try again in 2s' },
    });
    clock.advance(2000);
    expect((await call(sb, '/balance')).status).toBe(200);
  });

  it('refuses a window that is not whole seconds', async () => {
    await expect(start({ rateWindowMs: 1500 })).rejects.toThrow(/rate-window must be whole seconds/);
  });
});
