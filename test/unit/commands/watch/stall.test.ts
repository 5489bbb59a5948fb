/**
 * `watch` while the service fails, at a terminal: one live line on stderr that counts, with the give-up countdown, and
 * is gone once the service answers again, as `wait`'s live block says it (docs/behaviour.md#spinners-and-progress);
 * the records stay a log above it. With -q, the follow's warnings, as before.
 */
import { describe, expect, it } from 'vitest';
import { task } from '../../../hardening/scripted-server.js';
import { screenAfter } from '../../output/screen-after.js';
import { mockApi, runTaskctl } from '../run-in-process.js';

const processing = {
  success: true,
  data: task(7, { status: 'processing', completed_at: null, completed_items: 1, failed_items: 0, total_items: 4 }),
};
const bad = { success: false, error: { code: 'internal_error', message: 'upstream down' } };
const done = {
  success: true,
  data: task(7, { status: 'completed', completed_items: 4, failed_items: 0, total_items: 4 }),
};

/** watch 7 at a terminal 80 columns wide: task 7 read, then two rounds of 502s (4 attempts each), then completed. */
async function watchThroughOutage(argv: string[] = []) {
  const api = mockApi();
  api.reply('GET', '/tasks/7', 200, processing);
  api.reply('GET', '/tasks/7', 502, bad, { times: 8 });
  api.reply('GET', '/tasks/7', 200, done, { times: 2 });
  api.allowUnused();
  const options = { api, stdoutTTY: true, stderrTTY: true, columns: 80, env: { NO_COLOR: '1' } };
  return runTaskctl(['watch', '7', ...argv], options);
}

describe('watch at a terminal while the service fails', () => {
  it('a live line that counts on and says when it gives up, gone once answers come; the records a log', async () => {
    const result = await watchThroughOutage();
    expect(result.code, result.stderr).toBe(0);
    // Drawn in place: the head of each frame, the time since the last answer moving on, the give-up counting down.
    const heads = [...result.stderr.matchAll(/! polling, last answer (\d+)s ago \(giving up in (\S+)\)/g)];
    expect(heads.length).toBeGreaterThan(1);
    const since = heads.map((head) => Number(head[1]));
    expect(since.at(-1)).toBeGreaterThan(since[0] ?? Infinity);
    expect(heads.at(-1)?.[2]).not.toBe(heads[0]?.[2]);
    expect(result.stderr).toContain('\n  reading task 7: the service failed (HTTP 502, internal_error: upstream');
    // Nothing of it stays: no warning lines, no "answers again"; the screen is the log of records.
    expect(result.stderr).not.toMatch(/warning:|answers again/);
    const screen = screenAfter(result.output ?? '', 80).filter((row) => row !== '');
    expect(screen).toEqual([
      'watching task 7; Ctrl-C to stop',
      expect.stringMatching(/^\S+Z {2}task 7 {2}\S+ {2}processing {2}1\/4$/),
      expect.stringMatching(/^\S+Z {2}task 7 {2}\S+ {2}completed {3}4\/4$/),
    ]);
  });

  it('-q: no live line; the warnings of each failed round and of the answers coming again', async () => {
    const result = await watchThroughOutage(['-q']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('! polling');
    expect(result.stderr).toMatch(/^warning: reading task 7: the service failed [^]* still polling/m);
    expect(result.stderr).toMatch(/^warning: the service answers again/m);
  });
});
