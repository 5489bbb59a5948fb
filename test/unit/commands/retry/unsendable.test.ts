/**
 * retry sends the failed items as the service listed them, each through the rules every item meets
 * (docs/commands.md#taskctl-retry-id): a listed target that is no item (a control character, blank, past the length cap) is
 * refused before anything is priced or sent, naming the task and the item, never the job's internal copy of its input.
 */
import { expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

function failedTask(targets: string[]) {
  const items = targets.map((target) => ({ target, status: 'failed', error: 'timeout' }));
  return task(1, {
    status: 'completed',
    total_items: items.length,
    completed_items: 0,
    failed_items: items.length,
    items,
  });
}

it.each([
  ['a line feed', 'a\nb.com', /item 2 of task 1 .*control character U\+000A \(line feed\)/],
  ['a blank target', '   ', /item 2 of task 1 .*is blank/],
  ['a target past the length cap', 'x'.repeat(65_537), /item 2 of task 1 .*longer than 65,536 characters/],
])('%s among the failed items: exit 3 naming the task and the item, nothing sent', async (_, bad, words) => {
  for (const args of [
    ['retry', '1'],
    ['retry', '1', '--dry-run'],
  ]) {
    const api = mockApi();
    api.reply('GET', '/tasks/1', 200, { success: true, data: failedTask(['ok.com', bad]) });
    // Only the task's read is mocked: a price read or a POST would be a request nothing answers.
    const result = await runTaskctl(args, { api });
    expect(result.stderr).toMatch(words);
    expect(result.stderr).toMatch(/nothing was created/);
    expect(result.stderr).toMatch(/taskctl show 1 --items-status failed/);
    expect(result.stderr).not.toMatch(/\.input/);
    expect(result.code).toBe(3);
  }
});
