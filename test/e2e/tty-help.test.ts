/**
 * Help and `auth status` as people see them in a real terminal: tmux at 80 columns. Root `--help`, a
 * subcommand's `--help` and `auth status` fit: no row wrapped onto a second screen line, no word broken. The help comes
 * from the fast path (dist/help.json) at 80 columns and from commander at 100: both are checked. Skipped without tmux.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './spawn-cli.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
let terminal: Terminal | undefined;

beforeAll(async () => {
  world = await startWorld({ itemMs: 0 });
  if (hasTmux) terminal = openTerminal('help');
});

afterAll(async () => {
  terminal?.close();
  await world.close();
});

/** `taskctl args` in a `width`-column terminal tall enough for the whole text. */
function screenOf(width: number, args: string[]) {
  if (!terminal) throw new Error('tmux is not installed');
  return terminal.screenOf(width, args, world.env, 150);
}

/** No row wrapped by the terminal, none wider than it, and no word cut at a line's end. */
function expectFits(result: { screen: string; joined: string }, width: number) {
  expect(result.screen).toMatch(/EXIT=0/);
  const lines = result.screen.trimEnd().split('\n');
  expect(result.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
}

describe.skipIf(!hasTmux)(
  skippedUnless('help and auth status in a terminal', hasTmux, missing('tmux')),
  { concurrent: true },
  () => {
    for (const width of [80, 100]) {
      it(`taskctl --help fits ${width} columns`, async () => {
        const result = await screenOf(width, ['--help']);
        expectFits(result, width);
        expect(result.screen).toMatch(/^ {2}--profile <name> +config profile to use \(env TASKCTL_PROFILE\)$/m);
        expect(result.screen).toMatch(/^ {3}13 {2}declined at the confirmation prompt/m);
        expect(result.screen).toMatch(/^Environment: TASKCTL_API_KEY, [^.]*TASKCTL_STATE_DIR, [^.]*NO_PROXY\.$/m);
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
  },
);
