/**
 * Progress for long waits (`wait`, `create --wait`): a live block of lines redrawn in place for a person at a
 * terminal, plain timestamped lines everywhere else, so CI logs stay readable and never contain escape codes
 * (docs/behaviour.md#output). What the lines say is the caller's (core/follow/display.ts); this module only draws them.
 */
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import type { Clock } from '../lib/time.js';
import { palette, type ChalkInstance } from './colour.js';
import { isJsonFormat, type OutputFormat } from './format.js';
import { canRedraw, colorEnabled, isCI, type Env, type IO, type JobControl, type OutputStream } from './io.js';
import type { Redactor } from '../lib/redact.js';
import { neutralise } from '../lib/sanitize.js';
import { terminalColumns, terminalRows } from './terminal-size.js';
import { isoSeconds } from './times.js';
import { cutToWidth, liveLineBudget, textWidth } from './width.js';

export interface ProgressOptions {
  io: IO;
  /** Read for `CI` (and colour variables when `color` is not given). Default: empty. */
  env?: Env;
  /** Overrides the `CI` variable when given. */
  ci?: boolean;
  /** Whether stderr may be redrawn in place, as the caller read it (io.ts `canRedraw`); overrides `env` and `ci`. */
  redraw?: boolean;
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

type ProgressMode = 'live' | 'lines' | 'silent';

/** Colours for the live block: chalk at stderr's level (adds nothing when colour is off, and in plain and silent modes). */
export type Paint = ChalkInstance;

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
  /** Live mode: the columns a line may use (lines are fitted to it by their maker); other modes: undefined. */
  lineWidth: () => number | undefined;
}

/** Live block only where stderr may be redrawn in place (io.ts `canRedraw`) and the output is not json/ndjson. */
function shouldSpin(options: Pick<ProgressOptions, 'io' | 'env' | 'ci' | 'redraw' | 'format'>): boolean {
  const env = options.env ?? {};
  const redraw = options.redraw ?? canRedraw(options.io.stderr, env, options.ci ?? isCI(env));
  return redraw && !isJsonFormat(options.format);
}

const plain: Paint = palette(false);
function id(text: string): string {
  return text;
}

export function createProgress(options: ProgressOptions): Progress {
  const redact = options.redact ?? id;
  const clean = (text: string): string => neutralise(redact(text));
  if (options.quiet === true) return silentProgress(clean);
  if (shouldSpin(options)) {
    const color = options.color ?? colorEnabled(options.io.stderr, options.env ?? {}, false);
    return new LiveProgress(options.io.stderr, palette(color), clean, options.tickMs ?? 200, options.io.jobControl);
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
    lineWidth: () => undefined,
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
      stream.write(`${isoSeconds(clock.now())} ${neutralise(line)}\n`);
    },
    interject(write) {
      write();
    },
    stop: () => {},
    lineWidth: () => undefined,
  };
}

/** DECTCEM: the cursor shown (whatever a program hid it for) before the shell takes the terminal back. */
const SHOW_CURSOR = '\x1b[?25h';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Redraws a block of lines in place: each line cut to the terminal's width (so none wraps), at most its height. */
class LiveProgress implements Progress {
  readonly mode = 'live';
  private frame: ((spin: string, maxLines: number) => string[]) | undefined;
  /** The columns each line of the block on screen took when drawn (none: no block on screen). */
  private drawn: number[] = [];
  private tick = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  /** Stops watching for Ctrl-Z; set while the block is live. */
  private unwatch: (() => void) | undefined;
  /** Cleared for Ctrl-Z: nothing is drawn until continued (a tick may come before the signal that says so). */
  private suspended = false;

  constructor(
    private readonly stream: OutputStream,
    readonly paint: Paint,
    readonly clean: (text: string) => string,
    private readonly tickMs: number,
    private readonly jobs: JobControl | undefined,
  ) {}

  live(frame: (spin: string, maxLines: number) => string[]): void {
    this.frame = frame;
    if (!this.stopped) this.unwatch ??= this.jobs?.watch(this.suspending, this.resumed);
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
    if (!this.frame || this.stopped || this.suspended) return;
    const rows = terminalRows(this.stream.rows);
    const maxLines = Math.max(1, rows - 1);
    const width = this.lineWidth();
    const lines = this.frame(SPINNER[this.tick % SPINNER.length] ?? '-', maxLines)
      .slice(0, maxLines)
      .map((line) => cutToWidth(line, width));
    // Each line overwrites the one drawn before and clears what was left of it; a shorter frame clears the old lines
    // below it. Never "clear to the end of the screen": from the top-left corner, tmux and others move the whole
    // screen into the scrollback for that, which is how a redrawn block flooded it.
    // An empty frame (watch's stall line gone once answers come) clears the block, its first row included; with no
    // block on screen it writes nothing, not even a cursor move.
    if (lines.length === 0) {
      this.erase();
      return;
    }
    const stream = this.tty();
    const height = this.height();
    this.toTop(height);
    lines.forEach((line, index) => {
      if (index > 0) this.stream.write('\n');
      this.stream.write(line);
      clearLine(stream, 1);
    });
    const extra = height - lines.length;
    for (let i = 0; i < extra; i++) {
      moveCursor(stream, 0, 1);
      clearLine(stream, 0);
    }
    if (extra > 0) moveCursor(stream, 0, -extra);
    this.drawn = lines.map((line) => textWidth(line));
  }

  /**
   * The rows the block on screen takes: one a line. A terminal narrowed since a line was drawn either rewrapped it
   * into more rows (tmux, VTE, iTerm2, kitty) or cut it (xterm, screen), and which cannot be known: an erase counting
   * the wrong rows would clear lines above the block that are not its own (the job's id). So the old block is left
   * where it is, as lines, and the next one is drawn below it.
   */
  private height(): number {
    const columns = terminalColumns(this.stream.columns);
    if (this.drawn.some((width) => width > columns)) {
      this.stream.write('\n');
      this.drawn = [];
    }
    return this.drawn.length;
  }

  log(line: string): void {
    this.interject(() => this.stream.write(`${line}\n`));
  }

  lineWidth(): number {
    return liveLineBudget(this.stream.columns);
  }

  interject(write: () => void): void {
    this.erase();
    write();
    this.refresh();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
    this.erase();
    this.stopped = true;
  }

  /** Ctrl-Z: the shell prints its lines next, so the block goes and the cursor is left visible on an empty line. */
  private readonly suspending = (): void => {
    this.erase();
    this.stream.write(SHOW_CURSOR);
    this.suspended = true;
  };

  /**
   * Continued (`fg`): the shell printed its own lines where the block was, so what was drawn is forgotten and the block
   * drawn afresh below them. After a stop it did not clear (`kill -STOP`), its last line is ended first.
   */
  private readonly resumed = (): void => {
    if (this.drawn.length > 0) this.stream.write('\n');
    this.drawn = [];
    this.suspended = false;
    this.refresh();
  };

  private tty(): NodeJS.WritableStream {
    return this.stream as unknown as NodeJS.WritableStream;
  }

  /** To the first column of the block's first row, `height` rows up (Node's readline writes the cursor sequences). */
  private toTop(height: number): void {
    const stream = this.tty();
    cursorTo(stream, 0);
    if (height > 1) moveCursor(stream, 0, -(height - 1));
  }

  /** Clears the block row by row and leaves the cursor where it began, for lasting lines or the end. */
  private erase(): void {
    const height = this.height();
    if (height === 0) return;
    const stream = this.tty();
    this.toTop(height);
    for (let i = 0; i < height; i++) {
      if (i > 0) moveCursor(stream, 0, 1);
      clearLine(stream, 0);
    }
    if (height > 1) moveCursor(stream, 0, -(height - 1));
    this.drawn = [];
  }
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
