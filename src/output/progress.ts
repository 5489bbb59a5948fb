/**
 * Progress for long waits (`wait`, `create --wait`, `watch`): a spinner for a person at a terminal, plain timestamped
 * lines everywhere else, so CI logs stay readable and never contain escape codes (DESIGN.md 3).
 */
import type { Clock } from '../core/time.js';
import { isJsonFormat, type OutputFormat } from './format.js';
import { colorEnabled, type Env, type IO, type OutputStream } from './io.js';
import type { Redactor } from './redact.js';
import { neutralise, neutraliseMultiline } from './sanitize.js';

export interface ProgressOptions {
  io: IO;
  /** Read for `CI` (and colour variables when `color` is not given). Default: empty. */
  env?: Env;
  /** Overrides the `CI` variable when given. */
  ci?: boolean;
  format: OutputFormat;
  /** Timestamps for plain lines. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Colour for the spinner and its ✓/✗. Default: `colorEnabled(io.stderr, env, false)`. */
  color?: boolean;
  /** `-q`: report nothing at all. Default false. */
  quiet?: boolean;
  /** Applied to every text before printing. Default: identity. */
  redact?: Redactor;
}

export type ProgressMode = 'spinner' | 'lines' | 'silent';

export interface Progress {
  readonly mode: ProgressMode;
  /** The current state; may hold several lines (one per task). Plain mode prints only lines that changed. */
  update(text: string): void;
  /** Plain mode: reprint the current lines, so a quiet wait still shows life in a CI log. Spinner: nothing. */
  heartbeat(): void;
  /** Ends the spinner with `✓ text`; plain mode prints `text`. */
  succeed(text?: string): void;
  /** Ends the spinner with `✗ text`; plain mode prints `text`. */
  fail(text?: string): void;
  /** Removes the spinner (call before exiting, also on Ctrl-C); plain mode: nothing. */
  stop(): void;
}

/** CI systems set `CI` (to `true`, `1`, or a name); `CI=false`/`CI=0` is how people turn it off locally. */
export function isCI(env: Env): boolean {
  const value = env.CI;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** 2026-11-21T10:00:00Z: UTC, second precision, sorts and greps well. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** ora moves the cursor through the stream's tty methods; a stream without them cannot host a spinner. */
function canHostSpinner(stream: OutputStream): boolean {
  const s = stream as Partial<
    Record<'cursorTo' | 'moveCursor' | 'clearLine' | 'on' | 'once' | 'removeListener', unknown>
  >;
  return (
    stream.isTTY === true &&
    typeof s.cursorTo === 'function' &&
    typeof s.moveCursor === 'function' &&
    typeof s.clearLine === 'function' &&
    typeof s.once === 'function' &&
    typeof s.removeListener === 'function'
  );
}

/** Spinner only when stderr is a TTY, output is not json/ndjson, and not in CI (DESIGN.md 3). */
export function shouldSpin(options: Pick<ProgressOptions, 'io' | 'env' | 'ci' | 'format'>): boolean {
  const ci = options.ci ?? isCI(options.env ?? {});
  return !ci && !isJsonFormat(options.format) && canHostSpinner(options.io.stderr);
}

/** Async because ora is imported only when a spinner is actually shown (STYLE.md 8). */
export async function createProgress(options: ProgressOptions): Promise<Progress> {
  if (options.quiet === true) return silentProgress;
  const redact = options.redact ?? ((text: string) => text);
  if (shouldSpin(options)) {
    const color = options.color ?? colorEnabled(options.io.stderr, options.env ?? {}, false);
    return createSpinnerProgress(options.io.stderr, color, redact);
  }
  return createLineProgress(options.io.stderr, options.clock ?? { now: () => Date.now() }, redact);
}

const silentProgress: Progress = {
  mode: 'silent',
  update() {},
  heartbeat() {},
  succeed() {},
  fail() {},
  stop() {},
};

function createLineProgress(stream: OutputStream, clock: Pick<Clock, 'now'>, redact: Redactor): Progress {
  let current: string[] = [];
  const print = (lines: readonly string[]) => {
    if (lines.length === 0) return;
    const stamp = formatTimestamp(clock.now());
    stream.write(lines.map((line) => `${stamp} ${line}\n`).join(''));
  };
  const toLines = (text: string) =>
    text
      .split('\n')
      .map((line) => neutralise(redact(line)))
      .filter((line) => line.trim() !== '');
  return {
    mode: 'lines',
    update(text) {
      const next = toLines(text);
      const previous = new Set(current);
      current = next;
      // Only what changed: a 10-minute wait on 50 tasks must not repeat 50 unchanged lines every poll.
      print(next.filter((line) => !previous.has(line)));
    },
    heartbeat() {
      print(current);
    },
    succeed(text) {
      if (text !== undefined) print(toLines(text));
    },
    fail(text) {
      if (text !== undefined) print(toLines(text));
    },
    stop() {},
  };
}

async function createSpinnerProgress(stream: OutputStream, color: boolean, redact: Redactor): Promise<Progress> {
  const [{ default: ora }, { Chalk }] = await Promise.all([import('ora'), import('chalk')]);
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const spinner = ora({
    stream: stream as unknown as NodeJS.WritableStream,
    isEnabled: true,
    color: color ? 'cyan' : false,
    // Raw-mode stdin would swallow Ctrl-C's SIGINT; main turns SIGINT into exit 130 with a resume hint.
    discardStdin: false,
  });
  const clean = (text: string) => neutraliseMultiline(redact(text));
  const persist = (symbol: string, text: string | undefined) => {
    spinner.stopAndPersist({ symbol, text: text === undefined ? spinner.text : clean(text) });
  };
  return {
    mode: 'spinner',
    update(text) {
      const next = clean(text);
      if (next !== spinner.text) spinner.text = next;
      if (!spinner.isSpinning) spinner.start();
    },
    heartbeat() {},
    succeed(text) {
      persist(chalk.green('✓'), text);
    },
    fail(text) {
      persist(chalk.red('✗'), text);
    },
    stop() {
      spinner.stop();
    },
  };
}

export interface LogGroup {
  end(): void;
}

/**
 * GitHub Actions log group (`::group::title` … `::endgroup::`) around plain progress lines, so a long wait folds into
 * one line of the job log. Undefined outside GitHub Actions. Workflow commands are read from stderr as well as stdout.
 */
export function startLogGroup(stream: OutputStream, env: Env, title: string): LogGroup | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  stream.write(`::group::${neutralise(title)}\n`);
  let open = true;
  return {
    end() {
      if (open) stream.write('::endgroup::\n');
      open = false;
    },
  };
}
