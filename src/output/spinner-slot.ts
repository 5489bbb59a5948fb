/**
 * The one spinner line of a run (`ctx.spin`, `ctx.spinInto`): at most one spinner at a time; a spin inside another
 * changes the outer one's text, and the client's rate-limit waits and resends are told in it. The spinner itself is
 * output/spinner.ts, loaded only when a spin starts.
 */
import type { Clock } from '../lib/time.js';
import type { OutputStream } from './io.js';
import type { Printer } from './printer.js';
import type { Spinner } from './spinner.js';
import { roundedBytes } from './bytes.js';

/** A follow's reads with no answer are said in a line no more often than this (docs/behaviour.md#output). */
const NO_ANSWER_LINE_GAP_MS = 30_000;

export interface SpinnerSlotOptions {
  stream: OutputStream;
  clock: Pick<Clock, 'now'>;
  /** Whether the stream may be redrawn in place (io.ts `canRedraw`): else never a spinner. */
  redraw: boolean;
  /** The run's printer, asked when a spin starts: no spinner with -q or for json/ndjson; its colour on stderr. */
  printer: () => Pick<Printer, 'quiet' | 'format' | 'stderrColor'>;
}

export class SpinnerSlot {
  private active: Spinner | undefined;
  private text = '';
  /**
   * When a request with no answer was last said in a line: once a run, not a flood; a follow's, which reads for as long
   * as it lasts, no more than once each NO_ANSWER_LINE_GAP_MS.
   */
  private saidNoAnswerAt: number | undefined;
  /**
   * A follow (wait, watch) reads from here on: a read that gives up is followed by the next round, and the follow says
   * when it gives up itself, so a notice names no time left of the read (it would stay on screen, wrong).
   */
  private following = false;

  constructor(private readonly options: SpinnerSlotOptions) {}

  /** Whether a spinner (or a live line lent by `spinInto`) is showing now. */
  get showing(): boolean {
    return this.active !== undefined;
  }

  /**
   * Runs `work` under a spinner on stderr, shown after a short delay and only for a person at a terminal. Inside
   * another spin, `work` gets the outer spinner (`say` changes its text). `shown`: a spinner (or a live line) tells
   * the text; without one a caller says it in a line of its own.
   */
  async spin<T>(text: string, work: (say: (text: string) => void, shown: boolean) => Promise<T>): Promise<T> {
    const say = (next: string) => {
      this.text = next;
      this.active?.text(`${next}…`);
    };
    if (this.active) return work(say, this.active.live);
    const [{ startSpinner }, { isJsonFormat }] = await Promise.all([import('./spinner.js'), import('./format.js')]);
    const { stream, redraw } = this.options;
    const printer = this.options.printer();
    const enabled = redraw && !printer.quiet && !isJsonFormat(printer.format);
    const spinner = startSpinner({ stream, enabled, color: printer.stderrColor }, `${text}…`);
    if (!spinner.live) return work(say, false);
    this.active = spinner;
    this.text = text;
    try {
      return await work(say, true);
    } finally {
      spinner.stop();
      this.active = undefined;
    }
  }

  /**
   * Runs `work` with `show` as its spinner, for a caller that draws a live line of its own (output/progress.ts):
   * spins inside it, and the client's notices, hand their text to `show` instead of starting a second spinner.
   */
  async spinInto<T>(text: string, show: (text: string) => void, work: () => Promise<T>): Promise<T> {
    const outer = { spinner: this.active, text: this.text };
    this.active = { live: true, text: show, stop: () => undefined };
    this.text = text;
    try {
      return await work();
    } finally {
      this.active = outer.spinner;
      this.text = outer.text;
    }
  }

  /** A resend of the client, told after the spinner's own text. */
  resending(message: string): void {
    this.active?.text(`${this.text}: ${message}`);
  }

  /** The reads from here on are a follow's (`following`): their notices name no time left. */
  follow(): void {
    this.following = true;
  }

  /**
   * A request of a spin has had no complete answer for `waitedMs` and gives up at `givesUpAt` at the latest: the spinner
   * says so after its own text, counting on, until the returned function is called (the answer came, or the attempt
   * ended); with no spinner, `line` gets it once a run, unless a live block is drawn (`live`: a wait's says it itself).
   * `received`: the body's bytes so far once the headers came (the answer is coming in), else undefined (no answer).
   */
  noAnswer(
    waitedMs: number,
    givesUpAt: number,
    line: (text: string) => void,
    live: () => boolean,
    received: () => number | undefined = () => undefined,
  ): (() => void) | undefined {
    const { clock } = this.options;
    const start = clock.now() - waitedMs;
    // After the spinner's text (what is read) it fits 80 columns: the line of a script names the service instead.
    const words = (who = '') => {
      const now = clock.now();
      const waited = `${Math.floor((now - start) / 1000)}s`;
      const left = this.following ? '' : `${Math.max(0, Math.ceil((givesUpAt - now) / 1000))}s left`;
      const bytes = received();
      if (bytes !== undefined) {
        const whose = who === '' ? '' : ' from the service';
        return `the answer${whose} is still coming in (${[`${roundedBytes(bytes)} in ${waited}`, left].filter(Boolean).join(', ')})…`;
      }
      return `no answer${who} for ${waited}; still trying${left === '' ? '' : ` (${left})`}…`;
    };
    const spinner = this.active;
    if (spinner === undefined) {
      const said = this.saidNoAnswerAt;
      const now = clock.now();
      if (!live() && (said === undefined || (this.following && now - said >= NO_ANSWER_LINE_GAP_MS))) {
        this.saidNoAnswerAt = now;
        line(words(' from the service'));
      }
      return undefined;
    }
    const text = this.text;
    const show = () => spinner.text(`${text}: ${words()}`);
    show();
    const timer = setInterval(() => {
      if (this.active === spinner) show();
      else clearInterval(timer);
    }, 1000);
    timer.unref();
    return () => {
      clearInterval(timer);
      if (this.active === spinner) spinner.text(`${this.text}…`);
    };
  }

  /** `waiting 25s for the rate limit…`, then 24s, 23s… in the spinner's text until the wait is over. */
  countDown(waitMs: number, message: string): void {
    const spinner = this.active;
    const { clock } = this.options;
    const end = clock.now() + waitMs;
    const show = () => {
      const left = Math.max(0, Math.ceil((end - clock.now()) / 1000));
      spinner?.text(`${this.text}: ${message.replace(/^waiting \S+/, `waiting ${left}s`)}`);
      return left;
    };
    show();
    const timer = setInterval(() => {
      if (this.active !== spinner || show() === 0) clearInterval(timer);
    }, 1000);
    timer.unref();
  }
}
