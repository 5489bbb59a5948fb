/**
 * `show` of a task whose counts contradict each other (more items counted than `total_items`): the same one warning on
 * stderr as `wait` gives (lib/task-state.ts `disagreeingCountsWarner`), once a task, in every format and with `-q`
 * (a warning, docs/behaviour.md#quiet); stdout holds only the output asked for, so a pipe stays clean.
 */
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

/** Task `id`: `completed_items` of 3, though `total_items` is 1 (three items listed, all completed). */
function disagreeing(id: number) {
  return {
    success: true,
    data: {
      id,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 1,
      completed_items: 3,
      failed_items: 0,
      cost: 3,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: new Date(T0).toISOString(),
      items: ['a.com', 'b.com', 'c.com'].map((target) => ({ target, status: 'completed', data: { available: true } })),
    },
  };
}

function api(...ids: number[]) {
  const mock = mockApi();
  for (const id of ids) mock.reply('GET', `/tasks/${id}`, 200, disagreeing(id));
  return mock;
}

const warnings = (stderr: string) => stderr.split('\n').filter((line) => line.includes('counts disagree'));

describe('show: counts that disagree', () => {
  it.each([
    [
      'a table on a terminal',
      ['show', '7'],
      { stdoutTTY: true, stderrTTY: true, columns: 100, env: { NO_COLOR: '1' } },
    ],
    ['csv', ['show', '7', '-o', 'csv'], {}],
    ['json', ['show', '7', '-o', 'json'], {}],
    ['-q: the targets alone', ['show', '7', '-q'], {}],
  ] as const)('%s: one warning on stderr naming both counts, none on stdout', async (_, argv, terminal) => {
    const result = await runTaskctl([...argv], { api: api(7), ...terminal });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toEqual([
      expect.stringMatching(/^warning: task 7: the service's counts disagree: 3 items counted, but total_items is 1; /),
    ]);
    expect(result.stdout).not.toContain('disagree');
  });

  it('-q: stdout is the targets, for the next command', async () => {
    const result = await runTaskctl(['show', '7', '-q'], { api: api(7) });
    expect(result.stdout).toBe('a.com\nb.com\nc.com\n');
  });

  it('several tasks: one warning each', async () => {
    const result = await runTaskctl(['show', '7', '8', '-o', 'tsv'], { api: api(7, 8) });
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr).map((line) => /task (\d+)/.exec(line)?.[1])).toEqual(['7', '8']);
  });
});

describe('show: counts that say worse than the items', () => {
  it('summarises the worse reading, with one warning naming both', async () => {
    const mock = mockApi();
    const answer = disagreeing(8);
    Object.assign(answer.data, { total_items: 4, completed_items: 1, failed_items: 3 });
    answer.data.items.push({ target: 'd.com', status: 'completed', data: { available: true } });
    mock.reply('GET', '/tasks/8', 200, answer);
    const result = await runTaskctl(['show', '8'], {
      api: mock,
      stdoutTTY: true,
      columns: 100,
      env: { NO_COLOR: '1' },
    });
    expect(warnings(result.stderr)).toEqual([
      expect.stringMatching(
        /^warning: task 8: the service's counts disagree with its items: .* taken as 1\/4, 3 failed/,
      ),
    ]);
    expect(result.stdout).toMatch(/1 completed, 3 failed/);
  });
});
