/**
 * `list` of tasks whose counts contradict each other (more items counted than `total_items`): the same one warning on
 * stderr as `wait` gives (lib/task-state.ts `disagreeingCountsWarner`), once a task listed, in every format and with
 * `-q` (a warning, docs/behaviour.md#quiet); stdout holds only the rows, so a pipe stays clean. A task the filters
 * leave out is not warned about.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

function task(id: number, status: string, completed: number, total: number) {
  return {
    id,
    service: 'domain_check_availability',
    status,
    total_items: total,
    completed_items: completed,
    failed_items: 0,
    cost: total,
    created_at: new Date(T0 - id * 60_000).toISOString(),
    completed_at: status === 'completed' ? new Date(T0 - id * 60_000 + 1000).toISOString() : null,
  };
}

/** Task 9 counts 3 of 1 items (completed), task 8 is right, task 7 counts 5 of 4 while still processing. */
function api() {
  const mock = mockApi();
  mock.reply('GET', /^\/tasks\?/, 200, {
    success: true,
    data: [task(9, 'completed', 3, 1), task(8, 'completed', 2, 2), task(7, 'processing', 5, 4)],
    meta: { current_page: 1, total_pages: 1, total_count: 3, per_page: 25 },
  });
  return mock;
}

const warnings = (stderr: string) => stderr.split('\n').filter((line) => line.includes('counts disagree'));

describe('list: counts that disagree', () => {
  it.each([
    ['a table on a terminal', ['list'], { stdoutTTY: true, stderrTTY: true, columns: 120, env: { NO_COLOR: '1' } }],
    ['tsv', ['list', '-o', 'tsv'], {}],
    ['json', ['list', '-o', 'json'], {}],
    ['-q: the ids alone', ['list', '-q'], {}],
  ] as const)('%s: one warning a task on stderr, none on stdout', async (_, argv, terminal) => {
    const result = await runTaskctl([...argv], { api: api(), ...terminal });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toEqual([
      expect.stringMatching(/^warning: task 9: the service's counts disagree: 3 items counted, but total_items is 1; /),
      expect.stringMatching(/^warning: task 7: the service's counts disagree: 5 items counted, but total_items is 4; /),
    ]);
    expect(result.stdout).not.toContain('disagree');
  });

  it('-q: stdout is the ids, for the next command', async () => {
    const result = await runTaskctl(['list', '-q'], { api: api() });
    expect(result.stdout).toBe('9\n8\n7\n');
  });

  it('a task the filter leaves out is not warned about', async () => {
    const result = await runTaskctl(['list', '--status', 'processing', '-o', 'tsv'], { api: api() });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toEqual([expect.stringMatching(/^warning: task 7: /)]);
  });
});
