/** A note on how much is shown comes first: at the top of the pager's first screen, or before the table unpaged. */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mockApi, runTaskctl, T0 } from '../run-in-process.js';

const NOTE = 'warning: showing the first 1,000 of 2,000 items of task 7; use -o tsv or -o csv to get them all';

function bigTask() {
  const api = mockApi();
  const items = Array.from({ length: 2000 }, (_, i) => ({
    target: `d${i}.com`,
    status: 'completed',
    data: { available: true },
  }));
  api.reply('GET', '/tasks/7', 200, {
    success: true,
    data: {
      id: 7,
      service: 'domain_check_availability',
      status: 'completed',
      total_items: 2000,
      cost: 2000,
      created_at: new Date(T0 - 600_000).toISOString(),
      completed_at: new Date(T0 - 540_000).toISOString(),
      items,
    },
  });
  return api;
}

describe('show: the note of what is shown', () => {
  it('is the first line the pager shows', async () => {
    const paged: string[] = [];
    const result = await runTaskctl(['show', '7'], {
      api: bigTask(),
      stdoutTTY: true,
      stderrTTY: true,
      columns: 100,
      rows: 24,
      pager: (text) => {
        paged.push(text);
        return Promise.resolve(true);
      },
    });
    expect(result.code).toBe(0);
    expect(paged).toHaveLength(1);
    expect(stripVTControlCharacters(paged[0] ?? '').split('\n')[0]).toBe(NOTE);
    // Nothing is left to say after the pager is left.
    expect(result.stderr).toBe('');
  });

  it('comes before the table when there is no pager', async () => {
    const result = await runTaskctl(['show', '7'], { api: bigTask(), stdoutTTY: true, columns: 100 });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(NOTE);
  });
});
