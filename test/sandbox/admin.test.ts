import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHost } from '../../src/sandbox/loopback.js';
import { admin, call, createTask, start, type Json } from './sandbox-calls.js';

describe('sandbox admin API', () => {
  it('shows state: balance, key, tasks and webhook URL', async () => {
    const sb = await start({ itemMs: 0, balance: 50 });
    await createTask(sb, ['a.com', 'fail-b.com']);
    const state = await admin(sb, '/state');
    expect(state.status).toBe(200);
    expect(state.body).toEqual({
      balance: 48,
      apiKey: 'sk_sandbox_0000',
      webhookUrl: null,
      taskCount: 1,
      tasks: [
        expect.objectContaining({ id: 1, status: 'completed', total_items: 2, completed_items: 1, failed_items: 1 }),
      ],
    });
  });

  it('sets the balance, validating it', async () => {
    const sb = await start();
    expect((await admin(sb, '/balance', { balance: 3 })).body).toEqual({ balance: 3 });
    expect((await call(sb, '/balance')).body.data.balance).toBe(3);
    expect((await createTask(sb, ['a.com', 'b.com', 'c.com', 'd.com'])).status).toBe(402);
    for (const balance of [-1, 1.5, '7', null]) {
      const res = await admin(sb, '/balance', { balance });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('sets and clears the webhook URL, refusing non-loopback hosts', async () => {
    const sb = await start();
    expect((await admin(sb, '/webhook', { url: 'http://localhost:9999/hook' })).body).toEqual({
      webhookUrl: 'http://localhost:9999/hook',
    });
    expect((await admin(sb, '/state')).body.webhookUrl).toBe('http://localhost:9999/hook');
    for (const url of ['https://example.com/hook', 'ftp://127.0.0.1/x', 'not a url', 5]) {
      const res = await admin(sb, '/webhook', { url });
      expect(res.status).toBe(422);
    }
    expect((await admin(sb, '/webhook', { url: null })).body).toEqual({ webhookUrl: null });
  });

  it('sets the webhook URL only if it is still the one expected: 409 with the URL in force otherwise', async () => {
    const sb = await start();
    const mine = 'http://127.0.0.1:9999/mine';
    const theirs = 'http://127.0.0.1:9999/dashboard';
    expect((await admin(sb, '/webhook', { url: mine, expected: null })).body).toEqual({ webhookUrl: mine });
    // Changed meanwhile (the dashboard): a set expecting the old URL changes nothing.
    await admin(sb, '/webhook', { url: theirs });
    const refused = await admin(sb, '/webhook', { url: null, expected: mine });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'conflict' }, webhookUrl: theirs });
    expect(refused.body.error.message).toBe(
      `the webhook URL is ${theirs}, not ${mine} as expected; nothing was changed`,
    );
    expect((await admin(sb, '/state')).body.webhookUrl).toBe(theirs);
    expect((await admin(sb, '/webhook', { url: mine, expected: null })).status).toBe(409);
    expect((await admin(sb, '/webhook', { url: null, expected: theirs })).body).toEqual({ webhookUrl: null });
    expect((await admin(sb, '/webhook', { url: mine, expected: 5 })).status).toBe(422);
  });

  it('refuses a non-loopback webhook URL at start', async () => {
    await expect(start({ webhookUrl: 'https://hooks.example.com/x' })).rejects.toThrow(/not on this machine/);
  });

  it('counts requests per method and route, and resets the counts', async () => {
    const sb = await start({ rateLimit: 2 });
    await call(sb, '/balance');
    await call(sb, '/tasks/1');
    await call(sb, '/tasks/2'); // 429: the key's budget of 2 is spent
    await call(sb, '/tasks/3'); // 429
    await call(sb, '/nope', { auth: 'none' });
    await createTask(sb, ['a'], 'x'); // 429 too
    expect((await call(sb, '/balance', { auth: 'none' })).status).toBe(401); // its own (address) budget: 2nd request
    const stats = (await admin(sb, '/stats')).body;
    expect(stats).toEqual({
      total: 7,
      rateLimited: 3,
      requests: {
        'GET /api/v1/balance': 2,
        'GET /api/v1/tasks/:id': 3,
        'GET (unknown route)': 1,
        'POST /api/v1/tasks': 1,
      },
    });
    expect((await admin(sb, '/stats/reset', {})).body).toEqual({ total: 0, rateLimited: 0, requests: {} });
    expect((await admin(sb, '/stats')).body.total).toBe(0);
  });

  it('answers JSON errors for unknown admin routes, wrong methods and bad JSON', async () => {
    const sb = await start();
    const unknown = await admin(sb, '/nope');
    expect(unknown.status).toBe(404);
    const wrong = await admin(sb, '/state', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    const bad = await fetch(`${sb.origin}/__sandbox/balance`, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Json).error).toEqual({
      code: 'validation_error',
      message: "request body is not valid JSON (unexpected 'n' at character 2); send a JSON object, or no body",
    });
  });

  it('needs no key, and recognises loopback callers only', async () => {
    const sb = await start();
    expect((await fetch(`${sb.origin}/__sandbox/state`)).status).toBe(200);
    expect(['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1'].every(isLoopbackAddress)).toBe(true);
    expect(['10.0.0.1', '::ffff:192.168.1.1', '', undefined, 'fe80::1'].some(isLoopbackAddress)).toBe(false);
    expect(['localhost', '127.0.0.1', '[::1]'].every(isLoopbackHost)).toBe(true);
    // One rule with the client (src/api/base-url.ts): a resolver may send *.localhost anywhere.
    expect(['example.com', '128.0.0.1', 'localhost.example.com', 'api.localhost'].some(isLoopbackHost)).toBe(false);
  });
});
