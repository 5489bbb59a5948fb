/**
 * taskctl in a real terminal: tmux runs the bin in a detached session of a chosen width and reads the screen back once
 * the command has exited. Shared by the tmux tests that check what a person sees (tables, help, prompts, progress).
 * The end of a command is an event, not a screen polled for: the pane signals a tmux channel (`wait-for -S`) once the
 * command has exited, and the test waits on that channel. A screen read mid-way (`until`) is polled without blocking
 * this process, where the sandbox may run.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { BIN, waitFor } from './harness.js';

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

/** A command still running in a terminal: read its screen while it works (SIGSTOP, Ctrl-C mid-way). */
interface Running {
  /** The screen now (`-e`: with its colour escapes). */
  screen: (withEscapes?: boolean) => Promise<string>;
  /** The screen once it matches `pattern` (polled; throws after `timeoutMs`). */
  until: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  /** The screen once the command has exited (`EXIT=n` is its last line); throws after `timeoutMs`. */
  exited: (timeoutMs?: number) => Promise<string>;
  keys: (...keys: string[]) => void;
  /** Ends the session and resolves once every process it ran has exited (a stopped taskctl may still write its state). */
  close: () => Promise<void>;
}

export interface Terminal {
  /** Runs `taskctl args` with `env` (and nothing else from this process) in a `width` × `height` terminal. */
  screenOf: (width: number, args: readonly string[], env: Record<string, string>, height?: number) => Promise<Screen>;
  /** Starts `taskctl args` and returns at once, for tests that act on it mid-way. */
  start: (width: number, args: readonly string[], env: Record<string, string>, height?: number) => Running;
  close: () => void;
}

/** The pane's shell and every process below it (taskctl, and the `sleep` after it), read from /proc. */
function sessionPids(socket: string, session: string): number[] {
  const shown = spawnSync('tmux', ['-L', socket, 'display', '-p', '-t', session, '#{pane_pid}'], { encoding: 'utf8' });
  const root = Number(shown.stdout.trim());
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

/** One tmux server per test file (`name` keeps files apart), kept alive by a session of its own between tests. */
export function openTerminal(name: string): Terminal {
  const socket = `taskctl-${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const capture = (session: string, ...flags: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile('tmux', ['-L', socket, 'capture-pane', '-p', ...flags, '-t', session], (error, stdout) =>
        error ? reject(new Error(`tmux capture-pane -t ${session}: ${error.message}`)) : resolve(stdout),
      ),
    );
  /** Resolves once `session`'s command has exited (its pane signalled the channel), or false after `timeoutMs`. */
  const done = (session: string, timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      const waiter = spawn('tmux', ['-L', socket, 'wait-for', `done-${session}`], { stdio: 'ignore' });
      const timer = setTimeout(() => waiter.kill(), timeoutMs);
      waiter.on('close', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
  /** The screen once the command has exited; throws with the screen after `timeoutMs`. */
  const exited = async (session: string, args: readonly string[], timeoutMs: number) => {
    const ended = await done(session, timeoutMs);
    let screen = await capture(session);
    if (!ended) throw new Error(`taskctl ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${screen}`);
    // The channel may be signalled before tmux has drawn the pane's last output: the screen is read until it shows
    // the exit code.
    return waitFor(async () => ((screen = await capture(session)), /EXIT=\d+/.test(screen) && screen), {
      timeoutMs: 5000,
      everyMs: 20,
      describe: () => `taskctl ${args.join(' ')} ended, but its screen never showed EXIT=n:\n${screen}`,
    });
  };
  // tmux's server exits with its last session; a test starting the next one while it shuts down gets "server exited
  // unexpectedly". This session lives as long as the file.
  tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  let sessions = 0;
  const launch = (width: number, args: readonly string[], env: Record<string, string>, height: number) => {
    const session = `s${++sessions}`;
    const vars = Object.entries({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      ...env,
    })
      .map(([key, value]) => `${key}='${value}'`)
      .join(' ');
    // The pane's shell has TMUX set: `tmux wait-for -S` reaches this server. A signal before anyone waits is kept.
    const command = `env -i ${vars} '${process.execPath}' '${BIN}' ${args.join(' ')}; echo EXIT=$?; tmux wait-for -S done-${session}; sleep 60`;
    tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', String(height), command);
    return session;
  };
  return {
    start(width, args, env, height = 40) {
      const session = launch(width, args, env, height);
      const screen = (withEscapes = false) => capture(session, ...(withEscapes ? ['-e'] : []));
      return {
        screen,
        async until(pattern, timeoutMs = 25_000) {
          let text = '';
          return waitFor(async () => ((text = await screen()), pattern.test(text) && text), {
            timeoutMs,
            everyMs: 100,
            describe: () => `the screen never matched ${pattern}:\n${text}`,
          });
        },
        exited: (timeoutMs = 25_000) => exited(session, args, timeoutMs),
        keys: (...keys) => tmux('send-keys', '-t', session, ...keys),
        async close() {
          const pids = sessionPids(socket, session);
          spawnSync('tmux', ['-L', socket, 'kill-session', '-t', session], { stdio: 'ignore' });
          await waitFor(() => pids.every((pid) => !alive(pid)), {
            timeoutMs: 10_000,
            everyMs: 50,
            describe: () => `a process of tmux session ${session} outlived it: ${pids.filter(alive).join(', ')}`,
          });
        },
      };
    },
    async screenOf(width, args, env, height = 60) {
      const session = launch(width, args, env, height);
      try {
        const screen = await exited(session, args, 25_000);
        const history = Number(tmux('display', '-p', '-t', session, '#{history_size}').trim());
        const [joined, coloured] = await Promise.all([capture(session, '-J'), capture(session, '-e')]);
        return { screen, joined, coloured, history };
      } finally {
        spawnSync('tmux', ['-L', socket, 'kill-session', '-t', session], { stdio: 'ignore' });
      }
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    },
  };
}
