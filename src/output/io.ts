import type { Env } from '../lib/env.js';

/** Env lives in lib/env.ts (store/ reads it too); re-exported for the modules that take it with IO. */
export type { Env };

/** The process's streams, injected so commands never touch `process.*` and tests use in-memory IO. */
export interface OutputStream {
  write: (chunk: string) => unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface InputStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
}

export interface IO {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: InputStream;
  /** The terminal's Ctrl-Z and `fg`, for what draws in place (output/progress.ts); none: nothing to redraw after. */
  jobControl?: JobControl;
}

/** Ctrl-Z (SIGTSTP) and `fg` (SIGCONT) as a live block needs them. */
export interface JobControl {
  /**
   * Until the returned function is called: on Ctrl-Z, `suspending` runs and then the process stops as it would have;
   * once continued (`fg`, `bg`, or after any stop), `resumed` runs.
   */
  watch: (suspending: () => void, resumed: () => void) => () => void;
}

/**
 * CI detection, the one rule: CI systems set `CI` (to `true`, `1`, or a name); `CI=false` or `CI=0` is how
 * people turn it off locally. CI mode means no spinners, no prompts, plain timestamped progress lines.
 */
export function isCI(env: Env): boolean {
  const value = env.CI;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/**
 * A terminal that cannot move its cursor or draw colour (`TERM=dumb`: Emacs' shell, some log viewers): it gets lines
 * as a pipe does, with no spinner, live block or countdown redrawn in place, and no colour.
 */
function isDumbTerminal(env: Env): boolean {
  return env.TERM === 'dumb';
}

/**
 * Whether a line may be redrawn in place on `stream` (the live block, a spinner, a countdown): a terminal that moves
 * its cursor (not TERM=dumb), outside CI mode (`ci`: `--ci` or `CI`; its logs are files). The one rule of every redraw
 * (docs/behaviour.md#output); what is drawn adds its own (no spinner with -q, none for json/ndjson).
 */
export function canRedraw(stream: OutputStream, env: Env, ci: boolean): boolean {
  return stream.isTTY === true && !ci && !isDumbTerminal(env);
}

/**
 * Colour on a stream: off when it is not a TTY, with --no-color, NO_COLOR, TERM=dumb, or in CI mode (`ci`: `--ci` or
 * `CI`); FORCE_COLOR forces it (docs/behaviour.md#output). As in Node and chalk, FORCE_COLOR=0 or =false forces it off. Call once
 * per stream: stdout and stderr may differ (`taskctl list | less` still wants coloured errors).
 */
export function colorEnabled(stream: OutputStream, env: Env, noColorFlag: boolean, ci = false): boolean {
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force === '0' || force === 'false') return false;
  if (force !== undefined) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (isDumbTerminal(env)) return false;
  // CI logs are files: escape codes are noise there unless asked for with FORCE_COLOR.
  if (ci) return false;
  return stream.isTTY === true;
}
