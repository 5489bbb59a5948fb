/**
 * A job stopped part-way by something the user must fix before it can get further names that first, then the resume:
 * a key the service refused (its own advice: where the key came from), a balance that ran out (top up). A resume
 * alone would meet the same refusal.
 */
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

  it('the balance ran out (402): exit 6, top up, then the resume', async () => {
    const result = await create(secondRefused(402, 'insufficient_balance', 'Insufficient balance'));
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('created 1 of 2 tasks before that: 1\n');
    expect(result.stderr).toMatch(/\nTop up the balance, then continue it: taskctl resume j-\S+\n$/);
  });
});
