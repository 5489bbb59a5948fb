/**
 * Progress as people and CI logs see it: a live block that ticks, in colour, in a real terminal (tmux); plain
 * timestamped lines and no escape codes when piped or in CI. Skipped without tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, isolatedHome, runCli, waitFor } from './harness.js';
import { missing, skippedUnless } from '../skip-reason.js';

const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
const socket = `taskctl-tty-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const home = isolatedHome();

afterAll(() => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
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

let sessions = 0;

interface Terminal {
  (withEscapes?: boolean): string;
  /** Types keys into the terminal (tmux key names: `C-c`). */
  keys: (...keys: string[]) => void;
}

/** Starts taskctl in a terminal (120x30 by default); returns a screen reader (`withEscapes` keeps SGR sequences). */
function startInTerminal(
  args: string[],
  env: Record<string, string> = {},
  size = { columns: 120, rows: 30 },
): Terminal {
  const name = `tty${++sessions}`;
  const vars = Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...home.env,
    ...env,
  })
    .map(([key, value]) => `${key}='${value}'`)
    .join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    String(size.columns),
    '-y',
    String(size.rows),
    `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; sleep 60`,
  );
  const screen = (withEscapes = false) => tmux('capture-pane', '-p', ...(withEscapes ? ['-e'] : []), '-t', name);
  return Object.assign(screen, { keys: (...keys: string[]) => void tmux('send-keys', '-t', name, ...keys) });
}

async function poll(screen: () => string, done: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
  let text = '';
  return waitFor(() => ((text = screen()), done(text) && text), {
    timeoutMs,
    everyMs: 80,
    describe: () => `the screen:\n${text}`,
  });
}

// Each test has its own tmux session and --sandbox, and mostly waits for the sandbox's items: they run side by side.
describe.skipIf(!hasTmux)(skippedUnless('in a terminal', hasTmux, missing('tmux')), { concurrent: true }, () => {
  it('shows a spinner with the task line while waiting, then the result in colour', async () => {
    const screen = startInTerminal(WAIT_ARGS);
    const spinning = await poll(
      screen,
      (text) => SPINNER_FRAME.test(text) && /task \d+ (pending|processing)/.test(text),
    );
    expect(spinning).toMatch(new RegExp(`${SPINNER_FRAME.source} task \\d+ (pending|processing)`));
    const finished = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(finished).toMatch(/EXIT=0/);
    expect(finished).toMatch(/✓ task \d+ completed █+ 100% +8\/8 0:0\d/);
    // The spinner line was replaced, not left behind frame after frame.
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(screen(true)).toMatch(SGR);
  });

  it('at 80 columns: the elapsed time ticks between polls; Ctrl-C clears the block and prints the resume hint', async () => {
    // 40 items × 200 ms: about 8 s, polled sparsely in the middle, so the ticking comes from the display, not polls.
    const items = Array.from({ length: 40 }, (_, i) => `tick${i}.com`);
    const screen = startInTerminal(
      ['--sandbox', 'create', 'domain_check_availability', ...items, '--wait'],
      {},
      { columns: 80, rows: 24 },
    );
    const LINE = /task (\d+) processing [█░]+ +(\d+)% +(\d+)\/40 [\d.]+\/s est\. \d:\d\d left 0:0(\d)/;
    const first = await poll(screen, (text) => LINE.test(text));
    const firstMatch = LINE.exec(first);
    expect(firstMatch, first).not.toBeNull();
    const second = await poll(screen, (text) => (LINE.exec(text)?.[4] ?? '') > (firstMatch?.[4] ?? '9'), 4000);
    expect(LINE.exec(second)?.[4], second).not.toBe(firstMatch?.[4]);
    // Every line fits the 80 columns (no wrapped leftovers).
    for (const line of second.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    screen.keys('C-c');
    const stopped = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(stopped).toMatch(/EXIT=130/);
    // A one-off --sandbox is gone with the command: the hint says so instead of `taskctl wait ID`.
    expect(stopped).toMatch(/\nThis --sandbox service ends with this command; run `taskctl sandbox`/);
    expect(stopped).not.toMatch(/error:/);
    expect(stopped).not.toMatch(SPINNER_FRAME);
    expect(stopped).not.toMatch(/ETA/);
  });

  it('in CI: no spinner, timestamped lines, no colour', async () => {
    const screen = startInTerminal(WAIT_ARGS, { CI: 'true' });
    const finished = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(finished).toMatch(/EXIT=0/);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ task \d+ (pending|processing) items \d\/8/m);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ✓ task \d+ completed items 8\/8/m);
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(screen(true)).not.toMatch(SGR);
  });

  it('in CI with FORCE_COLOR: colour, still no spinner', async () => {
    const screen = startInTerminal(WAIT_ARGS, { CI: 'true', FORCE_COLOR: '1' });
    const finished = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(finished).toMatch(/EXIT=0/);
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(screen(true)).toMatch(SGR);
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
