/**
 * An ended task whose counts leave items out (`completed_items: 1`, `failed_items: 0` of `total_items: 5`): `list`'s
 * ITEMS and `watch`'s lines say the service did not account for four items (`1/5, 4 not listed`, as `wait` says of a
 * task whose items list one), never that four failed, which nothing said. Machine formats keep the service's fields.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0, type RunOptions } from '../run-in-process.js';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const task = (status: string) => ({
  id: 7,
  service: 'domain_check_availability',
  status,
  total_items: 5,
  completed_items: status === 'completed' ? 1 : 0,
  failed_items: 0,
  cost: 5,
  created_at: iso(T0 - 60_000),
  ...(status === 'completed' ? { completed_at: iso(T0 - 1000) } : {}),
});
const page = (status: string) => ({
  success: true,
  data: [task(status)],
  meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 25 },
});
const terminal: RunOptions = { stdoutTTY: true, stderrTTY: true, columns: 120, env: { NO_COLOR: '1' } };

describe('an ended task whose counts leave items out', () => {
  it('list on a terminal: `1/5, 4 not listed`', async () => {
    const api = mockApi();
    api.reply('GET', /^\/tasks\?/, 200, page('completed'));
    const result = await runTaskctl(['list'], { api, ...terminal });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/ 1\/5, 4 not listed /);
    expect(result.stdout).not.toMatch(/failed/);
  });

  it("list -o json: the service's fields as sent", async () => {
    const api = mockApi();
    api.reply('GET', /^\/tasks\?/, 200, page('completed'));
    const result = await runTaskctl(['list', '-o', 'json'], { api });
    expect(JSON.parse(result.stdout)).toEqual([expect.objectContaining({ completed_items: 1, failed_items: 0 })]);
  });

  it('watch without ids: its line says `1/5, 4 not listed`; not a success (exit 11)', async () => {
    const api = mockApi();
    api.reply('GET', /^\/tasks\?/, 200, page('processing'));
    api.reply('GET', /^\/tasks\?/, 200, page('completed'));
    const result = await runTaskctl(['watch', '-o', 'table'], { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(11);
    expect(result.stdout).toMatch(/completed +1\/5, 4 not listed\n$/);
    expect(result.stdout).not.toMatch(/failed/);
  });

  it('wait: its warning says what the counts account for, not what a list of items holds', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: task('completed') });
    const result = await runTaskctl(['wait', '7'], { api, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(11);
    expect(result.stderr).toContain(
      'warning: task 7 completed, but its counts account for 1 of its 5 items: taskctl show 7 -o json',
    );
  });
});
