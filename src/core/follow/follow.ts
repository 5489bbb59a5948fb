/**
 * The one follow engine behind `wait`, `create --wait` and `watch`: polls watched tasks on the scheduler's timing,
 * reports each status change, and ends on the `until` state, the deadline or the abort signal.
 */
import { WAIT_NOTICE_MS } from '../../api/constants.js';
import { errorCode } from '../../api/request.js';
import { backoffDelay, DEADLINE_CODE } from '../../api/resend-policy.js';
import type { PageMeta, Task } from '../../api/schemas.js';
import { MalformedResponseError, NotFoundError, RateLimitError, UnavailableError } from '../../errors.js';
import { listedTwice, PageWalkGuard } from '../../lib/page-guard.js';
import {
  isTerminal,
  isWorking,
  itemCounts,
  sameCreation,
  taskPhase,
  taskSucceeded,
  wentBackWords,
} from '../../lib/task-state.js';
import { parseTimestamp } from '../../lib/timestamp.js';
import type { ItemCounts } from '../../lib/task-state.js';
import type { Clock } from '../../lib/time.js';
import { counted } from '../../output/plural.js';
import { CreationTimes } from './creation-times.js';
import { TaskPace } from './pace.js';
import { finishedItemCount, withItemCounts } from './item-counts.js';
import type { TaskReader } from './reader.js';
import {
  PageKnowledge,
  PAGE_SIZE,
  PollTimers,
  ROUND_BURST,
  jitter,
  planRound,
  pollConfig,
  roundBudget,
} from './scheduler.js';
import type { PollConfig } from './scheduler.js';
import { DEFAULT_OUTAGE_TOLERANCE_MS, type OutageState } from './outage.js';

/** `terminal` and `completed` both end at completed or failed (a failed task never completes); `processing` also
 * accepts a task that is already terminal, since it finished before we looked. */
type FollowUntil = 'terminal' | 'processing' | 'completed';
/**
 * `outage`: no good answer for the outage tolerance, or the deadline came while the last read failed (exit 8/7).
 * `timeout`: the deadline came while the service answered, or before any read was sent (the rate limit held it).
 */
export type FollowReason = 'done' | 'timeout' | 'interrupted' | 'outage';

export interface TaskChange {
  /** The task as just seen (without `items`; item counts filled in when known). */
  task: Task;
  /** Status reported in the previous change for this task; undefined the first time. */
  previous?: string;
  /** False when only the item counts moved (progress), true when the status is new (or first seen). */
  statusChanged: boolean;
  /** Item counts by the shared rule (task-state.ts); `completed` undefined when the server reported no items. */
  counts: ItemCounts;
  /** Items finished per second, averaged over the recent looks, when measurable. */
  itemsPerSecond?: number;
  /** The end at that rate (epoch ms), when measurable: what a person is told, not what polling plans on. */
  predictedEnd?: number;
  /** Clock time of the observation. */
  at: number;
}

export interface FollowOptions {
  /** The API; its `rateLimiter` (the client's) says when each round may go. */
  reader: TaskReader;
  /** Task ids to follow, or every unfinished task plus any created while watching (`watch` with no ids). */
  ids: number[] | 'all-unfinished';
  clock: Clock;
  /** Uniform in [0, 1) for jitter; default Math.random. */
  random?: () => number;
  /** `--interval` (2 s in the CLI): the backoff's start for tasks whose end cannot be predicted; grows ×1.5 to 30 s. */
  intervalMs: number;
  until: FollowUntil;
  /** Return as soon as one task reaches `until` (`wait --any`). */
  any?: boolean | undefined;
  /** With 'all-unfinished': keep going after they finish and keep picking up new tasks (`watch --follow`). */
  follow?: boolean | undefined;
  /** Epoch ms (`--timeout`); undefined = no limit. */
  deadline?: number | undefined;
  /** Ctrl-C: ends the follow with reason 'interrupted' (an in-flight request is abandoned, not awaited). */
  signal?: AbortSignal;
  /**
   * Default true: a `completed` task whose list entry lacks `failed_items` is fetched once (GET /tasks/:id) to count its
   * failed items, and its change is reported after that. Pass false when the counts don't matter
   * (`--allow-item-failures` without per-item output) to save those requests.
   */
  countItems?: boolean;
  /** Each change of status or item counts, in the order seen. */
  onChange: (change: TaskChange) => void;
  /** Every observation, news or not (fresh rate and predicted end for a live display); before onChange. */
  onPoll?: (change: TaskChange) => void;
  /**
   * A transient error (UnavailableError, RateLimitError): the round is polled again later, until the deadline or the outage
   * tolerance.
   */
  onTransientError?: (error: Error, attempt: number) => void;
  /**
   * No good answer for this long (ms) ends the follow with reason 'outage' (`--outage-tolerance`). Default
   * DEFAULT_OUTAGE_TOLERANCE_MS (2 min).
   */
  outageToleranceMs?: number | undefined;
  /** The outage state, after each failed round (`ongoing`) and once when the service answers again. */
  onOutage?: (state: OutageState) => void;
  /** 'all-unfinished': once the first reading of the list is done, with the number of unfinished tasks it found. */
  onScanned?: (unfinished: number) => void;
  /** 'all-unfinished': before each page of that first reading, with the number of pages (unknown before page 1). */
  onScanPage?: (page: number, pages: number | undefined) => void;
  /** Before each round's first request (a display shows a round whose answer is slow to come). */
  onRoundStart?: () => void;
  /**
   * Before a sleep the rate limiter (not the schedule) makes longer by more than WAIT_NOTICE_MS, when its end comes
   * before the deadline: the next round goes at `untilMs` (epoch ms), held by the rate limit (a create that spent the
   * budget). A display says why nothing is read.
   */
  onRateLimitHold?: (untilMs: number) => void;
  /**
   * After each round: requests it made, the round's budget (⌈due/100⌉ + 1; discovery reads come on top), and how many
   * tasks the follow holds (followed, and remembered as seen).
   */
  onRound?: (stats: { requests: number; budget: number; remembered: number }) => void;
  /**
   * 'all-unfinished': the most finished tasks remembered as seen, the newest by creation (REMEMBERED_FINISHED); one
   * older than those is known by its creation time (see `forgotten`).
   */
  rememberFinished?: number;
  /**
   * 'all-unfinished' with `follow`: once, when a round's catch-up (`catchUp`) stopped at CATCH_UP_PAGES or the rate
   * budget while every page it read held only new tasks: more than `atLeast` were created since the last read, and
   * some may never be shown.
   */
  onMissed?: (atLeast: number) => void;
  /**
   * 'all-unfinished' on a listing in no order of creation (`sweep`): once, when reading its pages for the new tasks the
   * count shows took longer than BEHIND_MS (waits with none missing left out), so new tasks are shown that late.
   */
  onBehind?: (behind: { pages: number; forMs: number }) => void;
  /**
   * A page listed these ids more than once (`tasks`: the page as sent): neither entry was taken, each task is read by
   * its own GET instead. For a warning (lib/page-guard.ts `repeatWarning`).
   */
  onPageRepeats?: (page: number, ids: number[], tasks: readonly Task[]) => void;
  /**
   * A followed task read again went back (processing to pending, or fewer items finished), once per task: the two
   * readings and the words of a warning (lib/task-state.ts `wentBackWords`). Its lines show what the service said.
   */
  onBackwards?: (previous: Task, task: Task, words: string) => void;
}

export interface FollowResult {
  /** Final known state of each task seen, in the order of `ids` (by id for 'all-unfinished'). */
  tasks: Task[];
  reason: FollowReason;
  /** Ids not in a terminal state (or never seen), in the same order: the resume hint's ids. */
  unfinished: number[];
  /** Requests made in total. */
  requests: number;
  /** The client's rate limiter held the last round back when the follow ended (a deadline before the first read). */
  heldByRateLimit: boolean;
  /** With reason 'outage': why it stopped, the last failure (none when every read was cut by the deadline). */
  outage?: {
    why: 'tolerance' | 'deadline';
    lastError: Error | undefined;
    /** Since the last good answer (or the start when none came), ms. */
    silentMs: number;
    answered: boolean;
    toleranceMs: number;
  };
}

export async function followTasks(options: FollowOptions): Promise<FollowResult> {
  return new Follower(options).run();
}

interface Watched {
  id: number;
  task?: Task;
  pace: TaskPace;
  /** Last status passed to onChange. */
  reported?: string;
  /** Last finished-item count passed to onChange. */
  reportedDone?: number | undefined;
  /** Reached `until` (and, when needed, item counts are known): no more polling. */
  settled: boolean;
  /** Completed, but its failed items are not counted yet. */
  needsDetail: boolean;
  /** The one GET for item counts was made (a server without items or counts is not asked again). */
  detailFetched: boolean;
  /** `onBackwards` was called for it (once a task). */
  backSaid?: boolean;
  /**
   * Found by the first scan in an entry its page listed twice, its state unknown: its first real read decides, as the
   * first scan would have (finished: let go unsaid; else followed).
   */
  unreadAtStart?: boolean;
}

/** Errors that asking again will not fix, although their class says "unavailable": they end the follow (exit 8). */
function isTransient(error: unknown): error is Error {
  if (error instanceof MalformedResponseError || endlessPages.has(error as object)) return false;
  return error instanceof UnavailableError || error instanceof RateLimitError;
}
const endlessPages = new WeakSet<object>();

/** A walk over GET /tasks. */
function newWalk(): PageWalkGuard<Task> {
  return new PageWalkGuard<Task>('GET /tasks');
}

/**
 * 'all-unfinished': the most finished tasks remembered as seen, the newest by creation, besides the tasks followed
 * (docs/behaviour.md#what-watch-keeps): as many as the page walks' own bound, so a task shown again is known for one
 * seen before as long as fewer than this many newer ones were seen after it.
 */
const REMEMBERED_FINISHED = 10_000;
/** 'all-unfinished': the finished tasks kept for the result (the last ones; the task-id cache keeps fewer). */
const RESULT_FINISHED = 100;

/**
 * 'all-unfinished': the most pages one discovery reads past page 1 (or before the last page) while each shows only new
 * tasks: 1,000 tasks created between two reads, a tenth of the documented 100 requests a minute. On a listing in no
 * order of creation, the most pages one discovery reads of its sweep (`sweep`).
 */
const CATCH_UP_PAGES = 10;
/** A listing in no order of creation whose sweep for the tasks the count shows takes longer than this is said so. */
const BEHIND_MS = 60_000;
/**
 * Creation times this close say nothing of a listing's order: tasks created together may be numbered and stamped in
 * different orders (a list by id shows their times a few ms out of order), and whole-second timestamps tie.
 */
const ORDER_SLACK_MS = 1000;

/**
 * 'all-unfinished' on a listing in no order of creation: one reading of its pages 2 … last, a discovery at a time
 * (page 1 is read by every discovery), for the tasks its count shows that no read found.
 */
interface Sweep {
  /** `total_count` when it began: unchanged at its end with nothing found, what is still missing is unfindable. */
  count: number;
  /** Tasks it found. */
  found: number;
  /** Time spent on it, its discoveries and the waits between them while tasks were missing (not the idle ones). */
  ms: number;
}

/** A page read by a discovery: its tasks, and those of them it found (never seen before). */
interface PageRead {
  tasks: Task[];
  found: number;
  /** The ids of the tasks it found: a page read later in the same round may show them again (`catchUp`). */
  foundIds: number[];
}

/** The listing is read from page 1 on every discovery; this key times discovery like a task. */
const DISCOVERY = 'discovery';
/** The least time a request gets before the outage tolerance cuts it (see readerUntilGiveUp). */
const MIN_LAST_ATTEMPT_MS = 5000;

class Follower {
  private readonly config: PollConfig;
  private readonly timers: PollTimers<number>;
  private readonly discovery: PollTimers<typeof DISCOVERY>;
  private readonly pages = new PageKnowledge();
  private readonly watched = new Map<number, Watched>();
  private readonly watchAll: boolean;
  /**
   * 'all-unfinished': the ids seen in the listing with their `created_at` (a service that restarts numbers its tasks
   * from 1 again, and a known id with another creation time is a new task): every task followed, and the newest
   * `rememberFinished` of the others (`prune`); the older ones are told by `forgotten`.
   */
  private readonly known = new Map<number, string>();
  /** The latest creation time (epoch ms) `prune` forgot: a finished task created no later is one seen before. */
  private forgottenUntil = -Infinity;
  /** The same for forgotten tasks whose `created_at` is no timestamp: the highest id forgotten. */
  private forgottenIdsUntil = -Infinity;
  /** The latest creation time (epoch ms) of a task seen in the listing: where the next discovery's news starts. */
  private newestSeen = -Infinity;
  /** `onMissed` was called (it is said once). */
  private missedSaid = false;
  /** Tasks seen in the listing, each once (what `known` counted before it forgot any). */
  private listed = 0;
  /** 'all-unfinished': the last RESULT_FINISHED tasks that finished, followed no more. */
  private finished: Task[] = [];
  /** 'all-unfinished': the first task that ended without completing, and the first completed without succeeding. */
  private readonly verdicts = new Map<'ended' | 'unsuccessful', Task>();
  private initialScanDone = false;
  /** Tasks discovered so far (a discovery that found none backs off). */
  private discovered = 0;
  private totalCount: number | undefined;
  /**
   * Next page (2 … last−1) to read when the listing holds tasks none of our reads showed; on a listing in no order of
   * creation, the sweep's next page (2 … last).
   */
  private scanCursor = 2;
  /**
   * 'all-unfinished': a page of the listing showed creation times that rose and one that fell (the same page or two), by
   * more than ORDER_SLACK_MS: the listing is in no order of creation, and a new task can be on any page (`sweep`).
   */
  private unordered = false;
  private pageRose = false;
  private pageFell = false;
  /** The sweep under way on a listing in no order of creation. */
  private sweepNow: Sweep | undefined;
  /** Instants of the `created_at` texts read lately, each parsed once. */
  private readonly creationTimes = new CreationTimes();
  /** When the last discovery ended with tasks still missing (the sweep's time runs on until the next), else undefined. */
  private missingSince: number | undefined;
  /** `onBehind` was called (it is said once). */
  private behindSaid = false;
  /**
   * Tasks the count shows that a whole sweep did not find while the count stayed the same (a task never listed, or one
   * taken for one seen before: `forgotten`): not looked for again, so they cannot keep the sweep going for ever.
   */
  private unfindable = 0;
  private readonly seenThisRound = new Set<number>();
  private roundRequests = 0;
  private currentBudget = 0;
  private requests = 0;
  /** The limiter, not the schedule, set the last wake-up: what held a read the deadline then came before. */
  private heldByRateLimit = false;
  private failures = 0;
  /** After a failed round: when the next round may go (the backoff). */
  private backoffUntil: number | undefined;
  private readonly toleranceMs: number;
  /** Clock time of the last good answer (the start until one comes). */
  private lastGoodAt: number;
  /** When the last request was sent: a round's requests go one at a time, so a failed round's is the one that failed. */
  private lastSentAt: number;
  /**
   * When the first read of the current run of failures was sent: the outage tolerance counts from there. Not from the
   * last good answer: a long task is read every 30 s, and the time nobody asked is no failure of the service's (with
   * 30 s of a 2-minute tolerance gone before the first failed read, a pause and a restart of the service well within
   * the tolerance ended the wait; with `--outage-tolerance 30s`, its first failed read did).
   */
  private outageSince: number | undefined;
  /** The last good answer before the current run of failures: the recovery line says how long it lasted. */
  private outageFrom: number | undefined;
  private answered = false;
  private lastError: Error | undefined;
  private gaveUp = false;
  /** The last round's reads were cut at the follow's deadline (not earlier, at the outage tolerance). */
  private readsEndAtDeadline = false;
  /**
   * Guards this round's search for tasks (pages not known to hold one). One per round: the pages of a search are read
   * once each, but between two rounds the listing churns (tasks created, a task moving pages, a restarted service), so
   * a page read again in a later round may rightly repeat what an earlier one showed.
   */
  private walk: PageWalkGuard<Task> | undefined;

  constructor(private readonly options: FollowOptions) {
    this.config = pollConfig(options.intervalMs, options.random);
    this.timers = new PollTimers(this.config);
    this.discovery = new PollTimers(this.config);
    this.watchAll = options.ids === 'all-unfinished';
    const now = options.clock.now();
    this.toleranceMs = options.outageToleranceMs ?? DEFAULT_OUTAGE_TOLERANCE_MS;
    this.lastGoodAt = now;
    this.lastSentAt = now;
    if (options.ids === 'all-unfinished') this.discovery.add(DISCOVERY, now);
    else for (const id of options.ids) this.addWatched(id, now);
  }

  async run(): Promise<FollowResult> {
    const { clock, signal, deadline } = this.options;
    try {
      for (;;) {
        if (signal?.aborted) return this.result('interrupted');
        if (this.isDone()) return this.result('done');
        if (this.gaveUp) return this.result('outage', 'tolerance');
        const now = clock.now();
        // 8/7 only for a service that failed, or left every request sent unanswered, when the deadline came; a wait
        // that sent nothing (the rate limit held its first read) or was answered timed out (124).
        if (deadline !== undefined && now >= deadline)
          return this.failures > 0 || (this.requests > 0 && !this.answered)
            ? this.result('outage', 'deadline')
            : this.result('timeout');
        // The client's limiter paces the rounds: one as large as the last goes when the budget allows it.
        const paceAt = this.options.reader.rateLimiter.readyAt(this.roundRequests, ROUND_BURST);
        const scheduledAt = this.nextWakeAt(now);
        const wakeAt = Math.max(scheduledAt, paceAt);
        // Failing, with the rate limit holding the next read well past the tolerance: no read can answer in time, so
        // the follow gives up when the tolerance runs out, not after the hold (`--outage-tolerance 8s` ending a minute
        // on). A hold ending within the least time a last read gets still has that read.
        const giveUpAt = this.failures > 0 ? this.giveUpAt() : Number.POSITIVE_INFINITY;
        if (wakeAt > giveUpAt + MIN_LAST_ATTEMPT_MS && (deadline === undefined || giveUpAt < deadline)) {
          if (giveUpAt > now) await clock.sleep(giveUpAt - now, signal);
          this.gaveUp = true;
          continue;
        }
        this.heldByRateLimit = paceAt > now && paceAt >= wakeAt;
        if (wakeAt > now) {
          const held = this.heldByRateLimit && paceAt - Math.max(now, scheduledAt) > WAIT_NOTICE_MS;
          if (held && (deadline === undefined || wakeAt <= deadline)) this.options.onRateLimitHold?.(wakeAt);
          await clock.sleep((deadline === undefined ? wakeAt : Math.min(wakeAt, deadline)) - now, signal);
          continue;
        }
        await this.roundWithBackoff();
      }
    } catch (error) {
      if (signal?.aborted) return this.result('interrupted');
      throw error;
    }
  }

  private async roundWithBackoff(): Promise<void> {
    this.roundRequests = 0;
    this.currentBudget = 0;
    this.options.onRoundStart?.();
    try {
      await this.round();
      if (this.failures > 0) this.options.onOutage?.(this.outageState(false, this.outageFrom ?? this.lastGoodAt));
      this.failures = 0;
      this.outageFrom = undefined;
      this.outageSince = undefined;
      this.backoffUntil = undefined;
    } catch (error) {
      if (!isTransient(error) || this.options.signal?.aborted) throw error;
      const { deadline, clock } = this.options;
      const now = clock.now();
      // A request cut by the deadline is neither a failure nor polled again: run() ends next, by what came before it.
      // The cut's timer counts from the event loop's cached time, so under load it fires while the clock is still a
      // little short of the deadline: the error's code says which cut it was.
      if (
        deadline !== undefined &&
        (now >= deadline || (this.readsEndAtDeadline && errorCode(error) === DEADLINE_CODE))
      )
        return;
      // Transient: whatever the round learned is kept; the next round waits a growing delay, like an unchanged task.
      this.failures++;
      this.lastError = error;
      this.outageFrom ??= this.lastGoodAt;
      this.outageSince ??= this.lastSentAt;
      this.options.onTransientError?.(error, this.failures);
      const giveUpAt = this.giveUpAt();
      if (now >= giveUpAt) {
        this.gaveUp = true;
        return;
      }
      this.options.onOutage?.(this.outageState(true, this.lastGoodAt));
      // The one backoff (api/resend-policy.ts), on the polling schedule: the interval ×1.5 per failure, up to 30 s.
      const { startMs: firstMs, factor, maxMs: capMs } = this.config;
      const delay = backoffDelay(this.failures - 1, this.config.random, { firstMs, factor, capMs });
      // One last round exactly when the tolerance runs out, so the follow never gives up later than it must.
      this.backoffUntil = Math.min(now + delay, giveUpAt);
    } finally {
      this.options.onRound?.({
        requests: this.roundRequests,
        budget: this.currentBudget,
        remembered: this.known.size + this.watched.size,
      });
    }
  }

  private async round(): Promise<void> {
    const { clock } = this.options;
    const now = clock.now();
    this.seenThisRound.clear();

    this.walk = undefined;
    if (this.watchAll && (this.discovery.dueAt(DISCOVERY) ?? Infinity) <= now) await this.discover();

    const due = this.timers.due(now).filter((id) => this.isPollable(id));
    const budget = roundBudget(due.length + this.awaitingDetail().length);
    this.currentBudget = budget;
    let used = 0;
    const spend = async (request: () => Promise<void>): Promise<void> => {
      used++;
      await request();
    };

    while (used < budget && !this.isDone()) {
      const unseen = due.filter((id) => !this.seenThisRound.has(id) && this.isPollable(id));
      if (unseen.length === 0) break;
      const plan = planRound(unseen, {
        pageOf: (id) => this.pages.pageOf(id),
        isUnlisted: (id) => this.pages.isUnlisted(id),
        totalPages: this.pages.totalPages,
        searched: this.pages.searched,
        budget: budget - used,
      });
      const page = plan.pages[0];
      if (page !== undefined) {
        await spend(async () => {
          await this.readPage(page);
        });
        continue;
      }
      if (plan.gets.length === 0) break;
      for (const id of plan.gets) {
        if (used >= budget || this.isDone()) break;
        await spend(() => this.fetchTask(id));
      }
    }
    // Item counts for completed tasks, including any that completed during this round, with what the budget has left.
    for (const id of this.awaitingDetail()) {
      if (used >= budget || this.isDone()) break;
      await spend(() => this.fetchTask(id));
    }

    // Due tasks this round could not reach wait a start interval, so an unlucky search never spins without sleeping.
    const later = clock.now() + this.config.startMs;
    for (const id of due) if (!this.seenThisRound.has(id) && this.isPollable(id)) this.timers.defer(id, later);
    const withoutPage = [...this.watched.values()]
      .filter((w) => !w.settled && this.pages.pageOf(w.id) === undefined)
      .map((w) => w.id);
    this.pages.endRound(withoutPage);
  }

  private awaitingDetail(): number[] {
    return [...this.watched.values()].filter((w) => !w.settled && w.needsDetail).map((w) => w.id);
  }

  /**
   * 'all-unfinished': the first discovery reads every page (unfinished tasks can be anywhere in an unspecified order).
   * Later ones read page 1, which is enough to find new tasks when the listing is newest-first and fewer than a page
   * were created since the last read; when page 1 shows only new tasks, the pages after it are read in the same round
   * until one shows a task seen before or created before the last round's newest (`catchUp`). When `total_count` says
   * tasks exist that no read showed (oldest-first or another order), the last page is read (and, when it shows only
   * new tasks, the pages before it the same way), then one more page per round until the count adds up.
   */
  private async discover(): Promise<void> {
    const before = this.discovered;
    // Each discovery is a walk of its own, guarded by itself (see `walk`).
    const walk = newWalk();
    if (!this.initialScanDone) {
      for (let page = 1; page === 1 || page <= (this.pages.totalPages ?? 0); page++) {
        this.options.onScanPage?.(page, page === 1 ? undefined : this.pages.totalPages);
        await this.readPage(page, walk);
      }
      this.initialScanDone = true;
      this.discovery.observe(DISCOVERY, true, this.options.clock.now());
      // The tasks known unfinished: one whose state no read has given yet (its page listed it twice) is not announced.
      this.options.onScanned?.([...this.watched.values()].filter((w) => w.unreadAtStart !== true).length);
      return;
    }
    const since = this.newestSeen;
    const startedAt = this.options.clock.now();
    // The pages this discovery read: its walk reads each once.
    const read = new Set<number>([1]);
    const first = await this.readPage(1, walk);
    if (this.unordered) {
      // New tasks can be on any page: neither end nor a catch-up past one finds them (`sweep`).
      await this.sweep(walk, read, startedAt);
      this.discovery.observe(
        DISCOVERY,
        this.discovered > before || this.unseenInListing() > 0,
        this.options.clock.now(),
      );
      return;
    }
    // Newest first: more than a page created since the last read pushed some of them past page 1.
    if (this.onlyNews(first, since)) await this.catchUp(1, first, 1, since, walk, read);
    const last = this.pages.totalPages ?? 0;
    if (this.unseenInListing() > 0 && last > 1 && !read.has(last)) {
      read.add(last);
      // Oldest first: the new tasks are at the end, more than the last page holds when it shows only new ones.
      const end = await this.readPage(last, walk);
      if (this.onlyNews(end, since)) await this.catchUp(last, end, -1, since, walk, read);
    }
    if (this.unseenInListing() > 0 && last > 2) {
      if (this.scanCursor >= last) this.scanCursor = 2;
      const page = this.scanCursor++;
      if (!read.has(page)) await this.readPage(page, walk);
    }
    this.discovery.observe(DISCOVERY, this.discovered > before, this.options.clock.now());
  }

  /**
   * Every task on the page is new: found by this read (or by an earlier page of this round, `news`: tasks created
   * while the pages are read push those page 1 showed down onto page 2) and created no earlier than the last round's
   * newest.
   */
  private onlyNews(read: PageRead, since: number, news?: ReadonlySet<number>): boolean {
    const isNews = (task: Task) => news?.has(task.id) ?? false;
    return (
      read.tasks.length > 0 &&
      read.tasks.length === read.found + read.tasks.filter(isNews).length &&
      read.tasks.every((task) => (this.creationTimes.of(task.created_at) ?? Infinity) >= since)
    );
  }

  /**
   * The pages after `from` (`step` 1, newest first) or before it (-1, oldest first), while each shows only new tasks:
   * at most CATCH_UP_PAGES, and only while the rate budget lets the next one go within an interval (never beyond it:
   * every read waits its turn at the client's limiter). Stopped short with only new tasks seen, it says so (`onMissed`).
   */
  private async catchUp(
    from: number,
    first: PageRead,
    step: 1 | -1,
    since: number,
    walk: PageWalkGuard<Task>,
    read: Set<number>,
  ): Promise<void> {
    const limiter = this.options.reader.rateLimiter;
    // The tasks this round found so far: bounded by the pages it reads (CATCH_UP_PAGES + 1).
    const news = new Set(first.foundIds);
    let page = from;
    for (let pages = 0; ; pages++) {
      page += step;
      if (page < 1 || page > (this.pages.totalPages ?? 0) || read.has(page)) return;
      const now = this.options.clock.now();
      if (pages >= CATCH_UP_PAGES || limiter.readyAt(1, ROUND_BURST) > now + this.config.startMs) {
        if (!this.missedSaid) this.options.onMissed?.(news.size);
        this.missedSaid = true;
        return;
      }
      read.add(page);
      const shown = await this.readPage(page, walk);
      if (!this.onlyNews(shown, since, news)) return;
      for (const id of shown.foundIds) news.add(id);
    }
  }

  private unseenInListing(): number {
    return Math.max(0, (this.totalCount ?? 0) - this.listed - this.unfindable);
  }

  /**
   * On a listing in no order of creation, while its count shows tasks no read found: its pages 2 … last (page 1 was just
   * read) in turn, from where the last discovery stopped, at most CATCH_UP_PAGES and only while the rate budget lets
   * the next one go within an interval (as `catchUp`). A task there when a sweep began is found by its end; one created
   * meanwhile on a page already read, by the next. Said once when a sweep takes longer than BEHIND_MS (`onBehind`), and
   * when more tasks were created during one than half of what is remembered (`onMissed`: some may be taken for tasks
   * seen before).
   */
  private async sweep(walk: PageWalkGuard<Task>, read: Set<number>, startedAt: number): Promise<void> {
    const { clock, reader } = this.options;
    // One page is the whole listing at once: what its count shows besides is not listed (page 1 was just read).
    if ((this.pages.totalPages ?? 0) < 2) this.unfindable += this.unseenInListing();
    for (let pages = 0; this.unseenInListing() > 0 && pages < CATCH_UP_PAGES; pages++) {
      const last = this.pages.totalPages ?? 0;
      if (this.scanCursor > last) this.endSweep();
      const page = this.scanCursor;
      if (page > last || read.has(page)) break;
      if (reader.rateLimiter.readyAt(1, ROUND_BURST) > clock.now() + this.config.startMs) break;
      const sweep = (this.sweepNow ??= { count: this.totalCount ?? 0, found: 0, ms: 0 });
      read.add(page);
      this.scanCursor++;
      sweep.found += (await this.readPage(page, walk)).found;
    }
    const now = clock.now();
    const sweep = this.sweepNow;
    if (sweep) sweep.ms += now - (this.missingSince ?? startedAt);
    if (this.scanCursor > (this.pages.totalPages ?? 0)) this.endSweep();
    this.missingSince = this.unseenInListing() > 0 ? now : undefined;
    if (sweep && sweep.ms > BEHIND_MS && !this.behindSaid) {
      this.behindSaid = true;
      this.options.onBehind?.({ pages: this.pages.totalPages ?? 0, forMs: sweep.ms });
    }
  }

  /** The sweep read the last page: the next one starts at page 2 (see `unfindable`, `onMissed`). */
  private endSweep(): void {
    this.scanCursor = 2;
    const sweep = this.sweepNow;
    this.sweepNow = undefined;
    if (!sweep) return;
    const count = this.totalCount ?? 0;
    if (sweep.found === 0 && count === sweep.count) this.unfindable += this.unseenInListing();
    const created = count - sweep.count;
    if (created > (this.options.rememberFinished ?? REMEMBERED_FINISHED) / 2 && !this.missedSaid) {
      this.missedSaid = true;
      this.options.onMissed?.(created);
    }
  }

  /**
   * One task's creation time `at` after the page's `last` noted (`unordered`): in an order of creation the times of a
   * page only rise, or only fall, as did those of every page before. Times within ORDER_SLACK_MS of the last say
   * nothing. Returns the page's last time noted.
   */
  private noteOrder(at: number | undefined, last: number | undefined): number | undefined {
    if (at === undefined) return last;
    if (last !== undefined && Math.abs(at - last) <= ORDER_SLACK_MS) return last;
    if (last !== undefined && at > last) this.pageRose = true;
    if (last !== undefined && at < last) this.pageFell = true;
    return at;
  }

  /** `walk`: the walk this read belongs to; by default the current search for tasks (pages not known to hold one). */
  private async readPage(page: number, walk?: PageWalkGuard<Task>): Promise<PageRead> {
    const { tasks, meta } = await this.request((reader) => reader.listTasks({ page, perPage: PAGE_SIZE }));
    this.guard(page, meta, tasks, walk);
    const now = this.options.clock.now();
    this.totalCount = meta.total_count;
    const here = new Set<number>();
    const foundIds: number[] = [];
    /** The page's last creation time noted for the listing's order (`noteOrder`). */
    let last: number | undefined;
    // An id the page lists twice: neither entry is taken (one may say `failed` of a task that is running); the task is
    // read by its own GET, so no outcome is decided by an answer that contradicts itself.
    const twice = new Set(listedTwice(tasks));
    if (twice.size > 0) this.options.onPageRepeats?.(page, [...twice], tasks);
    const discovered = new Set<number>();
    for (const task of tasks) {
      const doubtful = twice.has(task.id);
      if (this.watchAll && !discovered.has(task.id)) {
        // Parsed once, for the order and the discovery.
        const at = this.creationTimes.of(task.created_at);
        if (!this.unordered) last = this.noteOrder(at, last);
        if (doubtful) discovered.add(task.id);
        const found = doubtful ? this.discoverDoubtful(task, at, now) : this.discoverTask(task, at, now);
        if (found) foundIds.push(task.id);
      }
      const w = this.watched.get(task.id);
      if (w && doubtful) {
        if (!w.settled) w.needsDetail = true;
      } else if (w) {
        here.add(task.id);
        this.observe(task, now);
      }
    }
    this.unordered ||= this.pageRose && this.pageFell;
    // Tasks the count shows fewer than those found: those given up on were listed after all (or are gone).
    this.unfindable = Math.min(this.unfindable, Math.max(0, meta.total_count - this.listed));
    for (const w of this.watched.values())
      if (this.pages.pageOf(w.id) === page && !here.has(w.id)) this.pages.forget(w.id);
    // A task that finished on this page is followed no more: its page is not worth knowing.
    this.pages.recordPage(page, meta, here, (id) => this.watched.has(id));
    return { tasks, found: foundIds.length, foundIds };
  }

  private guard(page: number, meta: PageMeta, tasks: Task[], walk: PageWalkGuard<Task> | undefined): void {
    let guard = walk;
    if (!guard) {
      // Pages where watched tasks were last seen are read every round; only a search walks into the unknown.
      if ([...this.watched.values()].some((w) => !w.settled && this.pages.pageOf(w.id) === page)) return;
      guard = this.walk ??= newWalk();
    }
    try {
      guard.accept(page, meta.total_pages, tasks);
    } catch (error) {
      if (error instanceof Error) endlessPages.add(error);
      throw error;
    }
  }

  private async fetchTask(id: number): Promise<void> {
    // NotFoundError (and AuthError, UsageError) propagate: a watched id that does not exist is fatal, unless watch
    // found it in the listing itself (the service restarted, or removed it): then it is no longer followed.
    let task: Task;
    try {
      task = await this.request((reader) => reader.getTask(id));
    } catch (error) {
      if (!(this.watchAll && error instanceof NotFoundError)) throw error;
      this.unwatch(id);
      return;
    }
    this.observe(task, this.options.clock.now(), true);
  }

  private unwatch(id: number): void {
    this.watched.delete(id);
    this.timers.delete(id);
    this.pages.drop(id);
  }

  /** Counts the request and lets Ctrl-C end the wait at once rather than after the request's own timeout. */
  private async request<T>(send: (reader: TaskReader) => Promise<T>): Promise<T> {
    const now = this.options.clock.now();
    this.requests++;
    this.roundRequests++;
    this.lastSentAt = now;
    const value = await abortable(send(this.readerUntilGiveUp(now)), this.options.signal);
    // A good answer (parsed and shaped right): the outage clock starts again.
    this.lastGoodAt = this.options.clock.now();
    this.answered = true;
    return value;
  }

  /** When the follow gives up unless a good answer comes: the tolerance after the first failed read (or `now`'s). */
  private giveUpAt(now = this.lastSentAt): number {
    return (this.outageSince ?? now) + this.toleranceMs;
  }

  /**
   * A request that gets no answer is cut when the outage tolerance runs out (at least MIN_LAST_ATTEMPT_MS after it is
   * sent, so the last round still has a chance), not a whole request timeout (35 s) later.
   */
  private readerUntilGiveUp(now: number): TaskReader {
    const { reader, deadline } = this.options;
    this.readsEndAtDeadline = true;
    if (!reader.withDeadline || !Number.isFinite(this.toleranceMs)) return reader;
    const cut = Math.max(this.giveUpAt(now), now + MIN_LAST_ATTEMPT_MS);
    this.readsEndAtDeadline = deadline !== undefined && deadline <= cut;
    return reader.withDeadline(deadline === undefined ? cut : Math.min(deadline, cut));
  }

  private outageState(ongoing: boolean, lastGoodAt: number): OutageState {
    const error = this.lastError ?? new Error('no answer');
    return {
      ongoing,
      lastGoodAt,
      answered: this.answered,
      lastError: error,
      failures: this.failures,
      giveUpAt: this.giveUpAt(),
    };
  }

  /** 'all-unfinished': the first scan follows unfinished tasks; later, any new task is followed (even if finished). */
  /** `discoverTask` for an entry of a page that lists its id twice: its state says nothing, so it is followed. */
  private discoverDoubtful(task: Task, at: number | undefined, now: number): boolean {
    const found = this.discoverTask({ ...task, status: 'pending', completed_at: null, failed_at: null }, at, now);
    const w = this.watched.get(task.id);
    if (found && w !== undefined && w.task === undefined && !this.initialScanDone) w.unreadAtStart = true;
    return found;
  }

  private discoverTask(task: Task, at: number | undefined, now: number): boolean {
    if (at !== undefined) this.newestSeen = Math.max(this.newestSeen, at);
    const created = this.known.get(task.id);
    if (created === task.created_at) return false;
    if (created === undefined && isTerminal(task) && this.forgotten(task, at)) return false;
    if (created === undefined) this.listed++;
    this.known.set(task.id, task.created_at);
    this.discovered++;
    // The id named another task before (a restarted service): the old one is gone, the new one is followed afresh.
    if (created !== undefined) this.unwatch(task.id);
    if (!this.initialScanDone && isTerminal(task)) {
      this.prune();
      return true;
    }
    this.addWatched(task.id, now);
    return true;
  }

  /**
   * A finished task not remembered that was seen before: created no later than a task `prune` forgot (it forgets the
   * oldest first), so more than `rememberFinished` tasks created after it were seen since. A task the watch never saw
   * is taken for it only when that many newer ones were seen before it (docs/behaviour.md#what-watch-keeps). A task
   * not finished is never one of them: only finished tasks are forgotten, and a finished task stays finished. `at`: its
   * `created_at` as the page's read parsed it (a task the watch forgot is listed again every round: parsed once).
   */
  private forgotten(task: Task, at: number | undefined): boolean {
    return at === undefined ? task.id <= this.forgottenIdsUntil : at <= this.forgottenUntil;
  }

  /**
   * Keeps the tasks remembered but not followed to `rememberFinished`, the newest by creation (those without a
   * timestamp as the oldest, by id): forgotten a quarter at a time, so the sort is paid once per that many tasks.
   */
  private prune(): void {
    const keep = this.options.rememberFinished ?? REMEMBERED_FINISHED;
    if (this.known.size - this.watched.size <= keep + Math.ceil(keep / 4)) return;
    const idle: Array<{ id: number; at: number | undefined }> = [];
    for (const [id, created] of this.known) if (!this.watched.has(id)) idle.push({ id, at: parseTimestamp(created) });
    idle.sort((a, b) => (a.at ?? -Infinity) - (b.at ?? -Infinity) || a.id - b.id);
    for (const { id, at } of idle.slice(0, idle.length - keep)) {
      this.known.delete(id);
      if (at === undefined) this.forgottenIdsUntil = Math.max(this.forgottenIdsUntil, id);
      else this.forgottenUntil = Math.max(this.forgottenUntil, at);
    }
  }

  /**
   * 'all-unfinished': a task followed to its end (its last line reported) is followed no more. Its id stays among the
   * remembered (`known`); the result keeps the last few, and those that decide the exit code (outcome.ts).
   */
  private retire(w: Watched, task: Task): void {
    this.watched.delete(w.id);
    this.pages.drop(w.id);
    this.finished.push(task);
    if (this.finished.length > 2 * RESULT_FINISHED) this.finished = this.finished.slice(-RESULT_FINISHED);
    const phase = taskPhase(task);
    if (phase === 'ended' && !this.verdicts.has('ended')) this.verdicts.set('ended', task);
    if (phase === 'completed' && !taskSucceeded(task) && !this.verdicts.has('unsuccessful'))
      this.verdicts.set('unsuccessful', task);
    this.prune();
  }

  private addWatched(id: number, now: number): void {
    if (this.watched.has(id)) return;
    this.watched.set(id, {
      id,
      settled: false,
      needsDetail: false,
      detailFetched: false,
      pace: new TaskPace(this.config, now),
    });
    this.timers.add(id, now);
  }

  private observe(raw: Task, now: number, fromGet = false): void {
    const w = this.watched.get(raw.id);
    if (!w || w.settled) return;
    if (w.unreadAtStart === true) {
      w.unreadAtStart = false;
      // Finished before the follow began (its listing said nothing it could take): let go, as the first scan does.
      if (isTerminal(raw)) {
        this.unwatch(w.id);
        this.prune();
        return;
      }
    }
    this.seenThisRound.add(w.id);
    // A GET of a completed task is its one detail read, whatever it held (items, counts, or neither).
    if (fromGet && taskPhase(raw) === 'completed') w.detailFetched = true;
    if (w.task !== undefined && this.options.ids !== 'all-unfinished') {
      const replaced = replacedTaskError(w.task, raw);
      if (replaced) throw replaced;
    }
    const counts = itemCounts(raw);
    const task = withItemCounts(raw);
    const back = w.task === undefined || w.backSaid === true ? undefined : wentBackWords(w.task, task);
    if (back !== undefined && w.task !== undefined) {
      w.backSaid = true;
      this.options.onBackwards?.(w.task, task, back);
    }
    const statusChanged = w.task?.status !== task.status;
    const done = finishedItemCount(task);
    const news = w.pace.observe(now, { done, total: task.total_items, statusChanged });
    this.timers.observe(w.id, news, now);
    const { gap, exact } = w.pace.nextGap(now);
    const wobble = exact ? gap : jitter(gap, this.config.jitter, this.config.random);
    this.timers.schedule(w.id, now + wobble, exact ? 0 : 2 * this.config.jitter * gap);
    w.task = task;
    w.needsDetail = this.needsDetail(task, counts, w.detailFetched);
    if (w.needsDetail) return;
    const previous = w.reported;
    const rate = w.pace.itemsPerSecond();
    const end = w.pace.estimatedEnd();
    const change: TaskChange = {
      task,
      ...(previous === undefined ? {} : { previous }),
      statusChanged: previous !== task.status,
      counts,
      ...(rate === undefined ? {} : { itemsPerSecond: rate }),
      ...(end === undefined || isTerminal(task) ? {} : { predictedEnd: end }),
      at: now,
    };
    this.options.onPoll?.(change);
    if (w.reported !== task.status || w.reportedDone !== done) {
      w.reported = task.status;
      w.reportedDone = done;
      this.options.onChange(change);
    }
    if (this.reached(task)) {
      w.settled = true;
      this.timers.delete(w.id);
      if (this.watchAll) this.retire(w, task);
    }
  }

  /** A completed task whose counts the listing did not give is fetched once (GET /tasks/:id) to count its items. */
  private needsDetail(task: Task, counts: ItemCounts, fetched: boolean): boolean {
    return (
      this.options.countItems !== false &&
      this.options.until !== 'processing' &&
      !fetched &&
      taskPhase(task) === 'completed' &&
      (counts.completed === undefined || counts.failed === undefined)
    );
  }

  private reached(task: Task): boolean {
    // `processing` is "working" in the vocabulary: a server whose tasks run as `running` satisfies it too.
    if (this.options.until === 'processing') return isWorking(task) || isTerminal(task);
    return isTerminal(task);
  }

  private isPollable(id: number): boolean {
    const w = this.watched.get(id);
    return w !== undefined && !w.settled && !w.needsDetail;
  }

  private isDone(): boolean {
    if (this.watchAll && (this.options.follow || !this.initialScanDone)) return false;
    const all = [...this.watched.values()];
    if (all.length === 0) return true;
    return this.options.any ? all.some((w) => w.settled) : all.every((w) => w.settled);
  }

  private nextWakeAt(now: number): number {
    if (this.backoffUntil !== undefined && this.backoffUntil > now) return this.backoffUntil;
    let next = Infinity;
    for (const w of this.watched.values()) {
      if (w.settled) continue;
      next = Math.min(next, w.needsDetail ? now : (this.timers.dueAt(w.id) ?? now));
    }
    if (this.watchAll) next = Math.min(next, this.discovery.dueAt(DISCOVERY) ?? now);
    // Nothing scheduled cannot happen while not done; guard against a busy loop anyway.
    return Number.isFinite(next) ? next : now + this.config.maxMs;
  }

  private result(reason: FollowReason, why?: 'tolerance' | 'deadline'): FollowResult {
    const all: Array<{ id: number; task?: Task | undefined }> = [...this.watched.values()];
    // The tasks followed no more: the last ones, and those the exit code needs (each once).
    const retired = new Set([...this.verdicts.values(), ...this.finished.slice(-RESULT_FINISHED)]);
    for (const task of retired) all.push({ id: task.id, task });
    if (this.watchAll) all.sort((a, b) => a.id - b.id);
    const tasks: Task[] = [];
    const unfinished: number[] = [];
    for (const w of all) {
      if (w.task) tasks.push(w.task);
      if (!w.task || !isTerminal(w.task)) unfinished.push(w.id);
    }
    const outage =
      why === undefined
        ? {}
        : {
            outage: {
              why,
              lastError: this.lastError,
              silentMs: this.options.clock.now() - this.lastGoodAt,
              answered: this.answered,
              toleranceMs: this.toleranceMs,
            },
          };
    return { tasks, reason, unfinished, requests: this.requests, heldByRateLimit: this.heldByRateLimit, ...outage };
  }
}

/**
 * A followed id that now names another task (its service, item count or creation time changed between reads: a
 * service whose ids restarted, such as a sandbox started again without `--state`): the task followed cannot be read
 * any more, and the other task's outcome is never reported as its own (exit 8, both named). `watch` with no ids
 * follows whatever is there, so a reused id is a new task to it (`discoverTask`).
 */
function replacedTaskError(before: Task, now: Task): MalformedResponseError | undefined {
  const same = before.service === now.service && before.total_items === now.total_items;
  if (same && sameCreation(before.created_at, now.created_at)) return undefined;
  const facts = (task: Task) => `${task.service}, ${counted(task.total_items, 'item')}, created ${task.created_at}`;
  return new MalformedResponseError(
    `task ${now.id} now names another task: it was ${facts(before)}; the service now shows ${facts(now)}`,
    `The service's task ids restarted (a sandbox started again without --state?): task ${now.id}'s outcome cannot be known; \`taskctl list\` shows what the service holds now.`,
  );
}

/** Rejects with the signal's reason as soon as it aborts; the underlying request is left to finish on its own. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('interrupted');
}
