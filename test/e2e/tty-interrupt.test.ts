/**
 * Ctrl-C in a real terminal (tmux) ends `watch` and `wait` quietly: exit 130, the command that goes on, no "error:".
 * Ctrl-Z in a shell stops a wait with its live block cleared, and `fg` draws it below the shell's lines. A terminal
 * that closes under a command (its window shut) ends it with 129, never Node's abort. Skipped without tmux.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';
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
      const id = String((await world.createTask('domain_check_availability', ['a.com', 'b.com', 'c.com'])).id);
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

describe.skipIf(!hasTmux)(skippedUnless('what Ctrl-C prints', hasTmux, missing('tmux')), () => {
  // The terminal echoes `^C` where the cursor is; a line after it wrapped for the full width would then be split.
  it('webhook listen: the stopping line starts at the first column, not after the `^C` echo', async () => {
    if (!terminal) throw new Error('tmux is not installed');
    const running = terminal.start(80, ['webhook', 'listen', '--port', '0'], world.env, 24);
    try {
      await running.until(/listening for webhooks/);
      await running.keys('C-c');
      const screen = await running.exited();
      expect(screen).toMatch(/^stopping: /m);
      expect(screen).not.toMatch(/\^C\S/);
    } finally {
      await running.close();
    }
  });
});

describe.skipIf(!hasTmux)(skippedUnless('Ctrl-Z in a shell', hasTmux, missing('tmux')), () => {
  it("wait: Ctrl-Z clears the live block before the process stops; fg draws it below the shell's lines", async () => {
    const id = String((await world.createTask('domain_check_availability', ['a.com', 'b.com'])).id);
    if (!terminal) throw new Error('tmux is not installed');
    const env = Object.entries({ PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', ...world.env })
      .map(([key, value]) => `${key}='${value}'`)
      .join(' ');
    const shell = terminal.shell(`env -i ${env} PS1='$ ' bash --norc --noprofile -i`, 100, 24);
    try {
      await shell.until(/^\$ /m);
      await shell.keys(`'${process.execPath}' '${BIN}' wait ${id}`, 'Enter');
      await shell.until(/task \d+ processing/);
      await shell.keys('C-z');
      const stopped = await shell.until(/Stopped.*\n\$ /);
      expect(stopped).not.toMatch(/task \d+ processing/);
      await shell.keys('fg', 'Enter');
      // The shell's lines stay as they were; the block comes after the command line `fg` echoed.
      const resumed = await shell.until(/\$ fg *\n.*wait \d+ *\n\S task \d+ processing/);
      expect(resumed).toMatch(/Stopped.*wait \d+ *\n\$ fg *\n/);
      await shell.keys('C-c');
      await shell.until(/still running: taskctl wait/);
    } finally {
      await shell.close();
    }
  });
});

describe.skipIf(!hasTmux)(skippedUnless('a terminal that closes', hasTmux, missing('tmux')), () => {
  it('wait: the terminal closed under it ends it with 129, not an abort in Node (docs/behaviour.md#exit-codes)', async () => {
    const id = String((await world.createTask('domain_check_availability', ['a.com', 'b.com'])).id);
    if (!terminal) throw new Error('tmux is not installed');
    const dir = mkdtempSync(join(tmpdir(), 'taskctl-hangup-'));
    try {
      // stdout stays on the terminal; stderr and the exit code go to files that outlive it. The shell passes the
      // hang-up on to the command, as an interactive shell does to its jobs, and records how it ended.
      const env = Object.entries({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...world.env })
        .map(([key, value]) => `${key}='${value}'`)
        .join(' ');
      const script = join(dir, 'run.sh');
      writeFileSync(
        script,
        [
          `env -i ${env} '${process.execPath}' '${BIN}' wait ${id} --interval 100ms 2>'${dir}/err' &`,
          'pid=$!',
          `trap 'kill -HUP $pid' HUP`,
          'while kill -0 $pid 2>/dev/null; do wait $pid; code=$?; done',
          `echo $code >'${dir}/code'`,
        ].join('\n'),
      );
      const shell = terminal.shell(`sh '${script}'`, 80, 24);
      try {
        const err = join(dir, 'err');
        const printed = () => readFileSync(err, { encoding: 'utf8', flag: 'a+' });
        // Its first line (on stderr): the command is running, its signal handlers in place.
        await waitFor(() => printed().includes(`task ${id} `), {
          timeoutMs: 20_000,
          describe: () => `stderr so far: ${printed()}`,
        });
      } finally {
        await shell.close(); // closes the terminal, then waits for every process it ran
      }
      const stderr = readFileSync(join(dir, 'err'), 'utf8');
      expect(stderr).not.toMatch(/Assertion|ResetStdio|node::/);
      expect(readFileSync(join(dir, 'code'), 'utf8').trim()).toBe('129');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
