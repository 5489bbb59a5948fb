/**
 * `wait` on a task the service reports going back (processing 3/4, then pending 0/4): one warning, then on to its end;
 * the elapsed time shown for it never goes back (docs/behaviour.md#the-services-clock).
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/task-json.js';
import { FakeClock, mockApi, runTaskctl, T0 } from '../run-in-process.js';

/** Task 1's answer: four items, created 6 s before T0; `times` in ms from T0. */
function answer(status: string, completed: number, times: { started?: number; completed?: number } = {}) {
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  return {
    success: true,
    data: task(1, {
      status,
      total_items: 4,
      completed_items: completed,
      failed_items: 0,
      cost: 4,
      created_at: at(-6_000),
      started_at: times.started === undefined ? null : at(times.started),
      completed_at: status === 'completed' ? at(times.completed ?? 0) : null,
    }),
  };
}

/** `0:08` → 8 (seconds), `1:02` → 62. */
function seconds(clock: string): number {
  return clock.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

/** The elapsed times task 1's lines showed, in order: each frame of the live block, then its last line. */
function elapsedShown(stderr: string): number[] {
  return stderr
    .split(/\x1b\[1G|\n/)
    .map((line) => line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''))
    .map((line) => /task 1 .* (\d+(?::\d\d)+)(?: elapsed)?$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => seconds(match[1] ?? ''));
}

/**
 * Processing since 4 s before the watch, then pending (no start), then processing again with a start 3 s on (a service
 * that restarted it), then completed 5 s after that restart: the times the service gives go back twice.
 */
function restarted() {
  const mock = mockApi();
  mock.reply('GET', '/tasks/1', 200, answer('processing', 3, { started: -4_000 }));
  mock.reply('GET', '/tasks/1', 200, answer('pending', 0));
  mock.reply('GET', '/tasks/1', 200, answer('processing', 1, { started: 3_000 }));
  mock.reply('GET', '/tasks/1', 200, answer('completed', 4, { started: 3_000, completed: 8_000 }));
  return mock;
}

describe('wait: a task going back', () => {
  it('warns once, and ends with the task', async () => {
    const mock = mockApi();
    mock.reply('GET', '/tasks/1', 200, answer('processing', 3));
    mock.reply('GET', '/tasks/1', 200, answer('pending', 0));
    mock.reply('GET', '/tasks/1', 200, answer('processing', 3));
    mock.reply('GET', '/tasks/1', 200, answer('pending', 0));
    mock.reply('GET', '/tasks/1', 200, answer('completed', 4));
    const result = await runTaskctl(['wait', '1', '-o', 'tsv'], {
      api: mock,
      clock: new FakeClock(),
      env: { CI: 'true' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('went back'))).toEqual([
      'warning: task 1 went back: processing 3/4, then pending 0/4: the service reported it going back; shown as it said',
    ]);
  });

  it('the live block at 80 columns and its last line: the elapsed time never goes back', async () => {
    const result = await runTaskctl(['wait', '1'], {
      api: restarted(),
      clock: new FakeClock(),
      stderrTTY: true,
      columns: 80,
    });
    expect(result.code, result.stderr).toBe(0);
    const shown = elapsedShown(result.stderr);
    expect(shown.length, result.stderr).toBeGreaterThanOrEqual(4);
    expect(shown, result.stderr).toEqual([...shown].sort((a, b) => a - b));
    for (const line of result.stderr.split(/\x1b\[1G|\n/))
      expect(line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').length).toBeLessThanOrEqual(80);
  });

  it('the lines of a log: the elapsed time never goes back', async () => {
    const result = await runTaskctl(['wait', '1', '-o', 'tsv'], {
      api: restarted(),
      clock: new FakeClock(),
      env: { CI: 'true' },
    });
    expect(result.code, result.stderr).toBe(0);
    // Processing 4 s, pending since its creation 6 s before, the restart not counted from again, its end 14 s after its
    // creation: the earliest start the service gave is kept.
    expect(elapsedShown(result.stderr), result.stderr).toEqual([4, 6, 6, 14]);
  });
});
