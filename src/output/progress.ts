/**
 * Progress for long waits (`wait`, `create --wait`): a live block of lines redrawn in place for a person at a
 * terminal, plain timestamped lines everywhere else, so CI logs stay readable and never contain escape codes
 * (DESIGN.md 3). What the lines say is the caller's (core/follow/display.ts); this module only draws them.
 */
import type { Clock } from '../core/time.js';
import { isJsonFormat, type OutputFormat } from './format.js';
import { colorEnabled, isCI, type Env, type IO, type OutputStream } from './io.js';
import type { Redactor } from './redact.js';
import { neutralise } from './sanitize.js';

export interface ProgressOptions {
  io: IO;
  /** Read for `CI` (and colour variables when `color` is not given). Default: empty. */
  env?: Env;
  /** Overrides the `CI` variable when given. */
  ci?: boolean;
  format: OutputFormat;
  /** Timestamps for plain lines. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** Colour on the terminal. Default: `colorEnabled(io.stderr, env, false)`. */
  color?: boolean;
  /** `-q`: report nothing at all. Default false. */
  quiet?: boolean;
  /** Applied to server text (`clean`) and to plain lines. Default: identity. */
  redact?: Redactor;
  /** Terminal redraw period (the spinner and ticking elapsed times). Default 200 ms; 0 = no timer (tests). */
  tickMs?: number;
}

export type ProgressMode = 'live' | 'lines' | 'silent';

/** Colours for the live block; identity functions when colour is off (and always in plain and silent modes). */
export interface Paint {
  green: (text: string) => string;
  red: (text: string) => string;
  yellow: (text: string) => string;
  cyan: (text: string) => string;
  dim: (text: string) => string;
}

export interface Progress {
  readonly mode: ProgressMode;
  readonly paint: Paint;
  /** Server text made safe to print: redacted, control characters neutralised (before any colour is added). */
  clean: (text: string) => string;
  /**
   * Live mode: `frame(spin, maxLines)` gives the block's lines (each already cleaned and coloured, at most `maxLines`:
   * the terminal's height less one) and is drawn now and on every tick, so elapsed times advance between polls; `spin`
   * is the spinner's current glyph. Other modes: nothing.
   */
  live: (frame: (spin: string, maxLines: number) => string[]) => void;
  /** Live mode: redraw now (something changed). */
  refresh: () => void;
  /** A line that stays: above the live block on a terminal, timestamped in plain mode, nothing when silent. */
  log: (line: string) => void;
  /** Writes through `write` with the live block out of the way (warnings printed mid-wait), then redraws it. */
  interject: (write: () => void) => void;
  /** Removes the live block and stops its timer (the end, Ctrl-C). Plain mode: nothing. */
  stop: () => void;
}

/** 2026-11-21T10:00:00Z: UTC, second precision, sorts and greps well. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Live block only when stderr is a TTY, output is not json/ndjson, and not in CI (DESIGN.md 3). */
function shouldSpin(options: Pick<ProgressOptions, 'io' | 'env' | 'ci' | 'format'>): boolean {
  const ci = options.ci ?? isCI(options.env ?? {});
  return !ci && !isJsonFormat(options.format) && options.io.stderr.isTTY === true;
}

const plain: Paint = { green: id, red: id, yellow: id, cyan: id, dim: id };
function id(text: string): string {
  return text;
}

export function createProgress(options: ProgressOptions): Progress {
  const redact = options.redact ?? id;
  const clean = (text: string): string => neutralise(redact(text));
  if (options.quiet === true) return silentProgress(clean);
  if (shouldSpin(options)) {
    const color = options.color ?? colorEnabled(options.io.stderr, options.env ?? {}, false);
    return new LiveProgress(options.io.stderr, color ? ansiPaint : plain, clean, options.tickMs ?? 200);
  }
  return linesProgress(options.io.stderr, options.clock ?? { now: () => Date.now() }, clean);
}

function silentProgress(clean: (text: string) => string): Progress {
  return {
    mode: 'silent',
    paint: plain,
    clean,
    live: () => {},
    refresh: () => {},
    log: () => {},
    interject(write) {
      write();
    },
    stop: () => {},
  };
}

function linesProgress(stream: OutputStream, clock: Pick<Clock, 'now'>, clean: (text: string) => string): Progress {
  return {
    mode: 'lines',
    paint: plain,
    clean,
    live: () => {},
    refresh: () => {},
    log(line) {
      // The whole line is neutralised: plain logs carry no escape codes at all.
      stream.write(`${formatTimestamp(clock.now())} ${neutralise(line)}\n`);
    },
    interject(write) {
      write();
    },
    stop: () => {},
  };
}

const SGR = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const ansiPaint: Paint = {
  green: SGR(32, 39),
  red: SGR(31, 39),
  yellow: SGR(33, 39),
  cyan: SGR(36, 39),
  dim: SGR(2, 22),
};

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Redraws a block of lines in place: each line cut to the terminal's width (so none wraps), at most its height. */
class LiveProgress implements Progress {
  readonly mode = 'live';
  private frame: ((spin: string, maxLines: number) => string[]) | undefined;
  private height = 0;
  private tick = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(
    private readonly stream: OutputStream,
    readonly paint: Paint,
    readonly clean: (text: string) => string,
    private readonly tickMs: number,
  ) {}

  live(frame: (spin: string, maxLines: number) => string[]): void {
    this.frame = frame;
    if (this.tickMs > 0 && !this.timer && !this.stopped) {
      this.timer = setInterval(() => {
        this.tick++;
        this.refresh();
      }, this.tickMs);
      // The block must never keep the process alive on its own.
      this.timer.unref();
    }
    this.refresh();
  }

  refresh(): void {
    if (!this.frame || this.stopped) return;
    const columns = this.stream.columns ?? 80;
    const rows = (this.stream as { rows?: number }).rows ?? 24;
    const maxLines = Math.max(1, rows - 1);
    const lines = this.frame(SPINNER[this.tick % SPINNER.length] ?? '-', maxLines)
      .slice(0, maxLines)
      .map((line) => fitWidth(line, Math.max(10, columns - 1)));
    this.stream.write(this.erase() + lines.join('\n'));
    this.height = lines.length;
  }

  log(line: string): void {
    this.interject(() => this.stream.write(`${line}\n`));
  }

  interject(write: () => void): void {
    if (this.height > 0) this.stream.write(this.erase());
    this.height = 0;
    write();
    this.refresh();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.height > 0) this.stream.write(this.erase());
    this.height = 0;
    this.stopped = true;
  }

  /** Back to the start of the block and clear to the end of the screen. */
  private erase(): string {
    if (this.height === 0) return '';
    return `\r${this.height > 1 ? `\x1b[${this.height - 1}A` : ''}\x1b[J`;
  }
}

// SGR sequences the block's own painting adds (server text was neutralised before, so it holds none).
const SGR_AT = /^\x1b\[[0-9;]*m/;
// East Asian wide and emoji ranges: two columns each (enough for cutting a line; not a full wcwidth).
const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u;

/** Cuts `line` to `width` columns, keeping its colour sequences and closing any colour left open. */
export function fitWidth(line: string, width: number): string {
  let out = '';
  let used = 0;
  let rest = line;
  let coloured = false;
  while (rest.length > 0) {
    const sgr = SGR_AT.exec(rest);
    if (sgr) {
      coloured = true;
      out += sgr[0];
      rest = rest.slice(sgr[0].length);
      continue;
    }
    const char = String.fromCodePoint(rest.codePointAt(0) ?? 32);
    const w = WIDE.test(char) ? 2 : 1;
    if (used + w > width) return coloured ? `${out}\x1b[0m` : out;
    out += char;
    used += w;
    rest = rest.slice(char.length);
  }
  return out;
}

export interface LogGroup {
  end: () => void;
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
