/**
 * The progress of a chunked submission. On a terminal one live line (made at the first send), redrawn in place, with
 * what spins inside a send (resends, rate-limit waits) shown in it, gone at the end; elsewhere plain lines, at most
 * one a second (and the last). The live line is said in whole parts: on a narrow terminal the items and coins go
 * first, then the tasks created, the chunk staying (`firstThatFits`), and a wait is said without what it waits for; plain
 * lines say everything.
 */
import type { Output, Prompts, Runtime, Service } from '../capabilities.js';
import type { Progress } from '../../output/progress.js';
import type { Outcome } from './types.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { textWidth } from '../../output/width.js';

/** Plain progress lines: at most one a second (and the last). */
const PROGRESS_EVERY_MS = 1_000;

export class ChunkProgress {
  private live: Progress | undefined;
  private asked = false;
  /** The live line's text, longest first: each shorter one leaves out a part (see `firstThatFits`). */
  private said: string[] = [''];
  /** What the chunks sent so far come to, once one has: the tasks (`4 of 5 tasks created`), then the items and coins
   * (`40 items and 40 coins by this run`). */
  private counts: { tasks: string; bought: string } | undefined;
  private notice: string | undefined;
  private lastLine = Number.NEGATIVE_INFINITY;
  private items = 0;
  private coins = 0;
  /** Of the chunks that have a task, those reused (another run's), not created: counted apart. */
  private readonly reused: Set<number>;

  constructor(
    private readonly ctx: Pick<Output, 'printer'> &
      Pick<Prompts, 'spinInto'> &
      Pick<Runtime, 'clock'> &
      Pick<Service, 'globals'>,
    private readonly total: number,
    reused: Iterable<number> = [],
  ) {
    this.reused = new Set(reused);
  }

  /** Runs one chunk's send with its spinner texts in the live line (or under its own spinner without one). */
  async sending<T>(what: string, send: () => Promise<T>): Promise<T> {
    // The chunk in flight, never the one before it (done), with what the run has so far.
    const counts = this.counts;
    this.said =
      counts === undefined
        ? [`creating ${what}…`]
        : [
            `creating ${what}… (${counts.tasks}; ${counts.bought})`,
            `creating ${what}… (${counts.tasks})`,
            `creating ${what}…`,
          ];
    const line = await this.goLive();
    if (!line) return send();
    line.refresh();
    const show = (text: string) => {
      this.notice = text;
      line.refresh();
    };
    try {
      return await this.ctx.spinInto(`creating ${what}`, show, send);
    } finally {
      this.notice = undefined;
    }
  }

  /**
   * Chunk `chunk` got its task: `tasks` of the total now have one; `lost`, the chunks of those whose task (an earlier
   * run's) the service no longer has (its ids started again): not counted as created, but said. A chunk counts once,
   * in its latest state: a reused one found lost since is lost, not reused as well.
   */
  sent(what: string, chunk: number, tasks: number, outcome: Outcome, lost: readonly number[] = []): void {
    // A task an earlier run created (send.ts `settledEarlier`): neither its items nor its coins are this run's.
    if (outcome.earlier !== true) this.items += outcome.items;
    if (outcome.how === 'reused') this.reused.add(chunk);
    else if (outcome.earlier !== true) this.coins += outcome.task.cost;
    if (this.total < 2) return;
    const of = counted(this.total, 'task');
    const gone = new Set(lost);
    const reused = [...this.reused].filter((index) => !gone.has(index)).length;
    const created = tasks - gone.size - reused;
    const tasksSaid =
      (reused === 0
        ? `${formatCount(tasks - gone.size)} of ${of} created`
        : `${created === 0 ? '' : `${formatCount(created)} created and `}${formatCount(reused)} reused of ${of}`) +
      (gone.size > 0 ? `, ${formatCount(gone.size)} lost` : '');
    this.counts = {
      tasks: tasksSaid,
      bought: `${counted(this.items, 'item')} and ${counted(this.coins, 'coin')} by this run`,
    };
    const text = `${what}: ${this.counts.tasks}; ${this.counts.bought}`;
    const now = this.ctx.clock.now();
    if (this.live) {
      this.said = [text, `${what}: ${this.counts.tasks}`, what];
      this.live.refresh();
    } else if (now - this.lastLine >= PROGRESS_EVERY_MS || tasks === this.total) {
      this.lastLine = now;
      this.ctx.printer.info(text);
    }
  }

  /** Writes (a task to stdout) with the live line out of the way. */
  interject(write: () => void): void {
    if (this.live) this.live.interject(write);
    else write();
  }

  /** The live line goes; the summary is what stays. */
  stop(): void {
    this.live?.stop();
    this.live = undefined;
  }

  private async goLive(): Promise<Progress | undefined> {
    if (this.asked || this.total < 2 || this.ctx.globals.quiet === true) return this.live;
    this.asked = true;
    const progress = await this.ctx.printer.progress();
    if (progress.mode !== 'live') return undefined;
    this.live = progress;
    progress.live((spin) => {
      // A notice (a rate-limit wait) in whole parts too: without its closing aside, then the wait alone.
      const texts = this.notice === undefined ? this.said : shorterNotices(this.notice);
      // The spinner's glyph and a space come before the text.
      const width = (progress.lineWidth() ?? Number.POSITIVE_INFINITY) - 2;
      return [`${progress.paint.cyan(spin)} ${firstThatFits(texts, width)}`];
    });
    return progress;
  }
}

/**
 * A notice, longest first: whole; without the aside it ends with (`… for the rate limit (4 requests a window)…`); then
 * the wait alone (`creating chunk 2 of 3: waiting 31s…`), when it says what it waits for after the wait.
 */
function shorterNotices(notice: string): string[] {
  const texts = [notice];
  const withoutAside = notice.replace(/ \([^()]*\)(…?)$/, '$1');
  if (withoutAside !== notice) texts.push(withoutAside);
  const wait = /^(.*?: waiting \S+) \S/.exec(notice)?.[1];
  if (wait !== undefined) texts.push(`${wait}…`);
  return texts;
}

/** The first of `texts` (longest first) that fits `width` columns; the last, cut by the line, when none does. */
function firstThatFits(texts: readonly string[], width: number): string {
  return texts.find((text) => textWidth(text) <= width) ?? texts.at(-1) ?? '';
}
