/**
 * A read of task N that answers another task: a service error, exit 8 naming both ids, in `show`, `wait`
 * and `watch` alike, never task N's data under another id and never "still running".
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';

const other = {
  id: 8,
  service: 'domain_check_availability',
  status: 'pending',
  total_items: 1,
  cost: 1,
  created_at: '2026-11-25T12:00:00Z',
  completed_at: null,
  items: [{ target: 'a.com', status: 'pending', data: null }],
};
const list = {
  success: true,
  data: [{ ...other, id: 7, items: undefined }],
  meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 100 },
};

describe('GET /tasks/7 answered with task 8', () => {
  it.each([
    ['show', ['show', '7']],
    ['wait', ['wait', '7', '--timeout', '1m']],
    ['watch', ['watch', '7', '--timeout', '1m']],
  ])('%s: exit 8 naming both ids, nothing printed as task 7', async (_name, argv) => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: other }, { times: 10 });
    api.reply('GET', /^\/tasks\?/, 200, list, { times: 10 });
    api.allowUnused(); // show and wait read the task, watch may read the list: each command needs one of the two
    const result = await runTaskctl(argv, { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(/GET \/tasks\/7: the server answered with task 8 instead of task 7/);
    expect(result.stdout).not.toMatch(/^8\t/m);
    expect(api.calls.filter((call) => call === 'GET /tasks/7').length).toBeGreaterThanOrEqual(1);
  });
});

describe('a malformed entry in GET /tasks', () => {
  it.each([
    ['watch', ['watch', '--timeout', '1m']],
    ['list', ['list']],
  ])('%s: exit 8 naming the field, never read as "still running"', async (_name, argv) => {
    const api = mockApi();
    const broken = { ...list, data: [{ ...list.data[0], id: 'seven' }] };
    api.reply('GET', /^\/tasks\?/, 200, broken, { times: 10 });
    api.reply('GET', '/tasks/7', 200, { success: true, data: { ...other, id: 7 } }, { times: 10 });
    api.allowUnused(); // the list's broken entry ends both commands before any read of the task
    const result = await runTaskctl(argv, { api });
    expect(result.code, result.stderr).toBe(8);
    expect(result.stderr).toMatch(/unexpected response from the server \(data\[0\]\.id: should be a number/);
  });
});
