/**
 * Progress as people and CI logs see it: a spinner and colour in a real terminal (tmux), plain timestamped lines and no
 * escape codes when piped or in CI. Skipped without tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, isolatedHome, runCli } from './harness.js';

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

/** Starts taskctl in a 120x30 terminal; returns a screen reader (`withEscapes` keeps colours as SGR sequences). */
function startInTerminal(args: string[], env: Record<string, string> = {}): (withEscapes?: boolean) => string {
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
    '120',
    '-y',
    '30',
    `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; sleep 60`,
  );
  return (withEscapes = false) => tmux('capture-pane', '-p', ...(withEscapes ? ['-e'] : []), '-t', name);
}

async function poll(screen: () => string, done: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
  let text = '';
  for (const started = Date.now(); Date.now() - started < timeoutMs;) {
    text = screen();
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 80));
  }
  return text;
}

describe.skipIf(!hasTmux)('in a terminal', () => {
  it('shows a spinner with the task line while waiting, then the result in colour', async () => {
    const screen = startInTerminal(WAIT_ARGS);
    const spinning = await poll(
      screen,
      (text) => SPINNER_FRAME.test(text) && /task \d+ (pending|processing)/.test(text),
    );
    expect(spinning).toMatch(new RegExp(`${SPINNER_FRAME.source} task \\d+ (pending|processing)`));
    const finished = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(finished).toMatch(/EXIT=0/);
    expect(finished).toMatch(/✓ task \d+ completed 8\/8 items/);
    // The spinner line was replaced, not left behind frame after frame.
    expect(finished).not.toMatch(SPINNER_FRAME);
    expect(screen(true)).toMatch(SGR);
  });

  it('in CI: no spinner, timestamped lines, no colour', async () => {
    const screen = startInTerminal(WAIT_ARGS, { CI: 'true' });
    const finished = await poll(screen, (text) => /EXIT=\d+/.test(text));
    expect(finished).toMatch(/EXIT=0/);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ task \d+ pending 0\/8 items/m);
    expect(finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ task \d+ completed 8\/8 items/m);
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

describe('piped', () => {
  it('prints plain timestamped progress lines and no escape codes', async () => {
    const result = await runCli(WAIT_ARGS, { env: home.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('\x1b');
    expect(result.stdout).not.toContain('\x1b');
    expect(result.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ task \d+ completed 8\/8 items/m);
    expect(result.stderr).not.toMatch(SPINNER_FRAME);
  });
});
