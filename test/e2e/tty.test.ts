/**
 * Progress as people and CI logs see it: a live block that ticks, in colour, in a real terminal (tmux); plain
 * timestamped lines and no escape codes when piped (a real pipe) or in CI (on a terminal: rendered in process, the
 * decision being the environment's). The terminal tests are skipped without tmux.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedHome, runCli, suiteCodeCache } from './spawn-cli.js';
import { hasTmux, openTerminal } from './tmux.js';
import { FakeClock } from '../clock.js';
import { runTaskctl } from '../unit/commands/run-in-process.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { missing, skippedUnless } from '../skip-reason.js';

// Warm from the run's shared code cache: nothing here is about a first run.
const home = isolatedHome({ codeCache: suiteCodeCache() });
const terminal = hasTmux ? openTerminal('tty') : undefined;

afterAll(() => {
  terminal?.close();
  home.cleanup();
});

/** 8 items at the sandbox's default 200 ms each: the wait lasts about 2 s, long enough to see the spinner turn. */
const WAIT_ARGS = [
  '--sandbox',
  'create',
  'domain_check_availability',
  ...'abcdefgh'.split('').map((c) => `${c}.com`),
  '--wait',
];
const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const SGR = /\x1b\[[0-9;]*m/;

/** Starts taskctl in a terminal (120x30 by default). */
function startInTerminal(args: string[], size = { columns: 120, rows: 30 }) {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal.start(size.columns, args, home.env, size.rows);
}

// Each test has its own tmux session and --sandbox, and mostly waits for the sandbox's items: they run side by side.
describe.skipIf(!hasTmux)(skippedUnless('in a terminal', hasTmux, missing('tmux')), { concurrent: true }, () => {
  it('shows a spinner with the task line while waiting, then the result in colour', async () => {
    // 12 items: about 2.4 s of spinning, room to see it on a loaded machine (the screen is read every 50 ms).
    const items = Array.from({ length: 12 }, (_, i) => `spin${i}.com`);
    // 60 rows: the results fit the screen, so no pager opens.
    const running = startInTerminal(['--sandbox', 'create', 'domain_check_availability', ...items, '--wait'], {
      columns: 120,
      rows: 60,
    });
    try {
      const spinning = await running.until(new RegExp(`${SPINNER_FRAME.source} task \\d+ (pending|processing)`));
      expect(spinning).toMatch(new RegExp(`${SPINNER_FRAME.source} task \\d+ (pending|processing)`));
      const finished = await running.exited();
      expect(finished).toMatch(/EXIT=0/);
      expect(finished).toMatch(/✓ task \d+ completed █+ 100% +12\/12 · 0:\d\d/);
      // The spinner line was replaced, not left behind frame after frame.
      expect(finished).not.toMatch(SPINNER_FRAME);
      expect(await running.screen(true)).toMatch(SGR);
    } finally {
      await running.close();
    }
  }, 60_000);

  it('at 80 columns: the elapsed time ticks between polls; Ctrl-C clears the block and prints the resume hint', async () => {
    // 40 items × 200 ms: about 8 s, polled sparsely in the middle, so the ticking comes from the display, not polls.
    const items = Array.from({ length: 40 }, (_, i) => `tick${i}.com`);
    const running = startInTerminal(['--sandbox', 'create', 'domain_check_availability', ...items, '--wait'], {
      columns: 80,
      rows: 24,
    });
    try {
      const LINE = /task (\d+) processing [█░]+ +(\d+)% +(\d+)\/40 [\d.]+\/s est\. \d:\d\d left · 0:0(\d)/;
      const first = await running.until(LINE);
      const firstMatch = LINE.exec(first);
      expect(firstMatch, first).not.toBeNull();
      // The next second on the display: the elapsed time ticks between polls.
      const next = Math.min(9, Number(firstMatch?.[4] ?? 8) + 1);
      const later = new RegExp(LINE.source.replace('0:0(\\d)', `0:0([${next}-9])`));
      const second = await running.until(later, 4000);
      expect(LINE.exec(second)?.[4], second).not.toBe(firstMatch?.[4]);
      // Every line fits the 80 columns (no wrapped leftovers).
      for (const line of second.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      await running.keys('C-c');
      const stopped = await running.exited();
      expect(stopped).toMatch(/EXIT=130/);
      // A one-off --sandbox is gone with the command: the hint says so instead of `taskctl wait ID`.
      expect(stopped).toMatch(/\nThis --sandbox service ends with this command; run `taskctl sandbox`/);
      expect(stopped).not.toMatch(/error:/);
      expect(stopped).not.toMatch(SPINNER_FRAME);
      expect(stopped).not.toMatch(/ETA/);
    } finally {
      await running.close();
    }
  }, 60_000);
});

// CI (or TERM=dumb) on a terminal: what is shown is decided from the environment and the stream's being a terminal, so it is
// rendered in process (a sandbox on a virtual clock shared with the command), side by side with the tests above.
describe('in CI or TERM=dumb, on a terminal', { concurrent: true }, () => {
  /** `create --wait` of 8 items (200 ms each, virtual) with both streams terminals and `env`. */
  async function inCI(env: Record<string, string | undefined>) {
    // A sandbox of this test's own, closed by it: the harness closes its sandboxes after each test, which a test
    // running beside this one would end.
    const clock = new FakeClock();
    const sandbox = await startSandbox({ port: 0, clock, itemMs: 200, rateLimit: 0, seed: 1 });
    try {
      const items = 'abcdefgh'.split('').map((c) => `${c}.com`);
      return await runTaskctl(['create', 'domain_check_availability', ...items, '--wait'], {
        clock,
        stdoutTTY: true,
        stderrTTY: true,
        columns: 120,
        env: { TASKCTL_BASE_URL: sandbox.url, TASKCTL_API_KEY: sandbox.apiKey, TERM: 'xterm-256color', ...env },
      });
    } finally {
      await sandbox.close();
    }
  }

  it('no spinner, timestamped lines, no colour', async () => {
    const result = await inCI({ CI: 'true' });
    const finished = result.stdout + result.stderr;
    expect(result.code, result.stderr).toBe(0);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ task \d+ (pending|processing) items \d\/8/m);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ✓ task \d+ completed items 8\/8/m);
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(finished).not.toContain('\x1b');
  });

  it('TERM=dumb (a terminal that cannot move its cursor), not CI: lines as in a pipe, no live block', async () => {
    const result = await inCI({ TERM: 'dumb' });
    const finished = result.stdout + result.stderr;
    expect(result.code, result.stderr).toBe(0);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ✓ task \d+ completed items 8\/8/m);
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(finished).not.toContain('\x1b');
  });

  it('with FORCE_COLOR: colour, still no spinner', async () => {
    const result = await inCI({ CI: 'true', FORCE_COLOR: '1' });
    const finished = result.stdout + result.stderr;
    expect(result.code, result.stderr).toBe(0);
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(finished).toMatch(SGR);
  });
});

// Concurrent with the terminal tests above (its own --sandbox, mostly waiting as well).
describe('piped', { concurrent: true }, () => {
  it('prints plain timestamped progress lines and no escape codes', async () => {
    const result = await runCli(WAIT_ARGS, { env: home.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('\x1b');
    expect(result.stdout).not.toContain('\x1b');
    expect(result.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ✓ task \d+ completed items 8\/8/m);
    expect(result.stderr).not.toMatch(SPINNER_FRAME);
  });
});
