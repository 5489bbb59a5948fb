import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadChalk } from '../../../src/output/colour.js';
import { createMemoryIO, createMemoryStream } from '../../../src/output/memory-io.js';
import { isCI } from '../../../src/output/io.js';
import { createProgress, type Progress } from '../../../src/output/progress.js';
import { isoSeconds as formatTimestamp } from '../../../src/output/times.js';
import { cutToWidth as fitWidth } from '../../../src/output/width.js';
import { createRedactor } from '../../../src/lib/redact.js';
import type { IO } from '../../../src/output/io.js';
import { FakeClock, T0 } from '../../clock.js';
import { screenAfter } from './screen-after.js';

// Colour is asked for here: chalk loads as a run that colours loads it (output/run-printer.ts).
beforeAll(loadChalk);

const ESC = '\x1b';

function ttyStream(columns = 80, rows = 24) {
  return Object.assign(createMemoryStream(true, columns), { rows });
}

function ioWith(stderr: IO['stderr']): IO {
  const { io } = createMemoryIO();
  return { ...io, stderr };
}

let open: Progress | undefined;
afterEach(() => {
  open?.stop();
  open = undefined;
});

describe('plain-line progress', () => {
  it('is used when stderr is not a TTY: timestamped lines, no escape codes, no live block', () => {
    const memory = createMemoryIO({ stderrTTY: false });
    const clock = new FakeClock();
    const progress = createProgress({ io: memory.io, env: {}, format: 'table', clock, color: true });
    expect(progress.mode).toBe('lines');
    progress.live(() => ['never drawn']);
    progress.log('task 42 processing 10/100 items');
    clock.advance(5000);
    progress.log(`task 42 ${progress.paint.green('completed')}`);
    expect(memory.stderr.text()).toBe(
      '2025-01-15T12:00:00Z task 42 processing 10/100 items\n2025-01-15T12:00:05Z task 42 completed\n',
    );
    expect(memory.stderr.text()).not.toContain(ESC);
  });

  it('is used on a terminal when CI is set, TERM=dumb (no cursor movement), or when the output is json/ndjson', () => {
    for (const options of [
      { env: { CI: 'true' }, format: 'table' as const },
      { env: { TERM: 'dumb' }, format: 'table' as const },
      { env: {}, ci: true, format: 'table' as const },
      { env: {}, format: 'json' as const },
      { env: {}, format: 'ndjson' as const },
    ]) {
      const progress = createProgress({ io: ioWith(ttyStream()), clock: new FakeClock(), ...options });
      expect(progress.mode).toBe('lines');
    }
  });

  it('clean() redacts and neutralises server text; plain lines neutralise everything', () => {
    const memory = createMemoryIO();
    const progress = createProgress({
      io: memory.io,
      format: 'tsv',
      clock: new FakeClock(),
      redact: createRedactor(['sk_secret_key']),
    });
    expect(progress.clean('\x1b[31mred\u202e sk_secret_key')).toBe('\\x1b[31mred\\u202e [REDACTED]');
    progress.log('a\x1b[2Jb');
    expect(memory.stderr.text()).toBe('2025-01-15T12:00:00Z a\\x1b[2Jb\n');
  });

  it('quiet prints nothing at all', () => {
    const stderr = ttyStream();
    const progress = createProgress({ io: ioWith(stderr), format: 'table', quiet: true });
    expect(progress.mode).toBe('silent');
    progress.live(() => ['x']);
    progress.log('y');
    progress.stop();
    expect(stderr.text()).toBe('');
  });
});

describe('live progress (a terminal)', () => {
  it('redraws its block in place: back to its first line, each line drawn over the old one and cleared after', () => {
    const stderr = ttyStream();
    open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
    expect(open.mode).toBe('live');
    let text = ['task 1 pending', 'task 2 pending'];
    open.live(() => text);
    text = ['task 1 processing', 'task 2 pending'];
    open.refresh();
    expect(stderr.text()).toBe(
      '\x1b[1Gtask 1 pending\x1b[0K\ntask 2 pending\x1b[0K\x1b[1G\x1b[1Atask 1 processing\x1b[0K\ntask 2 pending\x1b[0K',
    );
    // Never "clear to the end of the screen" (CSI J): from the top-left corner tmux moves the screen to the scrollback.
    expect(stderr.text()).not.toMatch(/\x1b\[\d*J/);
  });

  it('an empty frame clears every row of the block drawn before it, and leaves the cursor on its first', () => {
    for (const drawn of [['! no answer (12s), last answer 17s ago'], ['task 1 processing', 'task 2 pending']]) {
      const stderr = ttyStream(60);
      stderr.write('above\n');
      open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
      let frame = drawn;
      open.live(() => frame);
      frame = [];
      open.refresh();
      // What the next lasting line is written over: the block's first row, with the cursor at its start.
      stderr.write('next');
      expect(screenAfter(stderr.text(), 60).join('\n').trimEnd()).toBe('above\nnext');
      open.stop();
    }
  });

  it('log() prints a lasting line above the block; stop() clears it', () => {
    const stderr = ttyStream();
    open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
    open.live(() => ['⠋ task 1']);
    open.log('warning: x');
    open.stop();
    open.log('✓ task 1 completed');
    expect(stderr.text()).toBe(
      '\x1b[1G⠋ task 1\x1b[0K\x1b[1G\x1b[2Kwarning: x\n\x1b[1G⠋ task 1\x1b[0K\x1b[1G\x1b[2K✓ task 1 completed\n',
    );
  });

  it('never draws more lines than the terminal has rows (less one), nor wider than its columns (less three)', () => {
    const stderr = ttyStream(20, 4);
    open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
    let max = 0;
    open.live((_spin, maxLines) => {
      max = maxLines;
      return Array.from({ length: 10 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    });
    expect(max).toBe(3);
    expect(
      stderr
        .text()
        .replace(/\x1b\[\d*[GK]/g, '')
        .split('\n'),
    ).toEqual([`line 0 ${'x'.repeat(9)}…`, `line 1 ${'x'.repeat(9)}…`, `line 2 ${'x'.repeat(9)}…`]);
  });

  it('on a terminal that reports no size (0 columns, 0 rows: a pty never sized), is drawn for 80×24', () => {
    const stderr = ttyStream(0, 0);
    open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
    let max = 0;
    open.live((_spin, maxLines) => {
      max = maxLines;
      return Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(100)}`);
    });
    expect(max).toBe(23);
    const lines = stderr
      .text()
      .replace(/\x1b\[\d*[GK]/g, '')
      .split('\n');
    expect(lines).toHaveLength(23);
    expect(lines[0]).toBe(`line 0 ${'x'.repeat(69)}…`); // 77 columns: 80 less the last and the ^C echo's two
  });

  it('ticks: the frame is asked again on a timer (spinner, elapsed time), and no more once stopped', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const stderr = ttyStream();
      open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 100 });
      const spins: string[] = [];
      open.live((spin) => (spins.push(spin), [`${spin} task 1`]));
      expect(spins).toHaveLength(1); // drawn at once
      vi.advanceTimersByTime(99);
      expect(spins).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(spins).toHaveLength(2);
      vi.advanceTimersByTime(300);
      expect(spins).toHaveLength(5);
      expect(new Set(spins).size).toBe(5); // the spinner turns on every tick
      open.stop();
      vi.advanceTimersByTime(1_000);
      expect(spins).toHaveLength(5);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('live progress ended by Ctrl-C', () => {
  for (const columns of [40, 60]) {
    it(`at ${columns} columns the terminal's own ^C echo fits after the widest line, and stop() clears the whole block`, () => {
      const stderr = ttyStream(columns, 40);
      open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
      const width = open.lineWidth() ?? 0;
      // Lines as their maker fits them (core/follow/display.ts): as wide as the progress allows.
      open.live(() => ['✓ 4 tasks for 31 items', `⠼ task 121 processing ${'░'.repeat(width)}`, 'x'.repeat(width)]);
      const drawn = stderr.text();
      open.stop();
      const rows = screenAfter(`${drawn}^C${stderr.text().slice(drawn.length)}`, columns);
      expect(rows.filter((row) => row !== '')).toEqual([]);
    });
  }
});

describe('live progress on a terminal resized while it is drawn', () => {
  /**
   * A block drawn at 120 columns, the terminal then narrowed to 40 (it rewraps each old line into rows of 40, as
   * tmux does: the same rows the old output makes written at 40 columns), then `next` run: what the screen shows.
   */
  function narrowed(next: (progress: Progress) => void) {
    const stderr = ttyStream(120, 40);
    open = createProgress({ io: ioWith(stderr), env: {}, format: 'table', color: false, tickMs: 0 });
    const progress = open;
    open.log('job j-1: taskctl jobs');
    let frame = [`⠋ task 84 processing ${'░'.repeat(80)} 44% 11/25`, `⠋ task 85 processing ${'░'.repeat(80)} 16%`];
    open.live(() => frame);
    Object.assign(stderr, { columns: 40 });
    frame = frame.map((line) => fitWidth(line, progress.lineWidth() ?? 0));
    next(progress);
    return screenAfter(stderr.text(), 40).filter((row) => row !== '');
  }

  // Whether the terminal rewrapped the old lines or cut them cannot be known: the old block is left as it is and the
  // next drawn below it, so that no line above it (the job's id) is ever erased.
  it('narrowed: the next frame is drawn below the old block, and the lines above it stay', () => {
    const rows = narrowed((progress) => progress.refresh());
    expect(rows[0]).toBe('job j-1: taskctl jobs');
    expect(rows.slice(-2)).toEqual(['⠋ task 84 processing…', '⠋ task 85 processing…']);
    // The old block's first row is still there, above the new block: nothing was erased upwards.
    expect(rows.filter((row) => row.includes('task 84 processing'))).toHaveLength(2);
  });

  it('narrowed: stop() leaves the old block, and the lines above it stay', () => {
    const rows = narrowed((progress) => progress.stop());
    expect(rows[0]).toBe('job j-1: taskctl jobs');
    expect(rows.slice(1).join('')).toContain('task 85 processing');
  });
});

/** Ctrl-Z and `fg` driven by the test: `suspend()` is the process asked to stop, `resume()` the shell's `fg`. */
function jobControl() {
  const watchers = new Set<{ suspending: () => void; resumed: () => void }>();
  let stops = 0;
  return {
    control: {
      watch(suspending: () => void, resumed: () => void) {
        const watcher = { suspending, resumed };
        watchers.add(watcher);
        return () => watchers.delete(watcher);
      },
    },
    suspend: () => {
      for (const watcher of watchers) watcher.suspending();
      stops++;
    },
    resume: () => {
      for (const watcher of watchers) watcher.resumed();
    },
    stops: () => stops,
    watching: () => watchers.size,
  };
}

/** A two-line live block on a terminal whose Ctrl-Z and fg the test drives (also `open`, stopped after the test). */
function liveWithJobs() {
  const stderr = ttyStream();
  const jobs = jobControl();
  const progress = createProgress({
    io: { ...ioWith(stderr), jobControl: jobs.control },
    env: {},
    format: 'table',
    color: false,
    tickMs: 0,
  });
  open = progress;
  progress.live(() => ['task 1 processing', 'task 2 pending']);
  return { stderr, jobs, progress };
}

describe('live progress stopped by Ctrl-Z and continued by fg', () => {
  it('Ctrl-Z clears the block and shows the cursor before the process stops; fg draws it afresh below', () => {
    const { stderr, jobs, progress } = liveWithJobs();
    const drawn = stderr.text().length;
    jobs.suspend();
    const atStop = stderr.text().slice(drawn);
    // Back to the block's first line, both lines cleared, the cursor there (an empty line) and visible.
    expect(atStop).toBe('\x1b[1G\x1b[1A\x1b[2K\x1b[1B\x1b[2K\x1b[1A\x1b[?25h');
    // The shell prints "[1]+ Stopped", the prompt, `fg` and the command: the block is drawn where the cursor is now,
    // never moved up over those lines.
    const before = stderr.text().length;
    // A tick that comes before the signal saying the process goes on draws nothing.
    progress.refresh();
    expect(stderr.text().length).toBe(before);
    jobs.resume();
    expect(stderr.text().slice(before)).toBe('\x1b[1Gtask 1 processing\x1b[0K\ntask 2 pending\x1b[0K');
    progress.stop();
    expect(jobs.watching()).toBe(0);
  });

  it('continued after a stop it did not see (kill -STOP): what was drawn is forgotten, the block drawn below', () => {
    const { stderr, jobs } = liveWithJobs();
    const before = stderr.text().length;
    jobs.resume();
    // The shell's lines end where the cursor is: a new line first, then the block, never a move up.
    expect(stderr.text().slice(before)).toBe('\n\x1b[1Gtask 1 processing\x1b[0K\ntask 2 pending\x1b[0K');
  });

  it('watches for Ctrl-Z only while the block is live', () => {
    const jobs = jobControl();
    const io = { ...ioWith(ttyStream()), jobControl: jobs.control };
    open = createProgress({ io, env: {}, format: 'table', color: false, tickMs: 0 });
    expect(jobs.watching()).toBe(0);
    open.live(() => ['task 1']);
    expect(jobs.watching()).toBe(1);
    open.stop();
    expect(jobs.watching()).toBe(0);
    const lines = createProgress({ io: { ...io, stderr: createMemoryStream() }, env: {}, format: 'table' });
    lines.live(() => ['task 1']);
    expect(jobs.watching()).toBe(0);
  });
});

describe('helpers', () => {
  it('fitWidth cuts by columns ending with …, keeps colour sequences and closes an open colour', () => {
    expect(fitWidth('abcdef', 4)).toBe('abc…');
    expect(fitWidth('\x1b[32mabcdef\x1b[39m', 3)).toBe('\x1b[32mab…\x1b[0m');
    expect(fitWidth('日本語', 4)).toBe('日…');
    expect(fitWidth('abcd', 4)).toBe('abcd');
    expect(fitWidth('\x1b[32mab\x1b[39m', 10)).toBe('\x1b[32mab\x1b[39m');
  });

  it('formatTimestamp is UTC to the second', () => {
    expect(formatTimestamp(T0 + 999)).toBe('2025-01-15T12:00:00Z');
  });

  it('isCI treats empty, 0 and false as unset', () => {
    expect([isCI({}), isCI({ CI: '' }), isCI({ CI: '0' }), isCI({ CI: 'false' })]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([isCI({ CI: 'true' }), isCI({ CI: '1' }), isCI({ CI: 'woodpecker' })]).toEqual([true, true, true]);
  });
});
