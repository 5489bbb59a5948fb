/**
 * The spinner on a terminal that reports no size: a pty whose size was never set (`script -qc` from a script, some
 * `docker run -t`, `ssh -t` and CI ptys) says 0 columns and 0 rows. ora divides by the columns to count the lines to
 * clear; 0 made that Infinity and its clear a loop that never ended (the event loop blocked, Ctrl-C unheard). The
 * spinner is handed the size of the one rule (output/terminal-size.ts): 80 columns, 24 rows.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSpinner } from '../../../src/output/spinner.js';

/** Writes past this many mean a clear that does not end: the stream throws instead of letting the test hang. */
const WRITE_BOUND = 10_000;

/** A terminal stream as ora drives it (write and the tty cursor methods), `columns` × `rows`, writes recorded. */
function terminal(columns: number, rows: number) {
  const writes: string[] = [];
  const write = (chunk: string) => {
    if (writes.length >= WRITE_BOUND) throw new Error(`more than ${WRITE_BOUND} writes: a clear that never ends`);
    writes.push(chunk);
    return true;
  };
  return {
    writes,
    stream: {
      isTTY: true as const,
      columns,
      rows,
      write,
      cursorTo: (x: number) => write(`\u001b[${x + 1}G`),
      moveCursor: (_dx: number, dy: number) => write(dy < 0 ? `\u001b[${-dy}A` : `\u001b[${dy}B`),
      clearLine: () => write('\u001b[0K'),
      once: () => undefined,
      removeListener: () => undefined,
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a spinner on a terminal of unknown size (0 columns, 0 rows)', () => {
  it('starts, turns, is cleared and stops, in a bounded number of writes', async () => {
    await import('ora'); // loaded before the timers are faked: the spinner's own import then only resolves
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { stream, writes } = terminal(0, 0);
    const spinner = startSpinner({ stream, enabled: true, color: false }, 'reading the balance');
    vi.advanceTimersByTime(300);
    await vi.dynamicImportSettled();
    expect(writes.join('')).toContain('reading the balance');
    vi.advanceTimersByTime(500); // frames redrawn: each clears the one before
    spinner.stop();
    // Nothing is drawn after the stop: what was scheduled is drained (not counted: the worker's other timers, faked
    // while this test runs, would be counted with the spinner's).
    const writesAtStop = writes.length;
    vi.advanceTimersByTime(1_000);
    expect(writes.length).toBe(writesAtStop);
    const shown = writes.join('');
    // One line cleared per frame, as on a terminal 80 columns wide: never more than the frames drawn.
    const upMoves = shown.split('\u001b[1A').length - 1;
    expect(upMoves).toBe(0);
    expect(writes.length).toBeLessThan(200);
  });

  it('a long text is cut to the width of the rule (80 columns), not left whole', async () => {
    await import('ora');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const { stream, writes } = terminal(0, 0);
    const spinner = startSpinner({ stream, enabled: true, color: false }, `reading ${'word '.repeat(40)}`);
    vi.advanceTimersByTime(300);
    await vi.dynamicImportSettled();
    spinner.stop();
    const frame = writes.find((chunk) => chunk.includes('reading')) ?? '';
    expect(frame.length).toBeLessThan(80);
    expect(frame).toContain('…');
  });
});
