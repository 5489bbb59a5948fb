/**
 * `watch` of a completed task that lists fewer items than its `total_items`: the machine formats have no "not listed"
 * field, so those items count in `failed_items` (not seen is not a success), and the exit code is wait's (11). The
 * human lines say "not listed", as wait and show do, and a terminal never splits those words across two lines.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl } from '../run-in-process.js';

const task = {
  id: 7,
  service: 'domain_check_availability',
  status: 'completed',
  total_items: 5,
  cost: 5,
  created_at: '2025-01-15T10:59:00Z',
  started_at: '2025-01-15T11:00:00Z',
  completed_at: '2025-01-15T12:30:00Z',
  items: [{ target: 'a.com', status: 'completed', data: { available: true } }],
};

async function watch(format: string) {
  const api = mockApi();
  api.reply('GET', '/tasks/7', 200, { success: true, data: task });
  return runTaskctl(['watch', '7', '-o', format], { api, clock: new FakeClock() });
}

describe('watch: items a completed task does not list', () => {
  it('-o ndjson: the completed event counts them in failed_items; exit 11', async () => {
    const result = await watch('ndjson');
    expect(result.code, result.stderr).toBe(11);
    const [event] = result.stdout.trim().split('\n');
    expect(JSON.parse(event ?? '{}')).toMatchObject({
      event: 'completed',
      task: { total_items: 5, completed_items: 1, failed_items: 4 },
    });
  });

  it('-o tsv: the failed_items column counts them too', async () => {
    const result = await watch('tsv');
    expect(result.code, result.stderr).toBe(11);
    // tsv has no header: timestamp, id, service, status, completed_items, failed_items, total_items.
    const [, , , status, completed, failed, total] = result.stdout.trim().split('\t');
    expect([status, completed, failed, total]).toEqual(['completed', '1', '4', '5']);
  });
});

describe('watch: items a completed task does not list, for a person', () => {
  const partly = {
    ...task,
    items: [
      { target: 'a.com', status: 'completed', data: { available: true } },
      { target: 'b.com', status: 'failed', error: 'boom' },
    ],
  };

  it('in a pipe: "not listed", as wait and show say, never counted failed', async () => {
    for (const [body, counts] of [
      [task, '1/5, 4 not listed'],
      [partly, '1/5, 1 failed, 3 not listed'],
    ] as const) {
      const api = mockApi();
      api.reply('GET', '/tasks/7', 200, { success: true, data: body });
      const result = await runTaskctl(['watch', '7', '-o', 'table'], { api, clock: new FakeClock() });
      expect(result.code, result.stderr).toBe(11);
      expect(result.stdout).toBe(
        `2025-01-15T12:30:00Z  task 7       domain_check_availability  completed   ${counts}\n`,
      );
    }
  });

  it('at 80 columns: the counts wrapped between two of them, "4 not listed" whole under the first, no line too wide', async () => {
    const api = mockApi();
    api.reply('GET', '/tasks/7', 200, { success: true, data: { ...task, status: 'processing', completed_at: null } });
    api.reply('GET', '/tasks/7', 200, { success: true, data: task });
    const result = await runTaskctl(['watch', '7'], {
      api,
      clock: new FakeClock(),
      stdoutTTY: true,
      stderrTTY: true,
      columns: 80,
      env: { NO_COLOR: '1' },
    });
    expect(result.code, result.stderr).toBe(11);
    const lines = result.stdout.trimEnd().split('\n');
    const column = (lines[0] ?? '').indexOf('1/5');
    expect(lines.map((line) => line.replace(/^\S+Z {2}/, ''))).toEqual([
      'task 7  domain_check_avail…  processing  1/5',
      'task 7  domain_check_avail…  completed   1/5,',
      `${' '.repeat(column)}4 not listed`,
    ]);
    for (const line of lines) expect(line.length, line).toBeLessThan(80);
  });
});
