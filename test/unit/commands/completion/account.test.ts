/** TAB completion of task ids offers the ids of the account the command would use, never another profile's. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl, type MockApi } from '../run-in-process.js';

let home: string | undefined;
afterEach(() => {
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

function tasksPage(api: MockApi, ids: number[], perPage: number) {
  api.reply('GET', `/tasks?page=1&per_page=${perPage}`, 200, {
    success: true,
    data: ids.map((id) => task(id)),
    meta: { current_page: 1, total_pages: 1, total_count: ids.length, per_page: perPage },
  });
}

it("offers the task ids of this profile's account: another key's ids are neither offered nor mixed in", async () => {
  home = mkdtempSync(join(tmpdir(), 'taskctl-complete-'));
  const keyA = { TASKCTL_API_KEY: 'sk_account_a' };
  const keyB = { TASKCTL_API_KEY: 'sk_account_b' };

  const listA = mockApi();
  tasksPage(listA, [12, 11], 25);
  expect((await runTaskctl(['list', '-q'], { api: listA, env: keyA, home })).stdout).toBe('12\n11\n');

  // Account A again: from the cache, no request (the mock has no interceptor left and refuses the network).
  const cachedA = mockApi();
  const fromCache = await runTaskctl(['__complete', 'tasks'], { api: cachedA, env: keyA, home });
  expect(
    fromCache.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t')[0]),
  ).toEqual(['12', '11']);

  // Account B: A's ids are not offered; B's own are fetched and offered.
  const listB = mockApi();
  tasksPage(listB, [3], 25);
  const forB = await runTaskctl(['__complete', 'tasks'], { api: listB, env: keyB, home });
  expect(
    forB.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t')[0]),
  ).toEqual(['3']);
  listB.assertAllUsed();
});
