/** `taskctl balance` in-process: the seam every command's behaviour tests use (see run-in-process.ts). */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../run-in-process.js';

describe('balance (in-process)', () => {
  it('prints the balance from the reference form as JSON and exits 0', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1234, currency: 'coins' } });
    const result = await runTaskctl(['balance', '-o', 'json'], { api });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ balance: 1234, currency: 'coins' });
    expect(api.calls).toEqual(['GET /balance']);
  });

  it('accepts the top-level balance variant', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, balance: 7, currency: 'coins' });
    const result = await runTaskctl(['balance', '-o', 'tsv'], { api });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^7\b/);
  });

  it('keeps unknown balance fields in -o json, in both forms', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 3, currency: 'coins', reserved: 1 } });
    api.reply('GET', '/balance', 200, { success: true, balance: 3, currency: 'coins', reserved: 1 });
    for (let i = 0; i < 2; i++) {
      const result = await runTaskctl(['balance', '-o', 'json'], { api });
      expect(JSON.parse(result.stdout)).toEqual({ balance: 3, currency: 'coins', reserved: 1 });
    }
  });

  it('exits 4 on 401 with one error line and a hint, never the key', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 401, {
      success: false,
      error: { code: 'unauthorized', message: 'Invalid or missing API key' },
    });
    const result = await runTaskctl(['balance'], { api });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: .*Invalid or missing API key/m);
    expect(result.stderr).not.toContain('sk_test_inprocess_9876');
  });

  it('is one line on a terminal (1,234 coins); tsv and csv keep the two fields', async () => {
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 1234, currency: 'coins' } }, { times: 3 });
    const table = await runTaskctl(['balance'], { api, stdoutTTY: true });
    expect(table.stdout).toBe('1,234 coins\n');
    expect((await runTaskctl(['balance', '-o', 'tsv'], { api })).stdout).toBe('1234\tcoins\n');
    expect((await runTaskctl(['balance', '-o', 'csv'], { api })).stdout).toBe('balance,currency\n1234,coins\n');
  });
});
