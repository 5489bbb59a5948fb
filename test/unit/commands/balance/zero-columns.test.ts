/**
 * `balance` on a terminal that reports 0 columns and 0 rows (a pty whose size was never set: `script -qc` from a
 * script, some `docker run -t`, `ssh -t` and CI ptys): its spinner is shown while the read is held, turns, and is
 * cleared when the answer comes, and the command ends. It used to clear an endless number of lines (ora divided by
 * the 0 columns), blocking the process so that Ctrl-C went unheard (output/terminal-size.ts, output/spinner.ts).
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../../clock.js';
import { Gate } from '../gate.js';
import { API_KEY, BASE_URL, mockApi, runTaskctl } from '../run-in-process.js';

/** Writes past this many mean a clear that does not end: stderr throws instead of letting the test hang. */
const WRITE_BOUND = 10_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('a terminal of unknown size (0 columns, 0 rows)', () => {
  it('the spinner starts, turns and is cleared; the command ends with the balance', async () => {
    await import('ora'); // loaded before the timers are faked: the spinner's own import then only resolves
    const api = mockApi();
    api.reply('GET', '/balance', 200, { success: true, data: { balance: 5, currency: 'coins' } });
    const gate = new Gate(api.agent);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    let writes = 0;
    const running = runTaskctl(['balance'], {
      dispatcher: gate,
      clock: new FakeClock(),
      env: { TASKCTL_BASE_URL: BASE_URL, TASKCTL_API_KEY: API_KEY },
      stdoutTTY: true,
      stderrTTY: true,
      columns: 0,
      rows: 0,
      // The tty methods ora moves the cursor with: the spinner is shown only on a stream that has them.
      terminal: ({ stderr }) => {
        const write = stderr.write.bind(stderr);
        Object.assign(stderr, {
          write: (chunk: string) => {
            if (++writes > WRITE_BOUND) throw new Error(`more than ${WRITE_BOUND} writes: a clear that never ends`);
            return write(chunk);
          },
          cursorTo: (x: number) => stderr.write(`\u001b[${x + 1}G`),
          moveCursor: (_dx: number, dy: number) => stderr.write(dy < 0 ? `\u001b[${-dy}A` : `\u001b[${dy}B`),
          clearLine: () => stderr.write('\u001b[0K'),
          once: () => undefined,
          removeListener: () => undefined,
        });
      },
    });
    if (gate.held.length === 0) await once(gate.events, 'held');
    vi.advanceTimersByTime(300);
    await vi.dynamicImportSettled();
    vi.advanceTimersByTime(400); // frames redrawn, each clearing the one before
    vi.useRealTimers();
    gate.held[0]?.release();
    const result = await running;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('5 coins\n');
    expect(result.stderr).toContain('reading the balance');
    expect(result.stderr).not.toContain('\u001b[1A'); // one line cleared a frame: nothing above it
    expect(writes).toBeLessThan(200);
  });
});
