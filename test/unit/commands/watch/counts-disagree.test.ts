/**
 * `watch` of tasks whose counts contradict each other (more items counted than `total_items`): the same one warning on
 * stderr as `wait`, `show` and `list` give (lib/task-state.ts `disagreeingCountsWarner`), once a task however many of
 * its changes are printed, in every format and with `-q`; stdout holds only the changes. What it remembers of the
 * tasks it warned about is bounded (lib/task-state.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0, type RunOptions } from '../run-in-process.js';

/** Task `id` listing `completed` completed items, though its `total_items` is 1. */
function disagreeing(id: number, status: string, completed: number) {
  return {
    success: true,
    data: {
      id,
      service: 'domain_check_availability',
      status,
      total_items: 1,
      completed_items: completed,
      failed_items: 0,
      cost: 3,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: status === 'completed' ? new Date(T0).toISOString() : null,
      items: ['a.com', 'b.com', 'c.com']
        .slice(0, completed)
        .map((target) => ({ target, status: 'completed', data: { available: true } })),
    },
  };
}

/** Task 7 seen three times, 2/1 then 3/1 while processing, then completed at 3/1; task 8 (if asked) completed at 2/1. */
function api(withEight = true) {
  const mock = mockApi();
  mock.reply('GET', '/tasks/7', 200, disagreeing(7, 'processing', 2));
  mock.reply('GET', '/tasks/7', 200, disagreeing(7, 'processing', 3));
  mock.reply('GET', '/tasks/7', 200, disagreeing(7, 'completed', 3));
  if (withEight) mock.reply('GET', '/tasks/8', 200, disagreeing(8, 'completed', 2));
  return mock;
}

/** The warnings on stderr, each on one line again (a terminal's are wrapped to its width). */
const warnings = (stderr: string) =>
  stderr
    .trimEnd()
    .replace(/\n(?!warning:|\S+Z {2}|watching )/g, ' ')
    .split('\n')
    .filter((line) => line.includes('counts disagree'));

const person: RunOptions = { stdoutTTY: true, stderrTTY: true, columns: 80, env: { NO_COLOR: '1' } };

describe('watch: counts that disagree', () => {
  it.each([
    ['human lines at 80 columns', [], person],
    ['tsv', ['-o', 'tsv'], {}],
    ['ndjson', ['-o', 'ndjson'], {}],
    ['-q', ['-q'], {}],
  ] as const)('%s: one warning a task on stderr naming both counts, none on stdout', async (_, flags, terminal) => {
    const result = await runTaskctl(['watch', '7', '8', ...flags], { api: api(), clock: new FakeClock(), ...terminal });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toEqual([
      "warning: task 7: the service's counts disagree: 2 items counted, but total_items is 1; only its status says when it is finished",
      "warning: task 8: the service's counts disagree: 2 items counted, but total_items is 1; only its status says when it is finished",
    ]);
    expect(result.stdout).not.toContain('disagree');
  });

  it('what a person sees at 80 columns: the counts as they came, each warning whole above the lines it is about', async () => {
    const result = await runTaskctl(['watch', '7'], { api: api(false), clock: new FakeClock(), ...person });
    expect(result.code, result.stderr).toBe(0);
    const screen = (result.output ?? '').trimEnd().split('\n');
    expect(screen.map((line) => line.replace(/^\S+Z {2}/, ''))).toEqual([
      'watching task 7; Ctrl-C to stop',
      "warning: task 7: the service's counts disagree: 2 items counted, but",
      'total_items is 1; only its status says when it is finished',
      'task 7  domain_check_avail…  processing  2/1',
      'task 7  domain_check_avail…  processing  3/1',
      'task 7  domain_check_avail…  completed   3/1',
    ]);
    for (const line of screen) expect(line.length).toBeLessThan(80);
  });
});
