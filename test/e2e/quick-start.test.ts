/**
 * The README's quick start runs as written: its first command succeeds and shows the results (exit 0), its second
 * shows a failed item and exits 11, as the README says. Each runs once, in a terminal (tmux), whose screen shows the
 * exit code; without tmux, on a pipe. The second's screen is also where create --wait's results table is checked as
 * a person sees it at 80 columns (tty-results.test.ts has the other screens). (The same commands from the installed
 * package: pack.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isolatedHome, runCli, suiteCodeCache } from './spawn-cli.js';
import { expectClean, fixture, hasTmux, openTerminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const start = README.indexOf('## Quick start');
const quickStart = README.slice(start, README.indexOf('\n## ', start + 1));
/** The quick start's `taskctl --sandbox …` lines, in order, as argument lists (run here with this checkout's build). */
const commands = [...quickStart.matchAll(/^taskctl (--sandbox .+)$/gm)].map((match) => (match[1] ?? '').split(' '));
// Warm from the run's shared code cache: the README's first run is its service's, not the bundle's compilation.
const home = isolatedHome({ codeCache: suiteCodeCache() });
const terminal = hasTmux ? openTerminal('quickstart') : undefined;

afterAll(() => {
  terminal?.close();
  home.cleanup();
});

describe("the README's quick start", () => {
  it('has two commands, and says the second exits 11', () => {
    expect(commands).toHaveLength(2);
    expect(quickStart).toMatch(/echo \$\? +# 11/);
  });

  // One run of each command: at a terminal when there is one (the screen and `EXIT=n`), else on a pipe.
  it.skipIf(!hasTmux)(
    skippedUnless(
      'at 80 columns: the first shows the results (exit 0), the second its failed item (exit 11)',
      hasTmux,
      missing('tmux'),
    ),
    async () => {
      if (!terminal) throw new Error('tmux is not installed');
      const screenOf = terminal.screenOf;
      // Side by side: each command starts a sandbox of its own.
      const [first, second] = await Promise.all(commands.map((args) => screenOf(80, args, home.env)));
      expect(first?.screen).toMatch(/^example\.org +completed/m);
      expect(first?.screen).toMatch(/EXIT=0/);
      expect(second?.screen).toMatch(/^fail-example\.net +failed +- +Simulated item failure/m);
      expect(second?.screen).toMatch(/EXIT=11/);
      // What a person sees of create --wait's results at 80 columns (tty-results.test.ts for the other screens): the
      // table's header and rows, the statuses coloured, no line too wide or wrapped, no escape code shown as text.
      if (!second) throw new Error('no screen of the second command');
      expect(second.screen).toMatch(/^TARGET +STATUS +AVAILABLE +ERROR$/m);
      expect(second.screen).toMatch(/^example\.com +completed +(true|false) +-$/m);
      expect(second.coloured).toMatch(/\x1b\[3\dm/);
      expectClean(second, 80);
      fixture('create-wait-80', second.screen.replace(/\d+[smhd] ago|just now/g, 'AGE'));
    },
    60_000,
  );

  it.skipIf(hasTmux)(
    skippedUnless(
      'on a pipe: the first exits 0, the second 11',
      !hasTmux,
      'tmux is installed: the test above runs them',
    ),
    async () => {
      expect((await runCli(commands[0] ?? [], { env: home.env })).code).toBe(0);
      expect((await runCli(commands[1] ?? [], { env: home.env })).code).toBe(11);
    },
  );
});
