import { expect, it } from 'vitest';
import { parseTaskId } from '../../../src/lib/task-id.js';
import { task } from '../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../commands/run-in-process.js';

it('takes whole numbers, 0 included (a server may number from 0), and #42 as copied from a table', () => {
  expect(['0', '42', '#42', ' 7 '].map(parseTaskId)).toEqual([0, 42, 42, 7]);
  for (const bad of ['-1', 'abc', '1.5', '', '1e3', '1234567890123456'])
    expect(() => parseTaskId(bad)).toThrow(/invalid task id/);
});

it('show 0 reads task 0', async () => {
  const api = mockApi();
  api.reply('GET', '/tasks/0', 200, { success: true, data: task(0, { items: [] }) });
  const result = await runTaskctl(['show', '0', '-o', 'json'], { api });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ id: 0 });
});
