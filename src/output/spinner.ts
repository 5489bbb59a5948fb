/**
 * Spinners for single waits (docs/behaviour.md#output): ora, imported only when a wait has lasted SPINNER_DELAY_MS, on
 * stderr, only when stderr is a real terminal, outside CI, and not for json/ndjson; it never reads stdin
 * (`discardStdin: false`) and leaves the cursor alone (a Ctrl-C never leaves it hidden). Several tasks at once are
 * output/progress.ts's live block, not a spinner.
 */
import type { OutputStream } from './io.js';
import { terminalColumns, terminalRows } from './terminal-size.js';
import { liveLineBudget, truncateLiveText } from './width.js';

/** Columns ora puts before the text: the glyph and a space. */
const GLYPH_WIDTH = 2;

/**
 * The text cut to the terminal's width at a word, with `…` (docs/behaviour.md#spinners-and-progress): a spinner line
 * that wrapped would be redrawn one line lower at every frame, splitting words across lines.
 */
export function fitted(text: string, stream: Pick<OutputStream, 'columns'>): string {
  return truncateLiveText(text, liveLineBudget(stream.columns) - GLYPH_WIDTH);
}

/** A wait shorter than this shows nothing: a spinner that flashes for 100 ms is noise. */
const SPINNER_DELAY_MS = 300;

export interface SpinnerOptions {
  stream: OutputStream;
  /** False in CI, for json/ndjson, with -q, or when stderr is not a terminal (the caller decides; see `spinnerAllowed`). */
  enabled: boolean;
  /** Colour of the spinner glyph. */
  color: boolean;
}

export interface Spinner {
  /** False for the stand-in used where no spinner may be shown (its notices are then printed as lines). */
  readonly live: boolean;
  /** What is being waited for; shown from the next frame. */
  text: (text: string) => void;
  /** Removes the spinner (if it ever appeared); safe to call twice. */
  stop: () => void;
}

/** Only a real terminal: ora moves the cursor with the stream's own tty methods, which in-memory streams lack. */
function isRealTerminal(stream: OutputStream): boolean {
  return stream.isTTY === true && typeof (stream as { cursorTo?: unknown }).cursorTo === 'function';
}

/** What ora calls on its stream: the writes and cursor moves of a tty.WriteStream, and its drain. */
interface TtyStream {
  write: (...args: unknown[]) => boolean;
  cursorTo: (...args: unknown[]) => boolean;
  moveCursor: (...args: unknown[]) => boolean;
  clearLine: (...args: unknown[]) => boolean;
  once: (event: string, listener: () => void) => unknown;
  removeListener: (event: string, listener: () => void) => unknown;
  columns?: number;
  rows?: number;
}

/**
 * The terminal as ora is given it: every call passed on, but its size that of the one rule (output/terminal-size.ts).
 * ora reads `columns` as is and divides by it to count the lines it clears: a terminal reporting 0 columns (a pty whose
 * size was never set) made that Infinity, and its clear a loop that blocked the process (Ctrl-C unheard). A view of its
 * own, not the stream itself: ora replaces the `write` of the streams it draws on while it spins and puts each back,
 * so the real stream keeps exactly the one ora also hooks as process.stderr.
 */
function sizedView(stream: OutputStream): NodeJS.WritableStream {
  const tty = stream as unknown as TtyStream;
  const view = {
    isTTY: true,
    get columns() {
      return terminalColumns(tty.columns);
    },
    get rows() {
      return terminalRows(tty.rows);
    },
    write: (...args: unknown[]) => tty.write(...args),
    cursorTo: (...args: unknown[]) => tty.cursorTo(...args),
    moveCursor: (...args: unknown[]) => tty.moveCursor(...args),
    clearLine: (...args: unknown[]) => tty.clearLine(...args),
    once: (event: string, listener: () => void) => (tty.once(event, listener), view),
    removeListener: (event: string, listener: () => void) => (tty.removeListener(event, listener), view),
  };
  return view as unknown as NodeJS.WritableStream;
}

/** A spinner that appears after SPINNER_DELAY_MS with `text`, or a no-op one when not enabled. */
export function startSpinner(options: SpinnerOptions, text: string): Spinner {
  if (!options.enabled || !isRealTerminal(options.stream))
    return { live: false, text: () => undefined, stop: () => undefined };
  let current = text;
  let stopped = false;
  let ora: { text: string; stop: () => void } | undefined;
  const timer = setTimeout(() => {
    void import('ora').then(({ default: create }) => {
      if (stopped) return;
      ora = create({
        text: fitted(current, options.stream),
        stream: sizedView(options.stream),
        discardStdin: false,
        hideCursor: false,
        isEnabled: true,
        color: options.color ? 'cyan' : false,
      }).start();
    });
  }, SPINNER_DELAY_MS);
  // A pending spinner never keeps the process alive.
  timer.unref();
  return {
    live: true,
    text(next) {
      current = next;
      if (ora) ora.text = fitted(next, options.stream);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      ora?.stop();
      ora = undefined;
    },
  };
}
