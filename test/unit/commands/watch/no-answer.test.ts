/**
 * A follow's read the service does not answer (`watch`, and `wait` without a terminal): the line said after 5 s names
 * no time left. A follow polls again when a read gives up, and says itself when it gives up (`still polling (giving up
 * in 1m25s without one)`): a "30s left" of the read would stay on screen, wrong, under those lines.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { FakeClock } from '../../../clock.js';
import { Gate } from '../gate.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl, type RunResult } from '../run-in-process.js';

/** `argv` with its first read of task 7 held until 20 s of the clock passed, then answered: the task completed. */
async function heldFirstRead(argv: string[]): Promise<RunResult> {
  const api = mockApi();
  api.reply('GET', '/tasks/7', 200, { success: true, data: task(7, { completed_items: 1, failed_items: 0 }) });
  const gate = new Gate(api.agent);
  const clock = new FakeClock();
  const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY };
  const running = runTaskctl(argv, { env, dispatcher: gate, clock });
  if (gate.held.length === 0) await once(gate.events, 'held');
  clock.tick(20_000);
  gate.held[0]?.release();
  return running;
}

describe('a follow read with no answer yet', () => {
  it("watch: one line after 5 s, without the read's time left", async () => {
    const result = await heldFirstRead(['watch', '7', '-o', 'tsv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('no answer from the service for 5s; still trying…\n');
  });

  it('wait without a terminal: the same line', async () => {
    const result = await heldFirstRead(['wait', '7', '-o', 'tsv']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n')[0]).toBe('no answer from the service for 5s; still trying…');
    expect(result.stderr).not.toMatch(/left\)/);
  });

  it('watch off a terminal: a line again for a later stall, no more than one each 30 s', async () => {
    const api = mockApi();
    const processing = task(7, { status: 'processing', completed_at: null, completed_items: 0, failed_items: 0 });
    api.reply('GET', '/tasks/7', 200, { success: true, data: processing }, { times: 2 });
    api.reply('GET', '/tasks/7', 200, { success: true, data: task(7, { completed_items: 1, failed_items: 0 }) });
    const gate = new Gate(api.agent);
    const clock = new FakeClock();
    const env = { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY };
    const running = runTaskctl(['watch', '7', '-o', 'tsv'], { env, dispatcher: gate, clock });
    // Three reads, each answered 20 s late: the notices come 5 s into each, about 22 s and 44 s after the first.
    for (let read = 0; read < 3; read++) {
      if (gate.held.length === 0) await once(gate.events, 'held');
      clock.tick(20_000);
      gate.held[0]?.release();
    }
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('no answer from the service for 5s; still trying…\n'.repeat(2));
  });
});
