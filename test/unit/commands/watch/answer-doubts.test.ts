/**
 * `watch` on answers the follow engine doubts, warned about as `wait` warns: a task the service reports going back
 * (processing 3/4, then pending 0/4), once; the run still follows the task to its end. A page that names a task twice,
 * once a task however many rounds read it so.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/task-json.js';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

/** Task 1's answer: four items, created 6 s before T0, completed at T0. */
function answer(status: string, completed: number) {
  return {
    success: true,
    data: task(1, {
      status,
      total_items: 4,
      completed_items: completed,
      failed_items: 0,
      cost: 4,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: status === 'completed' ? new Date(T0).toISOString() : null,
    }),
  };
}

describe('watch: a task going back', () => {
  it('warns once, as wait does, and follows the task to its end', async () => {
    const mock = mockApi();
    mock.reply('GET', '/tasks/1', 200, answer('processing', 3));
    mock.reply('GET', '/tasks/1', 200, answer('pending', 0));
    mock.reply('GET', '/tasks/1', 200, answer('processing', 3));
    mock.reply('GET', '/tasks/1', 200, answer('pending', 0));
    mock.reply('GET', '/tasks/1', 200, answer('completed', 4));
    const result = await runTaskctl(['watch', '1', '-o', 'tsv'], { api: mock, clock: new FakeClock() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('went back'))).toEqual([
      'warning: task 1 went back: processing 3/4, then pending 0/4: the service reported it going back; shown as it said',
    ]);
  });
});

describe('watch --follow: a page that names a finished task twice at every read', () => {
  it('warns once, and prints no line of the task: it finished before the watch began', async () => {
    const mock = mockApi();
    const done = answer('completed', 4).data;
    mock.reply(
      'GET',
      /^\/tasks\?/,
      200,
      { success: true, data: [done, done], meta: { current_page: 1, total_pages: 1, total_count: 2, per_page: 100 } },
      { times: 1000 },
    );
    mock.reply('GET', '/tasks/1', 200, answer('completed', 4), { times: 1000 });
    mock.allowUnused();
    const result = await runTaskctl(['watch', '--follow', '--timeout', '2m', '-o', 'table'], {
      api: mock,
      clock: new FakeClock(),
    });
    expect(result.code, result.stderr).toBe(124);
    expect(result.stdout).toBe('');
    // Never announced as a task being watched: no read had said it was unfinished.
    expect(result.stderr).toContain('watching for new tasks (none is unfinished now)');
    expect(result.stderr.split('\n').filter((line) => line.includes('twice'))).toEqual([
      'warning: page 1 of the task list names task 1 twice (completed, completed): the answer contradicts itself; its own read: taskctl show 1',
    ]);
  });
});
