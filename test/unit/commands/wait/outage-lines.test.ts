/**
 * A script's `wait` (progress as lines on stderr) through an outage: no line states counts under a time stamp they were
 * not read at, and the elapsed time a line shows never goes back.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { FakeClock, T0 } from '../../../clock.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const at = (ms: number) => new Date(T0 + ms).toISOString();
const bad = { success: false, error: { code: 'internal_error', message: 'upstream down' } };

describe('wait: progress lines through an outage', () => {
  it('prints no heartbeat from old counts while the service fails; the final elapsed is not behind an earlier one', async () => {
    const clock = new FakeClock();
    const api = mockApi();
    api.allowUnused(); // the failing replies are registered generously
    const running = task(1, {
      status: 'processing',
      total_items: 40,
      completed_items: 3,
      failed_items: 0,
      started_at: at(0),
      completed_at: null,
    });
    api.reply('GET', '/tasks/1', 200, { success: true, data: running });
    api.reply('GET', '/tasks/1', 502, bad, { times: 80 });
    const done = { ...running, status: 'completed', completed_items: 40, completed_at: at(120_000) };
    api.reply('GET', '/tasks/1', 200, { success: true, data: done }, { times: 10 });
    const result = await runTaskctl(['wait', '1', '--outage-tolerance', '10m', '-o', 'tsv'], { api, clock });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => /^\S+Z .*task 1 /.test(line));
    // The first answer's line, then the completed one: nothing in between repeats 3/40 with a later time stamp.
    expect(lines, result.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/task 1 processing items 3\/40/);
    expect(lines[1]).toMatch(/✓ task 1 completed items 40\/40 .*, 2:00 elapsed$/);
    // The failed rounds said how long since the last good answer (the log's sign of life meanwhile), in watch's words.
    expect(result.stderr).toMatch(
      /warning: reading task 1: the service failed \(HTTP 502, internal_error: upstream down\) after 4 attempts; no good answer for \d+m(\d+s)?, still polling \(giving up in /,
    );
    const elapsed = lines
      .map((line) => /(\d+):(\d+) elapsed$/.exec(line))
      .map((m) => Number(m?.[1]) * 60 + Number(m?.[2]));
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
  });
});
