/** Counts for a person carry thousands separators everywhere (`2,000`, `101/2,000`); scripts get plain digits. */
import { describe, expect, it } from 'vitest';
import { countsText } from '../../../src/output/task-columns.js';
import { mockApi, replyServices, runTaskctl, T0 } from '../commands/run-in-process.js';

const BIG = {
  id: 7,
  service: 'domain_check_availability',
  status: 'processing',
  total_items: 2000,
  completed_items: 101,
  failed_items: 0,
  cost: 2000,
  created_at: new Date(T0 - 60_000).toISOString(),
  started_at: new Date(T0 - 50_000).toISOString(),
};

const person = { stdoutTTY: true, columns: 120, env: { NO_COLOR: '1' } };

describe('counts for a person', () => {
  it('the one counts text separates thousands', () => {
    expect(countsText({ total: 2000, completed: 1999, failed: 1 })).toBe('1,999/2,000, 1 failed');
    expect(countsText({ total: 12_345 })).toBe('12,345');
  });

  it('a dry run the balance does not cover names both amounts with separators', async () => {
    const api = mockApi();
    replyServices(api, 5);
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 10_000, currency: 'coins' } });
    const items = Array.from({ length: 2_001 }, (_, i) => `d${i}.com`);
    const result = await runTaskctl(['create', 'domain_check_availability', ...items, '--dry-run'], { api, ...person });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('the estimate is 10,005 coins, above the balance of 10,000');
    expect(result.stderr).toContain('The balance covers 2,000 of the 2,001 items.');
  });

  it('show: Items: 2,000 (101 completed, 0 failed) next to Cost: 2,000', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: BIG });
    const result = await runTaskctl(['show', '7'], { api, ...person });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Items: +2,000 \(101 completed, 0 failed\)/i);
    expect(result.stdout).toMatch(/Cost: +2,000/i);
  });

  it('list: 101/2,000 in the table, 2000 in tsv', async () => {
    const api = mockApi();
    const page = {
      success: true,
      data: [BIG],
      meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 },
    };
    api.reply('GET', /^\/tasks\?/, 200, page, { times: 2 });
    const table = await runTaskctl(['list'], { api, ...person });
    expect(table.stdout).toContain('101/2,000');
    const tsv = await runTaskctl(['list', '-o', 'tsv'], { api });
    expect(tsv.stdout).toContain('\t2000\t');
    expect(tsv.stdout).not.toMatch(/\d,\d{3}/);
  });

  it('watch: 101/2,000 on the line', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: BIG });
    api.reply(
      'GET',
      '/tasks/7',
      200,
      {
        success: true,
        data: { ...BIG, status: 'completed', completed_items: 2000, completed_at: new Date(T0).toISOString() },
      },
      { times: 2 },
    );
    api.allowUnused();
    const human = await runTaskctl(['watch', '7'], { api, ...person });
    expect(human.stdout).toMatch(/processing +101\/2,000$/m);
    expect(human.stdout).toMatch(/completed +2,000\/2,000$/m);
  });
});
