/**
 * Help and `auth status` as people see them in a real terminal (issue 14): tmux at 80 columns. Root `--help`, a
 * subcommand's `--help` and `auth status` fit: no row wrapped onto a second screen line, no word broken. The help comes
 * from the fast path (dist/help.json) at 80 columns and from commander at 100: both are checked. Skipped without tmux.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startWorld, type E2EWorld } from './harness.js';

const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
const socket = `taskctl-help-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

let world: E2EWorld;

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  // A session for the file's whole life: tmux's server exits with its last session, and a test starting the next one
  // while it shuts down gets "server exited unexpectedly".
  if (hasTmux) tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
});

afterAll(async () => {
  if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  await world.close();
});

let sessions = 0;

/** Runs taskctl in a `width`-column terminal tall enough for the whole text; the screen once it has exited. */
async function screenOf(width: number, args: string[]): Promise<{ screen: string; joined: string }> {
  const name = `h${++sessions}`;
  const vars = Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    ...world.env,
  })
    .map(([key, value]) => `${key}='${value}'`)
    .join(' ');
  const command = `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; sleep 60`;
  tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', '150', command);
  const capture = (...flags: string[]) => tmux('capture-pane', '-p', ...flags, '-t', name);
  try {
    for (const started = Date.now(); Date.now() - started < 15_000;) {
      const screen = capture();
      // -J joins lines the terminal wrapped: a text that fits reads the same either way.
      if (/EXIT=\d+/.test(screen)) return { screen, joined: capture('-J') };
      await new Promise((resolve) => setTimeout(resolve, 80));
    }
    throw new Error(`taskctl ${args.join(' ')} did not finish:\n${capture()}`);
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-session', '-t', name], { stdio: 'ignore' });
  }
}

/** No row wrapped by the terminal, none wider than it, and no word cut at a line's end. */
function expectFits(result: { screen: string; joined: string }, width: number) {
  expect(result.screen).toMatch(/EXIT=0/);
  const lines = result.screen.trimEnd().split('\n');
  expect(result.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
}

describe.skipIf(!hasTmux)('help and auth status in a terminal', () => {
  for (const width of [80, 100]) {
    it(`taskctl --help fits ${width} columns`, async () => {
      const result = await screenOf(width, ['--help']);
      expectFits(result, width);
      expect(result.screen).toMatch(/^ {2}--profile <name> +config profile to use \(env TASKCTL_PROFILE\)$/m);
      expect(result.screen).toMatch(/^ {3}13 {2}declined at the confirmation prompt/m);
      expect(result.screen).toMatch(/^Environment: TASKCTL_API_KEY, [^\n]*\n[^\n]*NO_PROXY\.$/m);
    });

    it(`taskctl wait --help fits ${width} columns, with durations as written and the global options`, async () => {
      const result = await screenOf(width, ['wait', '--help']);
      expectFits(result, width);
      expect(result.screen).toMatch(/\(default: 2s\)/);
      expect(result.screen).toMatch(/\(default:\s+30m\)/);
      expect(result.screen).toMatch(
        /^Global options \(see taskctl --help\):\n {2}--profile <name> {2}--base-url <url>/m,
      );
      expect(result.screen).toMatch(/10 a task ended without\s+completing/);
      expect(result.screen).not.toMatch(/default: false/);
    });
  }

  it('auth status fits 80 columns', async () => {
    const result = await screenOf(80, ['auth', 'status']);
    expectFits(result, 80);
    expect(result.screen).toMatch(/TASKCTL_API_KEY/);
    expect(result.screen).toMatch(/sk_s.*…|\*{3}/);
  });
});
