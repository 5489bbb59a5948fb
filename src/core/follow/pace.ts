/**
 * When to poll one task next, from what its item counts say: a new task is looked at again soon; a task
 * whose items complete at a measurable rate is polled sparsely while its predicted end is far off and right after the
 * predicted end; a task that gives no counts, or stalls, falls back to the growing backoff. Pure: time comes in.
 */
import { backoffInterval } from './scheduler.js';
import type { PollConfig } from './scheduler.js';

/** Gap after the first look at a new task, so a 0.1 s task is seen finished within a fraction of a second. */
const FIRST_GAP_MS = 250;
/** Growth of the early gaps with the task's age (gap = FIRST_GAP + 0.5 × age: ×1.5 per on-schedule poll). */
const EARLY_GROWTH = 0.5;
/** Far from the predicted end, the next poll comes after this fraction of the time left. */
const FAR_FRACTION = 0.5;
/** Within this of the predicted end, the next poll lands just after it. */
const NEAR_MS = 3000;
/** How long after the predicted end to land, so the last item has been written. */
const LAND_MS = 150;
/** Shortest gap between two polls of one task. */
const MIN_GAP_MS = 250;
/** Samples kept for the rate: enough to smooth a slow item, few enough to forget an old rate quickly. */
const SAMPLES = 5;
/**
 * A far jump is at most this many times the span the rate was measured over (and at least CONFIDENT_GAP_MS): a rate
 * from two polls a third of a second apart is a guess, so the next poll comes soon and measures it again.
 */
const SPAN_FACTOR = 2;
const CONFIDENT_GAP_MS = 1000;
/** While stalled, the gap also grows with the stall (a tenth of it), so an hour-long stall is not polled every second. */
const STALL_GROWTH = 0.1;

interface Sample {
  at: number;
  done: number;
}

export interface PaceObservation {
  /** Items finished (completed + failed), when the server said. */
  done: number | undefined;
  total: number;
  /** True when the status changed since the last observation. */
  statusChanged: boolean;
}

function stepRate(from: Sample | undefined, to: Sample | undefined): number | undefined {
  if (!from || !to || to.at <= from.at || to.done <= from.done) return undefined;
  return (to.done - from.done) / (to.at - from.at);
}

export class TaskPace {
  private samples: Sample[] = [];
  private lastChangeAt: number;
  private lastDone: number | undefined;
  private total = 0;
  /** First observation at which the count model said the end is near (or past); undefined when it is not. */
  private nearSince: number | undefined;
  /** Fastest rate measured over at least CONFIDENT_GAP_MS: how soon the task could end if a stall ends now. */
  private peakRate: number | undefined;

  constructor(
    private readonly config: PollConfig,
    private readonly addedAt: number,
  ) {
    this.lastChangeAt = addedAt;
  }

  /** Records an observation; returns true when it is news (status or item counts changed). */
  observe(at: number, seen: PaceObservation): boolean {
    this.total = seen.total;
    const countsChanged = seen.done !== undefined && seen.done !== this.lastDone;
    if (seen.statusChanged) this.samples = [];
    if (seen.done !== undefined) {
      this.samples.push({ at, done: seen.done });
      if (this.samples.length > SAMPLES) this.samples.shift();
    }
    this.lastDone = seen.done;
    const rate = this.rate();
    if (rate !== undefined && this.span() >= CONFIDENT_GAP_MS) this.peakRate = Math.max(this.peakRate ?? 0, rate);
    const news = seen.statusChanged || countsChanged;
    if (news) this.lastChangeAt = at;
    return news;
  }

  /**
   * Items per ms: over the kept samples, or over the last step when that is faster (work resuming after a stall
   * shows first there; overestimating costs one early poll, underestimating a late end). Undefined until items have
   * been seen finishing.
   */
  rate(): number | undefined {
    const n = this.samples.length;
    const window = stepRate(this.samples[0], this.samples[n - 1]);
    const step = stepRate(this.samples[n - 2], this.samples[n - 1]);
    if (window === undefined) return undefined;
    return step === undefined ? window : Math.max(window, step);
  }

  /** Predicted end (epoch ms) from the latest sample and the rate, for polling; undefined without a rate. */
  predictedEnd(): number | undefined {
    const last = this.samples[this.samples.length - 1];
    const rate = this.rate();
    if (!last || rate === undefined) return undefined;
    return last.at + Math.max(0, this.total - last.done) / rate;
  }

  /** Half the time the remaining items would take at the peak rate, growing with a stall; Infinity without a peak. */
  private resumeBound(now: number): number {
    if (this.peakRate === undefined || this.lastDone === undefined) return Infinity;
    const atPeak = Math.max(0, this.total - this.lastDone) / this.peakRate;
    return Math.max(CONFIDENT_GAP_MS, FAR_FRACTION * atPeak, STALL_GROWTH * (now - this.lastChangeAt));
  }

  /** Time covered by the kept samples. */
  private span(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    return first && last ? last.at - first.at : 0;
  }

  /** Items per ms over the kept samples: the honest average a person is shown (`rate` may plan on a faster step). */
  private averageRate(): number | undefined {
    return stepRate(this.samples[0], this.samples[this.samples.length - 1]);
  }

  /** Items per second, for the display: the average over the kept samples. */
  itemsPerSecond(): number | undefined {
    const rate = this.averageRate();
    return rate === undefined ? undefined : rate * 1000;
  }

  /** The end a person is told (epoch ms): the items left at the average rate, from the latest sample. */
  estimatedEnd(): number | undefined {
    const last = this.samples[this.samples.length - 1];
    const rate = this.averageRate();
    if (!last || rate === undefined) return undefined;
    return last.at + Math.max(0, this.total - last.done) / rate;
  }

  /** Unjittered gap before the next poll, computed right after an observation at `now`. */
  nextGap(now: number): { gap: number; exact: boolean } {
    const end = this.predictedEnd();
    const early = FIRST_GAP_MS + EARLY_GROWTH * Math.max(0, now - this.addedAt);
    const backoff = backoffInterval(this.config, now - this.lastChangeAt);
    // However slow the work is now, it could go back to its best pace: never sleep past half of what that would take.
    const resume = this.resumeBound(now);
    if (end === undefined) {
      this.nearSince = undefined;
      return { gap: Math.min(early, backoff, resume), exact: false };
    }
    const left = end - now;
    if (left > NEAR_MS) {
      this.nearSince = undefined;
      const span = this.span();
      const far = Math.min(left * FAR_FRACTION, Math.max(CONFIDENT_GAP_MS, SPAN_FACTOR * span), resume);
      return { gap: Math.min(this.config.maxMs, Math.max(MIN_GAP_MS, far)), exact: false };
    }
    // Near or past the predicted end: land just after it, then back off gently if the end does not come (a slow last
    // item, a server slow to mark the task done).
    this.nearSince ??= now;
    const waited = now - this.nearSince;
    const gap = Math.max(MIN_GAP_MS, left + LAND_MS, EARLY_GROWTH * waited);
    return { gap: Math.min(gap, this.config.maxMs), exact: true };
  }
}
