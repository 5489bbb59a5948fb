/**
 * A job stopped part-way by something the user must fix before it can get further names that first, then the resume:
 * a key the service refused (its own advice: where the key came from), a balance that ran out (top up). A resume
 * alone would meet the same refusal.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mockApi, replyNoTasks, replyServices, runTaskctl, type MockApi } from '../run-in-process.js';

const task = {
  id: 1,
  service: 'domain_check_availability',
  status: 'pending',
  total_items: 1,
  cost: 1,
  created_at: '2025-01-15T12:00:00.100Z',
  completed_at: null,
  items: [{ target: 'a.com', status: 'pending', data: null }],
};

/** Chunk 1 created; chunk 2's POST answered `status` with `code`. */
function secondRefused(status: number, code: string, message: string): MockApi {
  const api = mockApi();
  replyServices(api);
  api.reply('GET', '/balance', 200, { success: true, data: { balance: 100, currency: 'coins' } });
  replyNoTasks(api);
  api.reply('POST', '/tasks', 201, { success: true, data: task });
  replyNoTasks(api);
  api.reply('POST', '/tasks', status, { success: false, error: { code, message } });
  return api;
}

const create = (api: MockApi) =>
  runTaskctl(['create', 'domain_check_availability', 'a.com', 'b.com', '--chunk-size', '1'], { api });

describe('a job stopped by a refusal the user must fix first', () => {
  it('the key refused (rotated mid-job): exit 4, the key advice, then the resume', async () => {
    const result = await create(secondRefused(401, 'unauthorized', 'Invalid or missing API key'));
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('created 1 of 2 tasks before that: 1\n');
    expect(result.stderr).toMatch(
      /\nThe key from TASKCTL_API_KEY was refused: check or unset it \(.*\)\. Then continue it: taskctl resume j-\S+\n$/,
    );
  });

  it('the key refused on chunk 1, nothing created: the key advice, then the same command again; no job is left', async () => {
    const api = mockApi();
    replyServices(api);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 100, currency: 'coins' } });
    replyNoTasks(api);
    api.reply('POST', '/tasks', 401, {
      success: false,
      error: { code: 'unauthorized', message: 'Invalid or missing API key' },
    });
    const home = mkdtempSync(join(tmpdir(), 'taskctl-key-refused-'));
    try {
      const result = await runTaskctl(['create', 'domain_check_availability', 'a.com', 'b.com', '--chunk-size', '1'], {
        api,
        home,
      });
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toMatch(
        /\nThe key from TASKCTL_API_KEY was refused: check or unset it \(.*\)\. Then run the same command again\.\n$/,
      );
      expect(result.stderr).not.toMatch(/resume|created \d+ of/);
      // Nothing of it reached the service: no job to resume, none for `taskctl jobs` to describe.
      expect(readdirSync(join(home, 'state', 'jobs'))).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('the key refused on chunk 1 of a --journal FILE: the same command again, with the key fixed, starts it anew', async () => {
    const home = mkdtempSync(join(tmpdir(), 'taskctl-key-refused-'));
    const argv = ['create', 'domain_check_availability', 'a.com', '--journal', join(home, 'j.jsonl'), '-q'];
    try {
      const refusedApi = mockApi();
      replyServices(refusedApi);
      replyNoTasks(refusedApi);
      refusedApi.reply('POST', '/tasks', 401, {
        success: false,
        error: { code: 'unauthorized', message: 'Invalid or missing API key' },
      });
      const refused = await runTaskctl(argv, { api: refusedApi, home, env: { TASKCTL_API_KEY: 'wrong' } });
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/Then run the same command again\.\n$/);

      const api = mockApi(); // the services' price is cached by the first run
      replyNoTasks(api);
      api.reply('POST', '/tasks', 201, { success: true, data: task });
      const again = await runTaskctl(argv, { api, home, env: { TASKCTL_API_KEY: 'sk_fixed' } });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('1\n');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('the balance ran out (402): exit 6, top up, then the resume', async () => {
    const result = await create(secondRefused(402, 'insufficient_balance', 'Insufficient balance'));
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('created 1 of 2 tasks before that: 1\n');
    expect(result.stderr).toMatch(/\nTop up the balance, then continue it: taskctl resume j-\S+\n$/);
  });
});
