/**
 * Ctrl-C in a real terminal (tmux) ends `watch` and `wait` quietly: exit 130, the command that goes on, no "error:".
 * Skipped without tmux.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type E2EWorld } from './harness.js';
import { hasTmux, openTerminal, type Terminal } from './tmux.js';
import { missing, skippedUnless } from '../skip-reason.js';

let world: E2EWorld;
let terminal: Terminal | undefined;

beforeAll(async () => {
  // Items slow enough that the task is still running when Ctrl-C comes.
  world = await startWorld({ itemMs: 5000 });
  if (hasTmux) terminal = openTerminal('interrupt');
});

afterAll(async () => {
  terminal?.close();
  await world.close();
});

describe.skipIf(!hasTmux)(skippedUnless('Ctrl-C at a terminal', hasTmux, missing('tmux')), { concurrent: true }, () => {
  for (const command of ['watch', 'wait']) {
    it(`${command}: exit 130 and how to go on, without "error:"`, async () => {
      const created = await world.inProcess(['create', 'domain_check_availability', 'a.com', 'b.com', 'c.com', '-q']);
      const id = created.stdout.trim();
      if (!terminal) throw new Error('tmux is not installed');
      const running = terminal.start(80, [command, id], world.env, 24);
      try {
        await running.until(command === 'watch' ? /processing/ : /task \d+ processing/);
        await running.keys('C-c');
        const screen = await running.exited();
        expect(screen).toMatch(/EXIT=130/);
        expect(screen).toContain(`still running: taskctl ${command} ${id}`);
        expect(screen).not.toMatch(/error/);
      } finally {
        await running.close();
      }
    });
  }
});
