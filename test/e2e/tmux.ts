/**
 * taskctl in a real terminal: tmux runs the bin in a detached session of a chosen width and reads the screen back once
 * the command has exited. Shared by the tmux tests that check what a person sees (tables, help, prompts, progress).
 * The screen is read through one control-mode client per file (`tmux -C`): a read is a line written to it, not a tmux
 * process started (one per read cost about 25 ms of CPU, ten times a second), and it never blocks this process, where
 * the sandbox may run. The end of a command is its pane printing `EXIT=n`, read the same way: a `tmux wait-for` channel
 * cost two tmux processes per command (the pane's signal and the waiter, which needs a client of its own since a
 * wait-for holds up every command queued behind it), more than the reads do.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { textWidth } from '../../src/output/width.js';
import { BIN, waitFor } from './spawn-cli.js';

export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

interface Screen {
  /** The screen as plain text. */
  screen: string;
  /** The same with lines the terminal wrapped joined again (`capture-pane -J`): a text that fits reads the same. */
  joined: string;
  /** The screen with its colour escapes (`capture-pane -e`). */
  coloured: string;
  /** Lines pushed into the scrollback (tmux's history_size): what a redrawn block must not flood. */
  history: number;
}

/** Every line within the width, nothing wrapped by the terminal, no escape code shown as text. */
export function expectClean(screen: { screen: string; joined: string }, width: number): void {
  const lines = screen.screen.trimEnd().split('\n');
  expect(screen.joined.trimEnd().split('\n')).toEqual(lines);
  for (const line of lines) expect(textWidth(line)).toBeLessThan(width);
  expect(screen.screen).not.toMatch(/\\x1b|\\u001b|\[\d+(;\d+)*m/);
}

/** A screen kept for review in test/e2e/fixtures/NAME.txt, written when TASKCTL_WRITE_FIXTURES=1. */
export function fixture(name: string, text: string): void {
  if (process.env.TASKCTL_WRITE_FIXTURES === '1')
    writeFileSync(new URL(`./fixtures/${name}.txt`, import.meta.url), `${text.trimEnd()}\n`);
}

/** A command still running in a terminal: read its screen while it works (SIGSTOP, Ctrl-C mid-way). */
interface Running {
  /** The screen now (`-e`: with its colour escapes). */
  screen: (withEscapes?: boolean) => Promise<string>;
  /** The screen once it matches `pattern` (polled; throws after `timeoutMs`). */
  until: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  /** The screen once the command has exited (`EXIT=n` is its last line); throws after `timeoutMs`. */
  exited: (timeoutMs?: number) => Promise<string>;
  keys: (...keys: string[]) => Promise<void>;
  /** Ends the session and resolves once every process it ran has exited (a stopped taskctl may still write its state). */
  close: () => Promise<void>;
}

/** A shell (or any command) in a terminal, for tests that type into it: its screen with wrapped lines joined. */
interface Session {
  /** The screen now, wrapped lines joined (`capture-pane -J`, which keeps trailing spaces). */
  screen: () => Promise<string>;
  /** The screen once it matches `pattern` (polled; throws with what it showed after `timeoutMs`). */
  until: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  keys: (...keys: string[]) => Promise<void>;
  close: () => Promise<void>;
}

export interface Terminal {
  /** Runs `taskctl args` with `env` (and nothing else from this process) in a `width` × `height` terminal. */
  screenOf: (width: number, args: readonly string[], env: Record<string, string>, height?: number) => Promise<Screen>;
  /** Starts `taskctl args` and returns at once, for tests that act on it mid-way. */
  start: (width: number, args: readonly string[], env: Record<string, string>, height?: number) => Running;
  /** Runs `command` (a shell command line) in a `width` × `height` terminal, for tests that type into it. */
  shell: (command: string, width: number, height: number) => Session;
  close: () => void;
}

/** The pane's shell and every process below it (taskctl, and the `sleep` after it), read from /proc. */
function descendants(root: number): number[] {
  if (!(root > 0)) return [];
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const stat = procStat(Number(entry));
    if (stat) parents.set(Number(entry), stat.parent);
  }
  const pids = [root];
  // The array grows as children are found: for-of visits those too.
  for (const current of pids)
    for (const [pid, parent] of parents) if (parent === current && !pids.includes(pid)) pids.push(pid);
  return pids;
}

/** A process's state and parent (`/proc/PID/stat`: the fields after the command's closing parenthesis). */
function procStat(pid: number): { state: string; parent: number } | undefined {
  if (!(pid > 0)) return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state = '', parent = '0'] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state, parent: Number(parent) };
  } catch {
    return undefined;
  }
}

/** Running or stopped; a zombie has exited (a container's init may be slow to reap it). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** One argument for tmux's command parser, double-quoted (where `\`, `"` and `$` are escaped). */
const quote = (arg: string) => `"${arg.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;

/**
 * A control-mode client (`tmux -C`) that also starts the server, attached to a session of its own (`keep`) that keeps
 * the server up between tests: tmux's server exits with its last session, and a test starting the next one while it
 * shuts down got "server exited unexpectedly". Commands are lines on its stdin; tmux answers each, in order, in a
 * `%begin T N F` … `%end T N F` (or `%error`) block; the lines outside blocks are notifications, ignored.
 */
function controlClient(socket: string): { send: (...args: string[]) => Promise<string> } {
  const child = spawn('tmux', ['-L', socket, '-C', 'new-session', '-s', 'keep', 'sleep 600'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting: Array<{ command: string; resolve: (text: string) => void; reject: (error: Error) => void }> = [];
  let block: { head: string; lines: string[] } | undefined;
  let rest = '';
  const fail = (error: Error) => {
    for (const pending of waiting.splice(0)) pending.reject(error);
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!block) {
        if (line.startsWith('%begin ')) block = { head: line.slice('%begin '.length), lines: [] };
        continue;
      }
      const ended = line === `%end ${block.head}` ? 'end' : line === `%error ${block.head}` ? 'error' : undefined;
      if (!ended) {
        block.lines.push(line);
        continue;
      }
      const { head, lines: output } = block;
      block = undefined;
      // Flags 0: the block of the command on tmux's own command line (new-session), not one of ours.
      if (head.endsWith(' 0')) continue;
      const pending = waiting.shift();
      if (!pending) continue;
      const text = output.length > 0 ? `${output.join('\n')}\n` : '';
      if (ended === 'end') pending.resolve(text);
      else pending.reject(new Error(`tmux ${pending.command}: ${text.trim()}`));
    }
  });
  child.on('error', fail);
  child.on('close', () => fail(new Error(`the tmux control client of ${socket} has exited`)));
  child.stdin.on('error', () => {});
  const send = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        reject(new Error(`the tmux control client of ${socket} has exited`));
        return;
      }
      const command = args.map(quote).join(' ');
      waiting.push({ command, resolve, reject });
      child.stdin.write(`${command}\n`);
    });
  return { send };
}

/** One tmux server per test file (`name` keeps files apart), kept alive by a session of its own between tests. */
export function openTerminal(name: string): Terminal {
  const socket = `taskctl-${name}-${process.pid}`;
  // Started by the first command: a file whose tests are all filtered out starts no server (and leaves none behind).
  let client: { send: (...args: string[]) => Promise<string> } | undefined;
  const send = (...args: string[]) => (client ??= controlClient(socket)).send(...args);
  const capture = (session: string, ...flags: string[]) => send('capture-pane', '-p', ...flags, '-t', session);
  /** The screen once the command has exited (its pane shows `EXIT=n`); throws with the screen after `timeoutMs`. */
  const exited = async (session: string, args: readonly string[], timeoutMs: number) => {
    let screen = '';
    return waitFor(async () => ((screen = await capture(session)), /EXIT=\d+/.test(screen) && screen), {
      timeoutMs,
      everyMs: 40,
      describe: () => `taskctl ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${screen}`,
    });
  };
  /** The screen (read by `read`) once it matches `pattern`; throws with the last screen after `timeoutMs`. */
  const until = async (read: () => Promise<string>, pattern: RegExp, timeoutMs: number) => {
    let text = '';
    return waitFor(async () => ((text = await read()), pattern.test(text) && text), {
      timeoutMs,
      everyMs: 50,
      describe: () => `the screen never matched ${pattern}:\n${text}`,
    });
  };
  /** Kills `session` and resolves once every process it ran has exited. */
  const end = async (session: string, pids: Promise<number[]>) => {
    const running = await pids;
    await send('kill-session', '-t', session).catch(() => '');
    await waitFor(() => running.every((pid) => !alive(pid)), {
      timeoutMs: 10_000,
      everyMs: 50,
      describe: () => `a process of tmux session ${session} outlived it: ${running.filter(alive).join(', ')}`,
    });
  };
  const paneProcesses = async (session: string) =>
    descendants(Number((await send('display', '-p', '-t', session, '#{pane_pid}')).trim()));
  // On the control client, so the keys come after the session's creation (queued first) and before any later read.
  const keys = async (session: string, ...typed: string[]) => {
    await send('send-keys', '-t', session, ...typed);
  };
  let sessions = 0;
  /** A new session running `command`; its creation is queued on the control client before any read of it. */
  const open = (width: number, height: number, command: string) => {
    const session = `s${++sessions}`;
    const size = ['-x', String(width), '-y', String(height)];
    return { session, created: send('new-session', '-d', '-s', session, ...size, command) };
  };
  const launch = (width: number, args: readonly string[], env: Record<string, string>, height: number) => {
    const vars = Object.entries({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      ...env,
    })
      .map(([key, value]) => `${key}='${value}'`)
      .join(' ');
    // `sleep`: the pane stays, and its screen with it, until the test has read it.
    return open(
      width,
      height,
      `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; sleep 60`,
    );
  };
  return {
    start(width, args, env, height = 40) {
      const { session, created } = launch(width, args, env, height);
      const screen = async (withEscapes = false) => {
        await created;
        return capture(session, ...(withEscapes ? ['-e'] : []));
      };
      return {
        screen,
        until: (pattern, timeoutMs = 25_000) => until(screen, pattern, timeoutMs),
        exited: async (timeoutMs = 25_000) => (await created, exited(session, args, timeoutMs)),
        keys: (...typed) => keys(session, ...typed),
        close: () =>
          end(
            session,
            created.then(() => paneProcesses(session)),
          ),
      };
    },
    shell(command, width, height) {
      const { session, created } = open(width, height, command);
      const screen = async () => (await created, capture(session, '-J'));
      return {
        screen,
        until: (pattern, timeoutMs = 20_000) => until(screen, pattern, timeoutMs),
        keys: (...typed) => keys(session, ...typed),
        close: () =>
          end(
            session,
            created.then(() => paneProcesses(session)),
          ),
      };
    },
    async screenOf(width, args, env, height = 60) {
      const { session, created } = launch(width, args, env, height);
      try {
        await created;
        const screen = await exited(session, args, 25_000);
        const [shown, joined, coloured] = await Promise.all([
          send('display', '-p', '-t', session, '#{history_size}'),
          capture(session, '-J'),
          capture(session, '-e'),
        ]);
        return { screen, joined, coloured, history: Number(shown.trim()) };
      } finally {
        await send('kill-session', '-t', session).catch(() => '');
      }
    },
    close() {
      if (!client) return;
      // The control client exits with the server. tmux 3.3 leaves the server's socket behind: one file in
      // /tmp/tmux-UID for each test file that opened a terminal, in every run, unless it is removed here.
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      rmSync(join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
    },
  };
}
