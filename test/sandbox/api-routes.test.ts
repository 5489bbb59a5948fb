import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admin, call, createTask, start, type Json } from './sandbox-calls.js';

describe('sandbox API: endpoints', () => {
  it('lists at least four services with prices in coins', async () => {
    const sb = await start();
    const res = await call(sb, '/services');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.success).toBe(true);
    expect(res.body.meta).toEqual({ total: res.body.data.length, currency: 'coins' });
    const byName = Object.fromEntries(res.body.data.map((s: Json) => [s.service, s]));
    expect(byName.domain_check_availability).toMatchObject({ pricing: 1, currency: 'coins' });
    expect(byName.domain_whois_history).toMatchObject({ pricing: 5 });
    expect(byName.fanpage_extract_contact).toMatchObject({ pricing: 3 });
    expect(byName.email_verify).toMatchObject({ pricing: 2 });
    for (const s of res.body.data) expect(s.display_name && s.description).toBeTruthy();
  });

  it('reports the balance and charges pricing × items at creation', async () => {
    const sb = await start({ balance: 100 });
    expect((await call(sb, '/balance')).body).toEqual({ success: true, data: { balance: 100, currency: 'coins' } });
    const created = await createTask(sb, ['a.com', 'b.com', 'c.com'], 'fanpage_extract_contact');
    expect(created.status).toBe(201);
    expect(created.body.success).toBe(true);
    expect(typeof created.body.message).toBe('string');
    expect(created.body.data).toEqual({
      id: 1,
      service: 'fanpage_extract_contact',
      status: 'pending',
      total_items: 3,
      cost: 9,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      completed_at: null,
    });
    expect((await call(sb, '/balance')).body.data.balance).toBe(91);
  });

  it('refuses a task the balance cannot pay for, naming balance and cost, and charges nothing', async () => {
    const sb = await start({ balance: 10 });
    const res = await createTask(sb, ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'], 'domain_whois_history');
    expect(res.status).toBe(402);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'insufficient_balance', message: 'Insufficient balance: 10 coins available, 25 required' },
    });
    expect((await call(sb, '/balance')).body.data.balance).toBe(10);
    expect((await call(sb, '/tasks')).body.meta.total_count).toBe(0);
  });

  it('shows one task with an entry per item, and lists tasks without items', async () => {
    const sb = await start({ itemMs: 0 });
    await createTask(sb, ['example.com', 'example.org']);
    const one = await call(sb, '/tasks/1');
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({
      id: 1,
      status: 'completed',
      total_items: 2,
      completed_items: 2,
      failed_items: 0,
      platform: 'domain',
    });
    expect(one.body.data.items).toEqual([
      { target: 'example.com', status: 'completed', data: { available: expect.any(Boolean) } },
      { target: 'example.org', status: 'completed', data: { available: expect.any(Boolean) } },
    ]);
    const list = await call(sb, '/tasks');
    expect(list.body.data[0]).not.toHaveProperty('items');
    expect(list.body.data[0]).toMatchObject({ id: 1, status: 'completed', completed_at: one.body.data.completed_at });
  });

  it('gives results that are deterministic for seed and item, and differ across seeds', async () => {
    const items = Array.from({ length: 40 }, (_, i) => `domain-${i}.com`);
    const resultsFor = async (seed: string) => {
      const sb = await start({ itemMs: 0, seed });
      await createTask(
        sb,
        items.map((domain) => `me@${domain}`),
        'email_verify',
      );
      await createTask(sb, items, 'domain_whois_history');
      const a = (await call(sb, '/tasks/1')).body.data.items.map((i: Json) => i.data);
      const b = (await call(sb, '/tasks/2')).body.data.items.map((i: Json) => i.data);
      return { a, b };
    };
    const first = await resultsFor('one');
    expect(await resultsFor('one')).toEqual(first);
    expect(await resultsFor('two')).not.toEqual(first);
    expect(first.a[0]).toEqual({ deliverable: expect.any(Boolean), reason: expect.any(String) });
    for (const data of first.b) {
      expect(data.records.length).toBeGreaterThan(0);
      expect(data.records[0]).toEqual({
        date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        registrar: expect.any(String),
        event: 'registered',
      });
    }
  });

  it('shapes fanpage and email results', async () => {
    const sb = await start({ itemMs: 0 });
    await createTask(sb, ['https://facebook.com/Acme.Shop'], 'fanpage_extract_contact');
    await createTask(sb, ['someone@example.com'], 'email_verify');
    const fan = (await call(sb, '/tasks/1')).body.data.items[0].data;
    expect(fan).toEqual({ emails: expect.any(Array), phones: expect.any(Array) });
    for (const email of fan.emails) expect(email).toMatch(/@acme-shop\.example$/);
    const mail = (await call(sb, '/tasks/2')).body.data.items[0].data;
    expect(mail).toEqual({ deliverable: expect.any(Boolean), reason: expect.any(String) });
  });
});

describe('sandbox API: pagination', () => {
  it('pages newest first with correct meta, defaults and bounds', async () => {
    const sb = await start({ itemMs: 0 });
    for (let i = 0; i < 7; i++) await createTask(sb, [`d${i}.com`]);
    const def = await call(sb, '/tasks');
    expect(def.body.meta).toEqual({ current_page: 1, total_pages: 1, total_count: 7, per_page: 25 });
    expect(def.body.data.map((t: Json) => t.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);

    const pages = await Promise.all([1, 2, 3, 4].map((p) => call(sb, `/tasks?page=${p}&per_page=3`)));
    expect(pages.map((p) => p.body.data.map((t: Json) => t.id))).toEqual([[7, 6, 5], [4, 3, 2], [1], []]);
    expect(pages[3]!.body.meta).toEqual({ current_page: 4, total_pages: 3, total_count: 7, per_page: 3 });
    expect((await call(sb, '/tasks?per_page=100')).status).toBe(200);
  });

  it('answers an empty account with zero pages', async () => {
    const sb = await start();
    const res = await call(sb, '/tasks');
    expect(res.body).toEqual({
      success: true,
      data: [],
      meta: { current_page: 1, total_pages: 0, total_count: 0, per_page: 25 },
    });
  });

  it.each([
    'page=0',
    'page=-1',
    'page=1.5',
    'page=abc',
    'page=',
    'per_page=0',
    'per_page=101',
    'per_page=2.5',
    'per_page=x',
  ])('rejects %s with validation_error 422', async (query) => {
    const sb = await start();
    const res = await call(sb, `/tasks?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(query.startsWith('page') ? /page/ : /per_page/);
  });
});

describe('sandbox API: authentication', () => {
  it('accepts X-API-Key and Authorization: Bearer', async () => {
    const sb = await start();
    expect((await call(sb, '/balance', { auth: 'x-api-key' })).status).toBe(200);
    expect((await call(sb, '/balance', { auth: 'bearer' })).status).toBe(200);
  });

  it.each([
    ['missing key', { auth: 'none' as const }],
    ['wrong X-API-Key', { key: 'sk_wrong' }],
    ['wrong Bearer', { key: 'sk_wrong', auth: 'bearer' as const }],
    ['non-bearer scheme', { auth: 'none' as const, headers: { Authorization: 'Basic c2s6' } }],
  ])('answers 401 unauthorized for %s', async (_name, init) => {
    const sb = await start();
    for (const path of ['/balance', '/tasks/1', '/nope']) {
      const res = await call(sb, path, init);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'unauthorized', message: 'Invalid or missing API key' },
      });
    }
  });

  it('invalidates the old key on rotation; the new key works', async () => {
    const sb = await start();
    const rotated = await admin(sb, '/rotate-key', {});
    expect(rotated.status).toBe(200);
    const newKey = rotated.body.apiKey as string;
    expect(newKey).toMatch(/^sk_sandbox_[0-9a-f]{24}$/);
    expect(newKey).not.toBe(sb.apiKey);
    expect((await call(sb, '/balance')).status).toBe(401);
    expect((await call(sb, '/balance', { key: newKey })).status).toBe(200);
    expect((await call(sb, '/balance', { key: newKey, auth: 'bearer' })).status).toBe(200);
    const chosen = await admin(sb, '/rotate-key', { apiKey: 'sk_chosen_1234' });
    expect(chosen.body.apiKey).toBe('sk_chosen_1234');
    expect((await call(sb, '/balance', { key: newKey })).status).toBe(401);
    expect((await call(sb, '/balance', { key: 'sk_chosen_1234' })).status).toBe(200);
  });
});

describe('sandbox API: errors', () => {
  it('answers not_found for unknown and non-integer task ids, naming the id', async () => {
    const sb = await start();
    const missing = await call(sb, '/tasks/42');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: { code: 'not_found', message: 'Task 42 not found' } });
    for (const id of ['abc', '1.5', '-1', '1e3']) {
      const res = await call(sb, `/tasks/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: `Task ${id} not found` });
    }
  });

  it('answers not_found for an unknown service', async () => {
    const sb = await start();
    const res = await createTask(sb, ['a'], 'nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'not_found', message: "Service 'nope' not found" });
  });

  it("answers JSON 404 for unknown routes: inside /api/v1 the API's not_found, outside it not the API's error body", async () => {
    const sb = await start();
    const inside = await call(sb, '/whatever');
    expect(inside.status).toBe(404);
    expect(inside.body.error.code).toBe('not_found');
    const outside = await fetch(`${sb.origin}/favicon.ico`);
    expect(outside.status).toBe(404);
    expect((await outside.json()) as Json).toEqual({
      message: 'No such endpoint: /favicon.ico (the API lives under /api/v1)',
    });
  });

  it('answers 405 method_not_allowed with Allow', async () => {
    const sb = await start();
    const del = await call(sb, '/tasks/1', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET');
    expect(del.body.error.code).toBe('method_not_allowed');
    const put = await call(sb, '/tasks', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect((await call(sb, '/balance', { method: 'POST', body: {} })).headers.get('allow')).toBe('GET');
  });

  it.each([
    [{}, 'service is required'],
    [{ service: 5, items: ['a'] }, 'service must be a non-empty string'],
    [{ service: 'domain_check_availability' }, 'items is required'],
    [{ service: 'domain_check_availability', items: 'a.com' }, 'items must be an array of strings'],
    [{ service: 'domain_check_availability', items: [] }, 'items must not be empty'],
    [{ service: 'domain_check_availability', items: ['a', 7] }, 'items[1] must be a string'],
    [{ service: 'domain_check_availability', items: ['a', ''] }, 'items[1] must not be empty'],
    [{ service: 'domain_check_availability', items: ['x'.repeat(2049)] }, 'items[0] is longer than 2048 characters'],
    [[1, 2], 'request body must be a JSON object'],
  ])('rejects create body %j with validation_error 422', async (body, message) => {
    const sb = await start();
    const res = await call(sb, '/tasks', { body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ success: false, error: { code: 'validation_error', message } });
  });

  it('accepts the one-target create body (platform, service_name, target) as a task of one item', async () => {
    const sb = await start({ balance: 100 });
    const body = { platform: 'domain', service_name: 'domain_whois_history', target: 'example.com' };
    const res = await call(sb, '/tasks', { body });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ id: 1, service: 'domain_whois_history', total_items: 1, cost: 5 });
    expect((await call(sb, '/tasks/1')).body.data.items).toEqual([expect.objectContaining({ target: 'example.com' })]);
    expect((await call(sb, '/balance')).body.data.balance).toBe(95);
  });

  it("refuses a one-target body whose platform is not its service's, or that misses a field, and charges nothing", async () => {
    const sb = await start({ balance: 100 });
    const refused = async (body: Json) => {
      const res = await call(sb, '/tasks', { body });
      expect(res.status).toBe(422);
      return res.body.error;
    };
    expect(await refused({ platform: 'facebook', service_name: 'domain_check_availability', target: 'a.com' })).toEqual(
      {
        code: 'validation_error',
        message: 'platform "facebook" is not the platform of domain_check_availability (domain)',
      },
    );
    expect((await refused({ service_name: 'domain_check_availability', target: 'a.com' })).message).toBe(
      'platform is required',
    );
    expect((await refused({ platform: 'domain', service_name: 'domain_check_availability' })).message).toBe(
      'target is required',
    );
    expect(
      (await refused({ platform: 'domain', service_name: 'domain_check_availability', target: 'a b' })).message,
    ).toMatch(/^target "a b": /);
    const unknown = await call(sb, '/tasks', { body: { platform: 'domain', service_name: 'nope', target: 'a.com' } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    expect((await call(sb, '/balance')).body.data.balance).toBe(100);
  });

  it('accepts an item of exactly 2048 characters', async () => {
    const sb = await start();
    expect((await createTask(sb, ['x'.repeat(2048)], 'fanpage_extract_contact')).status).toBe(201);
  });

  it("refuses items the service's rule refuses with 422, naming the first, and charges nothing", async () => {
    const sb = await start({ balance: 100 });
    const res = await createTask(sb, ['me@example.com', 'x1.com'], 'email_verify');
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: 'items[1] "x1.com": needs an "@": an e-mail address is NAME@DOMAIN',
    });
    expect((await createTask(sb, ['a.com', 'https://a.com/x'])).body.error.message).toMatch(/^items\[1\] .*a URL/);
    expect((await call(sb, '/balance')).body.data.balance).toBe(100);
  });

  it('limits items per task to maxItems', async () => {
    const sb = await start({ maxItems: 3 });
    const res = await createTask(sb, ['a.com', 'b.com', 'c.com', 'd.com']);
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ code: 'validation_error', message: 'too many items: 4 (max 3)' });
    expect((await createTask(sb, ['a.com', 'b.com', 'c.com'])).status).toBe(201);
  });

  it('rejects malformed JSON with 422 and a non-JSON content type with 415', async () => {
    const sb = await start();
    const bad = await call(sb, '/tasks', { body: '{"service": ' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.message).toBe(
      'request body is not valid JSON (it ends before the JSON is complete); send a JSON object: {"service": NAME, "items": [...]}',
    );
    const form = await call(sb, '/tasks', {
      body: 'service=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('validation_error');
    const charset = await call(sb, '/tasks', {
      body: { service: 'domain_check_availability', items: ['a.com'] },
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });

  it('refuses a body over 16 MiB with 413, without creating anything', async () => {
    const sb = await start();
    // Just past the cap: an item of 16 MiB, and the JSON around it the bytes over (a larger body only costs more).
    const huge = JSON.stringify({ service: 'domain_check_availability', items: ['x'.repeat(16 * 1024 * 1024)] });
    const res = await call(sb, '/tasks', { body: huge });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(/larger than 16 MiB/);
    expect((await call(sb, '/tasks')).body.meta.total_count).toBe(0);
  });

  it('refuses a chunked body that grows past the cap with 413', async () => {
    const sb = await start();
    const url = new URL(`${sb.url}/tasks`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { 'X-API-Key': sb.apiKey, 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      const write = (left: number): void => {
        if (left === 0) return void req.end();
        if (req.write(chunk)) write(left - 1);
        else req.once('drain', () => write(left - 1));
      };
      write(17);
    });
    expect(status).toBe(413);
  });
});
