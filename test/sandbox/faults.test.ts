import { get } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../clock.js';
import { admin, call, createTask, start } from './sandbox-calls.js';

describe('sandbox faults', () => {
  it('`status` answers the given status with an internal_error body, for `count` matching requests only', async () => {
    const sb = await start();
    const added = await admin(sb, '/faults', {
      method: 'GET',
      path: '/balance',
      kind: 'status',
      status: 503,
      count: 2,
    });
    expect(added.status).toBe(201);
    expect(added.body.fault).toMatchObject({ method: 'GET', path: '/api/v1/balance', kind: 'status', remaining: 2 });
    expect((await call(sb, '/services')).status).toBe(200); // other path: untouched
    for (let i = 0; i < 2; i++) {
      const res = await call(sb, '/balance');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: { code: 'internal_error', message: expect.any(String) } });
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    }
    expect((await call(sb, '/balance')).status).toBe(200);
    expect((await admin(sb, '/faults')).body.faults).toEqual([]);
  });

  it('matches the method exactly and the path by prefix, with the full /api/v1 path too', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'POST', path: '/api/v1/tasks', kind: 'status', status: 500 });
    expect((await call(sb, '/tasks')).status).toBe(200); // GET does not match
    expect((await createTask(sb, ['a.com'])).status).toBe(500);
    await admin(sb, '/faults', { method: 'GET', path: '/tasks', kind: 'status', status: 502 });
    expect((await call(sb, '/tasks/7')).status).toBe(502); // prefix of /tasks/7
  });

  it('`status` 429 answers rate_limited with Retry-After', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'status', status: 429 });
    const res = await call(sb, '/balance');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body.error.code).toBe('rate_limited');
  });

  it('`delay` waits delayMs and then answers normally', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'delay', delayMs: 150 });
    // The sandbox's timers on vitest's clock (no wall-clock measure): the answer waits for 150 ms of fake time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const seen = { answered: false };
      // node:http, not fetch: fetch keeps timers of its own, and the only timer here must be the sandbox's delay.
      const pending = new Promise<{ status: number; body: string }>((resolve, reject) => {
        get(`${sb.url}/balance`, { headers: { 'X-API-Key': sb.apiKey } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (piece: string) => (body += piece));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject);
      }).finally(() => (seen.answered = true));
      // Fake time moves only here, 10 ms a step: the answer must not come before 150 ms of it have passed.
      let advancedMs = 0;
      while (!seen.answered && advancedMs < 60_000) {
        await vi.advanceTimersByTimeAsync(10);
        advancedMs += 10;
      }
      expect(advancedMs).toBeGreaterThanOrEqual(150);
      const res = await pending;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).data.balance).toBe(10_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('`reset-before` drops the connection and creates nothing', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'POST', path: '/tasks', kind: 'reset-before' });
    await expect(createTask(sb, ['a.com'])).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect((await call(sb, '/tasks')).body.meta.total_count).toBe(0);
    expect((await call(sb, '/balance')).body.data.balance).toBe(10_000);
  });

  it('`reset-after` creates and charges the task, then drops the connection', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'POST', path: '/tasks', kind: 'reset-after' });
    await expect(createTask(sb, ['a.com', 'b.com'])).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    const list = await call(sb, '/tasks');
    expect(list.body.meta.total_count).toBe(1);
    expect(list.body.data[0]).toMatchObject({ id: 1, total_items: 2, service: 'domain_check_availability' });
    expect((await call(sb, '/balance')).body.data.balance).toBe(9_998);
  });

  it('`truncate` sends half of the real JSON body and closes', async () => {
    const sb = await start();
    const whole = JSON.stringify((await call(sb, '/services')).body);
    await admin(sb, '/faults', { method: 'GET', path: '/services', kind: 'truncate' });
    const res = await fetch(`${sb.url}/services`, { headers: { 'X-API-Key': sb.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    const text = await res.text();
    expect(text).toBe(whole.slice(0, Math.floor(whole.length / 2)));
    expect(() => JSON.parse(text)).toThrow();
  });

  it('`non-json` answers an HTML page, 502 unless a status is given', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: '*', path: '/', kind: 'non-json' });
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'non-json', status: 504 });
    const first = await fetch(`${sb.url}/tasks`, { headers: { 'X-API-Key': sb.apiKey } });
    expect(first.status).toBe(502);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await first.text()).toMatch(/<html>/);
    const second = await call(sb, '/balance');
    expect(second.status).toBe(504);
    expect(typeof second.body).toBe('string');
  });

  it('counts faulted requests in stats and never applies faults to the admin API', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: '*', path: '/', kind: 'status', status: 500, count: 3 });
    expect((await admin(sb, '/stats')).status).toBe(200);
    await call(sb, '/balance');
    await call(sb, '/tasks/1');
    const stats = (await admin(sb, '/stats')).body;
    expect(stats.requests).toEqual({ 'GET /api/v1/balance': 1, 'GET /api/v1/tasks/:id': 1 });
    expect((await admin(sb, '/faults')).body.faults[0].remaining).toBe(1);
  });

  it('clears faults with DELETE', async () => {
    const sb = await start();
    await admin(sb, '/faults', { method: 'GET', path: '/balance', kind: 'status', status: 500, count: 5 });
    expect((await admin(sb, '/faults', undefined, 'DELETE')).body).toEqual({ faults: [] });
    expect((await call(sb, '/balance')).status).toBe(200);
  });

  it.each([
    [{ method: 'GET', path: '/balance' }, /^invalid fault: kind: missing \(should be one of "status", "delay", /],
    [
      { method: 'GET', path: '/balance', kind: 'explode' },
      /^invalid fault: kind: should be one of "status", "delay", /,
    ],
    [{ method: 'GET', path: '/balance', kind: 'status' }, /needs "status"/],
    [{ method: 'GET', path: '/balance', kind: 'delay' }, /needs "delayMs"/],
    [{ method: 'GET', path: 'balance', kind: 'truncate' }, /path/],
    [{ method: 'GET', path: '/balance', kind: 'truncate', count: 0 }, /^invalid fault: count: should be more than 0$/],
    [
      { method: 'GET', path: '/balance', kind: 'status', status: 'x' },
      /^invalid fault: status: should be a number, not a string$/,
    ],
  ])('rejects an invalid fault %j with 422', async (body, message) => {
    const sb = await start();
    const res = await admin(sb, '/faults', body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(message);
  });
});

describe('a handler that throws', () => {
  it('answers 500 internal_error and logs one line: what failed, the method and path, a short reason; no stack', async () => {
    const lines: string[] = [];
    let broken = false;
    const fake = new FakeClock();
    // The fake clock, breaking when told: the sandbox's first read of it in a request throws.
    const clock = {
      now: () => {
        if (broken) throw new TypeError("Cannot read properties of undefined (reading 'x')");
        return fake.now();
      },
    };
    const sb = await start({ clock, log: (line) => lines.push(line) });
    broken = true;
    const res = await call(sb, '/balance');
    broken = false;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: { code: 'internal_error', message: 'Internal server error' } });
    expect(lines).toEqual([
      "sandbox: internal error on GET /api/v1/balance: TypeError: Cannot read properties of undefined (reading 'x')",
    ]);
  });
});
