/**
 * `watch` at a terminal, tasks with long ids (ten digits and more): at 80 columns each line fits whole, the service
 * name giving way further (cut with `…`) so the counts stay on the line; at 50 columns, too narrow for the line, it
 * breaks after the id and the rest (service, status, counts) is one line, the counts never split. An id is never cut.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

const S = 'domain_check_availability';

/** Task `id` of one item: processing, then completed with its item failed (the widest counts of one item). */
function task(id: number, done: boolean) {
  return {
    success: true,
    data: {
      id,
      service: S,
      status: done ? 'completed' : 'processing',
      total_items: 1,
      completed_items: 0,
      failed_items: done ? 1 : 0,
      cost: 1,
      created_at: new Date(T0 - 6_000).toISOString(),
      completed_at: done ? new Date(T0).toISOString() : null,
      items: [{ target: 'a.com', status: done ? 'failed' : 'processing' }],
    },
  };
}

async function watched(id: number, columns: number): Promise<string[]> {
  const api = mockApi();
  api.reply('GET', `/tasks/${id}`, 200, task(id, false));
  api.reply('GET', `/tasks/${id}`, 200, task(id, true));
  const result = await runTaskctl(['watch', String(id)], {
    api,
    clock: new FakeClock(),
    stdoutTTY: true,
    stderrTTY: true,
    columns,
    env: { NO_COLOR: '1' },
  });
  expect(result.code, result.stderr).toBe(11); // its item failed
  return result.stdout.split('\n').filter((line) => line !== '');
}

const IDS = [1_234_567_890, 1_234_567_890_123];

describe('watch: long ids at a terminal', () => {
  it.each(IDS)('80 columns, task %i: one line each, within the width, the counts on it', async (id) => {
    const lines = await watched(id, 80);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\S+Z  task ${id}  domain_\\S*…  processing  0/1$`)),
      expect.stringMatching(new RegExp(`^\\S+Z  task ${id}  domain_\\S*…  completed   0/1, 1 failed$`)),
    ]);
    for (const line of lines) expect(line.length, line).toBeLessThan(80);
    // The columns line up.
    expect(new Set(lines.map((line) => line.search(/ (processing|completed)/))).size).toBe(1);
  });

  it.each(IDS)('50 columns, task %i: broken after the id, the rest on one line, the counts whole', async (id) => {
    const lines = await watched(id, 50);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\S+Z  task ${id}$`)),
      expect.stringMatching(/^ {2}domain_\S*\s+processing {2}0\/1$/),
      expect.stringMatching(new RegExp(`^\\S+Z  task ${id}$`)),
      expect.stringMatching(/^ {2}domain_\S*\s+completed {3}0\/1, 1 failed$/),
    ]);
    for (const line of lines) expect(line.length, line).toBeLessThan(50);
  });
});
