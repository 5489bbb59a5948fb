/**
 * The server's clock as one run learns it, and the window in which a create's task can carry its `created_at`
 * (docs/behaviour.md#the-window). Everything is in epoch ms; "local" is the client's clock, "server" the clock that stamps `created_at`.
 *
 * - Offset (server minus local) is an interval [low, high], narrowed by every observation:
 *   a `Date` header d (whole seconds) of a response sent at t_s and received at t_r gives d - t_r <= offset < d + 1 s - t_s;
 *   a task seen in a list received at t_r was created before the answer: offset >= created_at - resolution - t_r;
 *   a task created by a request sent at t_s, answered at t_r: offset in [created_at - resolution - t_r, created_at + resolution - t_s].
 *   Nothing seen: +-2 min. Contradicting observations (a clock that stepped) widen the interval instead of emptying it.
 * - Resolution: what the timestamps' fractions show (`.123` 1 ms, `.120` 10 ms, `.5` 100 ms); without a non-zero
 *   fraction (whole seconds, or always `.000`) it counts as 1 s.
 * - Window of a create sent at local t_s: from floor(t_s + low) to the server's resolution (a timestamp is truncated or
 *   rounded, never earlier than that), to t_end + high + 1 s after an answered failure at t_end (the 1 s covers a server
 *   that rounds), or open (to the end of reconciliation) when no answer came. Its loose end (`looseWindow`) takes a
 *   Date's upper bound DATE_CLOCK_SPREAD_MS later: a task past the end but before the loose end may be the request's.
 */
import { parseTimestampWithResolution, type ParsedTimestamp, UNKNOWN_RESOLUTION_MS } from '../lib/timestamp.js';

/** Offset bounds used while nothing was observed: the server clock may be two minutes either way. */
export const UNKNOWN_OFFSET_MS = 120_000;
/**
 * How far ahead or behind a service's `Date` header may read of the clock that stamps its tasks' `created_at`: the two
 * may be written by two machines (a gateway, a proxy or another node writes Date; the application or its database
 * created_at). A window that starts after the request's own task would send it again, so a Date moves the window's
 * start only this loosely; a task's own created_at moves it fully. Tasks before the send are told apart by the list
 * taken before it, not by the clock. After an answered failure the window's end moves as loosely (`looseWindow`):
 * no list taken after the answer tells a later task apart, so one found there is named, never adopted or taken for
 * none (docs/behaviour.md#the-window).
 */
export const DATE_CLOCK_SPREAD_MS = 120_000;
/**
 * How far an earlier run's reading of the tasks' clock (`learnEarlierTasks`) is loosened: it was taken on that run's
 * local clock, which may have been set since (a minute covers a drifting or corrected clock; the listing before the
 * chunk's send, two minutes deeper than its window, still covers that).
 */
const EARLIER_RUN_MARGIN_MS = 60_000;
/** Past an answered failure, how much later a created_at may still read (a rounding server, a lagging Date). */
export const ANSWERED_MARGIN_MS = 1000;

export interface OffsetBounds {
  low: number;
  high: number;
}

/** A window of server time (epoch ms, both ends inclusive); `to` is Infinity while it is open. */
export interface ServerWindow {
  from: number;
  to: number;
}

export class ServerClock {
  private low = Number.NEGATIVE_INFINITY;
  private high = Number.POSITIVE_INFINITY;
  private resolution = UNKNOWN_RESOLUTION_MS;
  /** The lower bounds from each kind of evidence: tasks' own created_at, and Date headers (another clock, perhaps). */
  private taskLow = Number.NEGATIVE_INFINITY;
  private dateLow = Number.NEGATIVE_INFINITY;
  /** The upper bounds likewise: a task this run created, and Date headers. */
  private taskHigh = Number.POSITIVE_INFINITY;
  private dateHigh = Number.POSITIVE_INFINITY;
  /** The lower bound from this run's own created tasks alone (`noteCreated`: the tightest there is). */
  private createdLow = Number.NEGATIVE_INFINITY;
  /** What an earlier run's own tasks showed (`learnEarlierTasks`): only for a Date clock shown ahead by them. */
  private earlierLow = Number.NEGATIVE_INFINITY;
  private earlierHigh = Number.POSITIVE_INFINITY;

  /** Starts from bounds of the clock that stamps tasks when they are known exactly (a run that saw its own task). */
  constructor(initial?: OffsetBounds) {
    if (!initial) return;
    this.taskLow = initial.low;
    this.taskHigh = initial.high;
    this.narrow(initial.low, initial.high);
  }

  /** Bounds learnt elsewhere (the client's Date headers); an undefined side says nothing. */
  learn(bounds: { low?: number | undefined; high?: number | undefined }): void {
    this.dateLow = Math.max(this.dateLow, bounds.low ?? Number.NEGATIVE_INFINITY);
    this.dateHigh = Math.min(this.dateHigh, bounds.high ?? Number.POSITIVE_INFINITY);
    this.narrow(bounds.low ?? Number.NEGATIVE_INFINITY, bounds.high ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Bounds of the clock stamping tasks that the tasks of an earlier run of the same job showed (a resume's journal:
   * `earlierTaskBounds`). Read on earlier runs' local clocks, perhaps hours ago, they do not narrow this run's reading:
   * once they show the `Date` clock ahead of the tasks' one by more than DATE_CLOCK_SPREAD_MS, where the Date alone
   * would start a window after the request's own task, their lower bound less EARLIER_RUN_MARGIN_MS starts it.
   */
  learnEarlierTasks(bounds: OffsetBounds): void {
    this.earlierLow = Math.max(this.earlierLow, bounds.low);
    this.earlierHigh = Math.min(this.earlierHigh, bounds.high);
  }

  /** A response's `Date` header (epoch ms of the whole second), the request sent at `sentAt`, answered at `receivedAt`. */
  noteDate(dateMs: number, sentAt: number, receivedAt: number): void {
    if (!Number.isFinite(dateMs)) return;
    this.dateLow = Math.max(this.dateLow, dateMs - receivedAt);
    this.dateHigh = Math.min(this.dateHigh, dateMs + 1000 - sentAt);
    this.narrow(dateMs - receivedAt, dateMs + 1000 - sentAt);
  }

  /** A task listed in an answer received at `receivedAt`: it existed by then. */
  noteSeen(createdAt: string, receivedAt: number): void {
    const parsed = parseTimestampWithResolution(createdAt);
    if (!parsed) return;
    this.noteResolution(parsed);
    this.taskLow = Math.max(this.taskLow, parsed.ms - this.resolution - receivedAt);
    this.narrow(parsed.ms - this.resolution - receivedAt, Number.POSITIVE_INFINITY);
  }

  /** A task created by a request sent at `sentAt` and answered at `receivedAt`: it was stamped in between. */
  noteCreated(createdAt: string, sentAt: number, receivedAt: number): void {
    const parsed = parseTimestampWithResolution(createdAt);
    if (!parsed) return;
    this.noteResolution(parsed);
    this.taskLow = Math.max(this.taskLow, parsed.ms - this.resolution - receivedAt);
    this.createdLow = Math.max(this.createdLow, parsed.ms - this.resolution - receivedAt);
    this.taskHigh = Math.min(this.taskHigh, parsed.ms + this.resolution - sentAt);
    this.narrow(parsed.ms - this.resolution - receivedAt, parsed.ms + this.resolution - sentAt);
  }

  /** Server minus local clock: what the observations allow (two minutes either way for a side nothing bounded). */
  offset(): OffsetBounds {
    const low = Number.isFinite(this.low)
      ? this.low
      : Number.isFinite(this.high)
        ? Math.min(this.high, 0) - UNKNOWN_OFFSET_MS
        : -UNKNOWN_OFFSET_MS;
    const high = Number.isFinite(this.high) ? this.high : Math.max(low, 0) + UNKNOWN_OFFSET_MS;
    return { low, high };
  }

  /** Server minus local clock at least, as the `Date` headers alone read it; undefined before one was seen. */
  dateOffsetLow(): number | undefined {
    return Number.isFinite(this.dateLow) ? this.dateLow : undefined;
  }

  /** The timestamps' resolution in ms as far as seen (1 s until a finer fraction shows). */
  resolutionMs(): number {
    return this.resolution;
  }

  /**
   * Where a create sent at local `sentAt` can have its `created_at`: from the send (on the server's clock at the
   * earliest, floored to the resolution) to 1 s past `answeredAt` on the server's clock at the latest; open without an
   * answer.
   */
  window(sentAt: number, answeredAt?: number): ServerWindow {
    const to =
      answeredAt === undefined ? Number.POSITIVE_INFINITY : answeredAt + this.offset().high + ANSWERED_MARGIN_MS;
    return { from: this.earliestServerTime(sentAt), to };
  }

  /**
   * The window with its end taken as loosely as its start: a Date's upper bound moved DATE_CLOCK_SPREAD_MS later (a
   * Date clock behind the one stamping tasks must not end the window before the request's own task), a task this run
   * created bounding it fully. Equal to `window` when no Date bounds the end, or a created task does.
   */
  looseWindow(sentAt: number, answeredAt?: number): ServerWindow {
    const { from, to } = this.window(sentAt, answeredAt);
    if (answeredAt === undefined) return { from, to };
    const { high } = this.offset();
    const evidence = Math.min(this.taskHigh, this.dateHigh + DATE_CLOCK_SPREAD_MS);
    const latest = Number.isFinite(evidence) ? Math.max(evidence, high) : high;
    return { from, to: answeredAt + latest + ANSWERED_MARGIN_MS };
  }

  /**
   * Local ms → the earliest created_at it can be (the window's start; for walking lists back to an edge). A Date header
   * raises it only to DATE_CLOCK_SPREAD_MS below what it reads: a gateway's clock ahead of the one stamping tasks must
   * not start the window after the request's own task (it would be sent again). The tasks' own times raise it fully,
   * and once a task this run (or the job's earlier run: `learnEarlierTasks`) created shows the Date's clock further
   * ahead than that, they alone place it.
   */
  earliestServerTime(localMs: number): number {
    const { low } = this.offset();
    // A task this run (or the job's earlier run) created that was stamped more than that below the Date's reading
    // shows the Date's clock ahead by more than the spread: the tasks' own times place the start then, never later
    // than the Date would (the earlier run's bounds contradicting each other, a clock that stepped, say no more).
    const dateLow = this.dateLow - DATE_CLOCK_SPREAD_MS;
    const earlier = this.earlierLow <= this.earlierHigh;
    const earlierHigh = earlier ? this.earlierHigh : Number.POSITIVE_INFINITY;
    const earlierLow = earlier ? this.earlierLow - EARLIER_RUN_MARGIN_MS : Number.NEGATIVE_INFINITY;
    // Only tasks this run or an earlier one created bound it closely: one merely listed may be hours old.
    const tasks = Math.max(this.createdLow, earlierLow);
    const dateAhead = Math.min(this.taskHigh, earlierHigh) < dateLow && Number.isFinite(tasks);
    const evidence = dateAhead ? Math.min(tasks, dateLow) : Math.max(this.taskLow, dateLow);
    const start = Number.isFinite(evidence) ? Math.min(evidence, low) : low;
    return Math.floor((localMs + start) / this.resolution) * this.resolution;
  }

  private noteResolution(parsed: ParsedTimestamp): void {
    this.resolution = Math.min(this.resolution, parsed.resolutionMs);
  }

  private narrow(low: number, high: number): void {
    const nextLow = Math.max(this.low, low);
    const nextHigh = Math.min(this.high, high);
    if (nextLow <= nextHigh) {
      this.low = nextLow;
      this.high = nextHigh;
      return;
    }
    // Observations that contradict each other (the server's clock stepped): keep the widest reading, never none.
    this.low = Math.min(this.low, low, high);
    this.high = Math.max(this.high, high, low);
  }
}

/**
 * What a job's own answered creates show of the clock stamping its tasks (server minus client, ms), for a resume
 * (`learnEarlierTasks`): each task a POST's answer named was stamped after that send, and before the job's next send
 * (its chunks go one at a time, its runs one after another). Undefined when no answered task kept its creation time.
 */
export function earlierTaskBounds(
  chunks: Iterable<{ send?: { sent_at: number }; task?: { answered?: boolean; created_at?: string } }>,
): OffsetBounds | undefined {
  const all = [...chunks];
  const sends = all.flatMap(({ send }) => (send === undefined ? [] : [send.sent_at])).sort((a, b) => a - b);
  /** The first send after `at`, by binary search in the sorted sends. */
  const nextSend = (at: number): number | undefined => {
    let [lo, hi] = [0, sends.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sends[mid] ?? Number.POSITIVE_INFINITY) > at) hi = mid;
      else lo = mid + 1;
    }
    return sends[lo];
  };
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  for (const { send, task } of all) {
    const stamp =
      task?.answered === true && task.created_at !== undefined
        ? parseTimestampWithResolution(task.created_at)
        : undefined;
    if (send === undefined || stamp === undefined) continue;
    high = Math.min(high, stamp.ms + stamp.resolutionMs - send.sent_at);
    // A next send long after (another run's, a day later) says little: not used.
    const next = nextSend(send.sent_at);
    if (next !== undefined && next - send.sent_at <= DATE_CLOCK_SPREAD_MS)
      low = Math.max(low, stamp.ms - stamp.resolutionMs - next);
  }
  return Number.isFinite(high) ? { low, high } : undefined;
}

/**
 * Whether a listing begun at `shownAt` (local ms) still proves tasks new for a request sent at `sentAtMs`: within
 * DATE_CLOCK_SPREAD_MS of it. A task another client made in a longer gap (a rate-limit wait, a lookup's reads) would
 * pass for the request's beyond what its clock window allows (reconcile.ts `newSinceListing`).
 */
export function listingFresh(shownAt: number, sentAtMs: number): boolean {
  return sentAtMs - shownAt <= DATE_CLOCK_SPREAD_MS;
}

/** Whether a `created_at` text lies in the window; an unreadable one always does (never guess "too old"). */
export function inWindow(createdAt: string, window: ServerWindow): boolean {
  const parsed = parseTimestampWithResolution(createdAt);
  if (!parsed) return true;
  return parsed.ms >= window.from && parsed.ms <= window.to;
}

/**
 * Whether a task stamped `createdAt` was made before a request left, told on the service's own clocks: `dateBefore` is
 * a `Date` header received before the request was sent, so the request was processed no earlier. Only when clearly
 * before it: by more than DATE_CLOCK_SPREAD_MS (so it catches a task of an earlier run, minutes or hours old) and the
 * timestamp's resolution (1 s unless it shows a finer fraction), so neither a skewed local clock (no offset is used), a coarse one, nor a service whose Date and
 * created_at come from different machines is taken for an old task. No Date, or a time that cannot be read: never.
 */
export function stampedBefore(createdAt: string, dateBefore: number | undefined): boolean {
  if (dateBefore === undefined) return false;
  const parsed = parseTimestampWithResolution(createdAt);
  return parsed !== undefined && parsed.ms < dateBefore - DATE_CLOCK_SPREAD_MS - parsed.resolutionMs;
}

/** The service's "now" for the two ends of a window typed as a duration back from it (`serviceNow`). */
export interface ServiceNow {
  /** For a window's start (`list --since 1h`, `webhook listen --catch-up 1h`): the earliest the service's now can be. */
  start: number;
  /** For a window's end (`list --until 1h`): the latest. */
  end: number;
}

/**
 * A window typed as a duration back from now, against the tasks' `created_at`, counts back from the service's clock as
 * the responses' `Date` headers read it (docs/behaviour.md#the-services-clock), so a local clock ahead of the service's
 * does not cut off the tasks it made within the window (nor one behind take in older ones). A `Date` has whole seconds:
 * the offset it gives is an interval about a second wide (`bounds`, from api/wire.ts), and each end of the window
 * takes the side of it that widens the window, so a coarse `Date` keeps a task at most a second outside, never cuts
 * one off. No `Date` read yet (none sent, or not asked yet): this machine's clock, as is.
 */
export function serviceNow(
  bounds: { low: number | undefined; high: number | undefined },
  localNow: number,
): ServiceNow {
  const low = bounds.low ?? bounds.high ?? 0;
  const high = bounds.high ?? bounds.low ?? 0;
  return { start: localNow + low, end: localNow + Math.max(low, high) };
}

/** Below this, a server clock is taken as this one's: Date headers give whole seconds, so closer is noise. */
const SKEW_TOLERANCE_MS = 2000;

/**
 * Times seen here, told on the service's clock, so that they sit in order beside the service's own times (`watch`):
 * shifted by the offset its Date headers (`bounds`) show once that is beyond SKEW_TOLERANCE_MS either way, the shift
 * then kept (bounds that narrow later do not move it), and never earlier than the time given before: a skew learnt
 * part-way does not send the records back.
 */
export function seenOnServerClock(
  bounds: () => { low: number | undefined; high: number | undefined },
): (seenAt: number) => number {
  let shift: number | undefined;
  let last = Number.NEGATIVE_INFINITY;
  return (seenAt) => {
    if (shift === undefined) {
      const { low, high } = bounds();
      const off = low !== undefined && high !== undefined && (low > SKEW_TOLERANCE_MS || high < -SKEW_TOLERANCE_MS);
      if (off) shift = Math.round((low + high) / 2);
    }
    last = Math.max(last, seenAt + (shift ?? 0));
    return last;
  };
}

/**
 * The times of each task's records kept in order (docs/behaviour.md#the-services-clock): a time before the task's
 * record above it is given that record's time. A task is remembered until its `last` record, at most `remember` of
 * them, the one seen least recently forgotten first: one forgotten starts afresh.
 */
export function timesInOrderPerTask(remember: number): (id: number, at: number, last: boolean) => number {
  // In order of last sight (a Map keeps insertion order): the first key is the one to forget.
  const latest = new Map<number, number>();
  return (id, at, last) => {
    const kept = Math.max(at, latest.get(id) ?? Number.NEGATIVE_INFINITY);
    latest.delete(id);
    if (last) return kept;
    latest.set(id, kept);
    const oldest = latest.size > remember ? latest.keys().next() : undefined;
    if (oldest?.done === false) latest.delete(oldest.value);
    return kept;
  };
}
