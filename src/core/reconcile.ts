/**
 * Finding "our" task without an idempotency key (the API has none): after an ambiguous POST /tasks, and before paying
 * again for the same list (`--reuse-window`). The identity rule (docs/behaviour.md#exactly-once):
 * 1. Before sending, `takeSnapshot` lists the recent tasks and keeps the ids of every task with the same service and
 *    item count. A task seen there existed before our request, so it is never ours, however well it matches. One not
 *    seen there, and stamped after the time back to which the listing showed every task (`Snapshot.shown`), is new
 *    since: where the clock cannot place it (a `Date` clock ahead of the tasks' one), it counts as inside the window,
 *    when the request left soon after the listing (`newBeyondDate`).
 * 2. On one machine the local ledger (store/ledger.ts, through `LocalRuns`) is certain: a task another local run claimed
 *    is never a candidate, and a candidate another local run may still claim (its request in flight or unresolved, its
 *    window covering the task) is never adopted.
 * 3. Across machines, never guess: a candidate (same service, count and items, from GET /tasks/:id) counts only inside
 *    the window in which this request could have been processed (server-time.ts: from the send, floored to the
 *    server's timestamp resolution and shifted by the learnt clock offset, to 1 s after an answered failure, or open to
 *    the end of reconciliation when no answer came). It is adopted only when it is the only one, and no second one has
 *    appeared when reconciliation ends. After an answered failure a match stamped past the window's end but before
 *    its loose end (a Date clock behind the tasks' one: server-time.ts `looseWindow`) may be ours: named, never
 *    adopted, never "none" (`late`). A same-service, same-size task in the window whose items the service does not
 *    list in full (none, or fewer than its `total_items`) cannot be told either way: it keeps the outcome unsure (exit
 *    9 naming it), never "none" and never a resend.
 * 4. Reconciliation always observes to its horizon: at least 10 s after the failure, and as long again as the request
 *    was in flight (at most two minutes). A task that lands later is out of any client's reach (docs/behaviour.md#the-horizon). The last
 *    scan must read the list: otherwise a single candidate is reported, not adopted. A key the service refuses (401,
 *    403) ends it at once, thrown: every later scan would be refused too, and the caller says to fix the key.
 * 5. Every other ending is exit 9 with the candidate ids (the caller's message): several candidates, one another
 *    local run may have made, one seen before a complete snapshot, or none.
 * Known limit: a concurrent identical create from another machine whose task lands in our window, while ours never
 * landed, cannot be told apart from ours: one candidate, adopted (docs/behaviour.md#exactly-once).
 */
import { AuthError } from '../errors.js';
import type { PageMeta, Task } from '../api/schemas.js';
import {
  DATE_CLOCK_SPREAD_MS,
  inWindow,
  listingFresh,
  ServerClock,
  stampedBefore,
  type ServerWindow,
} from './server-time.js';
import { itemsDigest, multisetWithin } from './items/multiset.js';
import { listedTargets, taskPhase, taskSucceeded, taskTone } from '../lib/task-state.js';
import type { Clock } from '../lib/time.js';

export interface TaskReader {
  listTasks: (query: { page?: number; perPage?: number }) => Promise<{ tasks: Task[]; meta: PageMeta }>;
  getTask: (id: number) => Promise<Task>;
  /** Server clock minus local clock (a lower bound, from Date headers), when known: see `ApiClient`. */
  serverClockOffset?: () => number | undefined;
  /** Both bounds of the offset from Date headers (see `ApiClient.serverClockBounds`). */
  serverClockBounds?: () => { low: number | undefined; high: number | undefined };
}

/** A ServerClock that starts from what `reader` learnt from Date headers (and keeps learning from it: `learnFrom`). */
export function serverClockOf(reader: TaskReader): ServerClock {
  const clock = new ServerClock();
  learnFrom(clock, reader);
  return clock;
}

/** Feeds `reader`'s latest Date-header bounds into `clock`. */
function learnFrom(clock: ServerClock, reader: TaskReader): void {
  const bounds = reader.serverClockBounds?.() ?? { low: reader.serverClockOffset?.(), high: undefined };
  clock.learn(bounds);
}

/** Client and server clocks differ; with the difference unknown, a creation time this far outside the window still counts. */
const CLOCK_SKEW_TOLERANCE_MS = 120_000;
/** Largest page docs/openapi.json allows (GET /tasks, per_page): fewest requests per scan. */
const PER_PAGE = 100;
/**
 * Pages read per scan at most. Newest-first or oldest-first lists stop at the window's edge long before; a list in no
 * recognisable order is read up to this bound (documented in docs/commands.md: at most 10 list requests per scan).
 */
export const MAX_SCAN_PAGES = 10;

/** `unproven`: one new-looking match, but the snapshot was incomplete, so it may have existed before the request. */
export type MatchResult =
  /** `unchecked`: the local ledger could not be used when the task was claimed: other local runs were not looked at. */
  | { kind: 'found'; task: Task; unchecked?: true }
  | { kind: 'none' }
  /** No scan could read the task list: nothing is known either way. `why`: the last failure's message. */
  | { kind: 'unread'; why?: string }
  /** More than one match; `late`: those of them stamped past the window's end (see `late` below). */
  | { kind: 'ambiguous'; ids: number[]; late: number[] }
  | { kind: 'unproven'; ids: number[] }
  /** One candidate, but another local run (`by`) may have created it. */
  | { kind: 'contested'; ids: number[]; by: string }
  /** One candidate, but the list could not be read at the end of the horizon: a second may have appeared. */
  | { kind: 'unfinished'; ids: number[] }
  /**
   * No match in the window, but some stamped past its end after an answered failure and before its loose end
   * (server-time.ts `looseWindow`): each is this request's if the service's Date clock runs behind the tasks' one.
   * `blind`: those of them of the same service and size whose items the service does not list in full (no match known).
   */
  | { kind: 'late'; ids: number[]; blind: number[] }
  /**
   * Same-service, same-size tasks in the window whose items the service did not list in full (`unlisted`): each may be
   * this request's, and nothing tells (`ids`: every candidate, matching ones included).
   */
  | { kind: 'unlisted'; ids: number[]; unlisted: number[] }
  /**
   * Tasks in the window, of this request's items when listed, that another chunk of the job names and whose claim
   * nothing can check (`Claims.untold`): each is that chunk's or this request's, and nothing tells (`ids`: every
   * candidate).
   */
  | { kind: 'untold'; ids: number[]; untold: Array<{ id: number; chunk: number }> };

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && multisetWithin(a, b);
}

/** Server-clock ms of a task's creation; NaN when unreadable (such a task is kept as a candidate: never guess "old"). */
function createdAt(task: Task): number {
  return Date.parse(task.created_at);
}

type PageOrder = 'newest-first' | 'oldest-first' | 'unknown';

function orderOf(tasks: readonly Task[]): PageOrder {
  const times = tasks.map(createdAt);
  const pairs = times.slice(1).map((b, i) => [times[i] ?? Number.NaN, b] as const);
  const down = pairs.every(([a, b]) => a >= b);
  const up = pairs.every(([a, b]) => a <= b);
  if (pairs.length === 0 || (down && up)) return 'unknown';
  return down ? 'newest-first' : up ? 'oldest-first' : 'unknown';
}

export interface RecentScan {
  /** Tasks with the service and item count asked for, created at or after the edge (or with an unreadable time). */
  tasks: Task[];
  /** True when every task at or after the edge was seen (the walk reached the edge or the end of the list). */
  complete: boolean;
  /** The id of every task the pages read showed, whatever its service, size or age. */
  listed: Set<number>;
  /** What `listed` proves (Snapshot `shown.after`); undefined when the pages read prove nothing of the kind. */
  shownAfter: number | undefined;
  /** Tasks with the service and item count asked for that the pages read showed before the edge. */
  beyond: Task[];
  /** The newest creation time the pages read showed, of any task (server-clock ms); undefined for none. */
  newest: number | undefined;
  /** List requests made. */
  requests: number;
}

/** The oldest creation time of `tasks` (server-clock ms), Infinity for none; an unreadable one is no time. */
function oldestOf(tasks: readonly Task[]): number {
  return tasks.reduce((oldest, task) => {
    const at = createdAt(task);
    return Number.isNaN(at) ? oldest : Math.min(oldest, at);
  }, Number.POSITIVE_INFINITY);
}

/**
 * Walks the task list from its recent end to `edge()` (server-clock ms, read after the first page so its Date header
 * counts): the first page's creation times tell the order. Newest first: pages forward until a page ends before the
 * edge. Oldest first: from the last page backwards until a page starts before it. No recognisable order: every page,
 * up to MAX_SCAN_PAGES.
 */
export async function scanRecent(
  reader: TaskReader,
  match: { service: string; count: number },
  edge: () => number,
  signal?: AbortSignal,
  observe?: (tasks: readonly Task[]) => void,
): Promise<RecentScan> {
  const found: Task[] = [];
  const beyond: Task[] = [];
  const listed = new Set<number>();
  let newest = Number.NEGATIVE_INFINITY;
  let requests = 0;
  /**
   * What the walk saw so far; `complete` false when it stopped at its page bound. `shownAfter`: -Infinity when the
   * list was one page; in an ordered list, the oldest creation time of the pages it read from the recent end on (not
   * -Infinity however far it read: a task created or removed while it walks shifts the others across pages). A list
   * in no recognisable order of more than one page proves nothing (a task whose place changes while it walks, a list
   * sorted by another time, may be on no page read).
   */
  const scanned = (complete: boolean, shownAfter?: number): RecentScan => ({
    tasks: found,
    beyond,
    newest: Number.isFinite(newest) ? newest : undefined,
    complete,
    listed,
    shownAfter: shownAfter === Number.POSITIVE_INFINITY ? undefined : shownAfter,
    requests,
  });
  const read = async (page: number) => {
    signal?.throwIfAborted();
    requests += 1;
    const result = await reader.listTasks({ page, perPage: PER_PAGE });
    for (const task of result.tasks) {
      listed.add(task.id);
      const at = createdAt(task);
      if (at > newest) newest = at;
    }
    observe?.(result.tasks);
    return result;
  };
  /** Keeps the matching tasks of a page. */
  const take = (tasks: readonly Task[], since: number): void => {
    for (const task of tasks) {
      const at = createdAt(task);
      if (task.service !== match.service || task.total_items !== match.count) continue;
      if (Number.isNaN(at) || at >= since) found.push(task);
      else beyond.push(task);
    }
  };
  /** In an ordered list, the page's oldest task still inside the window means the next page may hold more. */
  const reachesOn = (oldest: Task | undefined, since: number) => {
    const at = oldest === undefined ? Number.NaN : createdAt(oldest);
    return Number.isNaN(at) || at >= since;
  };
  const first = await read(1);
  const since = edge();
  const totalPages = first.meta.total_pages;
  take(first.tasks, since);
  if (totalPages <= 1) return scanned(true, Number.NEGATIVE_INFINITY);
  const order = orderOf(first.tasks);
  if (order === 'newest-first') {
    let tasks = first.tasks;
    let oldest = oldestOf(tasks);
    for (let page = 2; page <= totalPages && reachesOn(tasks.at(-1), since); page++) {
      if (page > MAX_SCAN_PAGES) return scanned(false, oldest);
      tasks = (await read(page)).tasks;
      take(tasks, since);
      oldest = Math.min(oldest, oldestOf(tasks));
    }
    return scanned(true, oldest);
  }
  if (order === 'oldest-first') {
    // Page 1 held the oldest tasks; the recent ones are at the end, read backwards until a page starts before the edge.
    let oldest = Number.POSITIVE_INFINITY;
    for (let page = totalPages; page > 1; page--) {
      if (requests >= MAX_SCAN_PAGES) return scanned(false, oldest);
      const { tasks } = await read(page);
      take(tasks, since);
      oldest = Math.min(oldest, oldestOf(tasks));
      if (!reachesOn(tasks[0], since)) return scanned(true, oldest);
    }
    return scanned(true, oldest);
  }
  for (let page = 2; page <= totalPages; page++) {
    if (page > MAX_SCAN_PAGES) return scanned(false);
    take((await read(page)).tasks, since);
  }
  return scanned(true);
}

/** What existed before a POST: ids of recent tasks with the same service and item count. */
export interface Snapshot {
  ids: ReadonlySet<number>;
  /**
   * Every task the listing showed, of any service, size or age: none of them can be the task a create's answer names
   * (core/submit/send.ts). Not journaled (a resume reads `ids` as it, settle.ts `journaledBefore`).
   */
  listed?: ReadonlySet<number>;
  /**
   * What `listed` proves: every task stamped after `after` (server-clock ms; -Infinity: a list of one page) that
   * existed when the listing began (`at`, local ms) is in it, so a task stamped after it and not listed is new since,
   * whatever its stamp says against a `Date` header (`newSinceListing`). Absent when the pages read prove nothing of
   * the kind (scanRecent `shownAfter`). Journaled with the send (`shown_after`, `shown_at`).
   */
  shown?: { after: number; at: number };
  /** False when the listing failed or stopped at its page bound: a match is then never claimed (exit 9 names it). */
  complete: boolean;
}

/**
 * Taken just before POST /tasks (one list request when the list is ordered). Reaches two minutes further back than the
 * acceptance window, so that every task the reconciliation could accept was either seen here or is new. The tasks
 * seen teach `serverClock` (when given) the server's clock and timestamp resolution.
 */
export async function takeSnapshot(
  reader: TaskReader,
  match: { service: string; count: number },
  clock: Clock,
  signal?: AbortSignal,
  serverClock: ServerClock = serverClockOf(reader),
): Promise<Snapshot> {
  const startedAt = clock.now();
  const scan = await scanRecent(
    reader,
    match,
    () => {
      learnFrom(serverClock, reader);
      return serverClock.earliestServerTime(clock.now()) - CLOCK_SKEW_TOLERANCE_MS;
    },
    signal,
    (tasks) => {
      const at = clock.now();
      for (const task of tasks) serverClock.noteSeen(task.created_at, at);
    },
  );
  return snapshotOf(scan, { startedAt });
}

/**
 * How much earlier than the newest task a listing showed a task made after it may be stamped (several machines
 * stamping, their clocks apart as a Date's may be): a task stamped earlier than that existed when it was read, and
 * is never taken as new since (one that moved across pages while they were walked, a task removed before it).
 */
const NEW_TASK_MARGIN_MS = DATE_CLOCK_SPREAD_MS;

/**
 * A walk's snapshot (`startedAt`: local ms when its first page was asked for; none: it proves no task new): its ids are
 * those of the matching tasks at or after its edge, and of those before it that its `shown` reaches, so that a journal
 * keeping the ids and `shown` proves tasks new alone. `shown.after` is also no earlier than NEW_TASK_MARGIN_MS before
 * the newest task listed.
 */
function snapshotOf(scan: RecentScan, { startedAt }: { startedAt?: number | undefined }): Snapshot {
  const reach = startedAt === undefined ? undefined : scan.shownAfter;
  const after =
    reach === undefined || scan.newest === undefined ? reach : Math.max(reach, scan.newest - NEW_TASK_MARGIN_MS);
  const reached = after === undefined ? [] : scan.beyond.filter((task) => createdAt(task) > after);
  return {
    ids: new Set([...scan.tasks, ...reached].map((t) => t.id)),
    complete: scan.complete,
    listed: scan.listed,
    ...(after !== undefined && startedAt !== undefined && { shown: { after, at: startedAt } }),
  };
}

/**
 * Whether the listing before a request sent at `sentAtMs` (local ms) proves `task` new: not in it, and stamped after
 * the time back to which it showed every task (Snapshot `shown`). Only when the request left within
 * DATE_CLOCK_SPREAD_MS of the listing: a task another client made in a longer gap (a rate-limit wait, a lookup's
 * reads) would pass for this request's beyond what its clock window allows.
 */
export function newSinceListing(before: Snapshot, task: Pick<Task, 'id' | 'created_at'>, sentAtMs: number): boolean {
  const reach = listingReach(before, sentAtMs);
  return reach !== undefined && before.listed?.has(task.id) === false && Date.parse(task.created_at) > reach;
}

/** `shown.after` of the listing before a request sent at `sentAtMs`, when it proves tasks new (`newSinceListing`). */
function listingReach({ shown, listed }: Snapshot, sentAtMs: number): number | undefined {
  return shown !== undefined && listed !== undefined && listingFresh(shown.at, sentAtMs) ? shown.after : undefined;
}

export interface CreateAttempt {
  service: string;
  items: readonly string[];
  /** Local epoch ms when the POST was sent (`AmbiguousCreateError.sentAtMs`). */
  sentAtMs: number;
  /** Tasks seen before the POST (never ours). */
  before: Snapshot;
  /** This run's own tasks (earlier chunks): never this request's while their claims hold (submit/own-claims.ts). */
  exclude?: Claims;
}

/** What a task read shows that tells it from another task given the same id (a task listed, or read in full). */
export type TaskFacts = Pick<Task, 'id' | 'service' | 'total_items' | 'created_at'> & Partial<Pick<Task, 'items'>>;

/**
 * Tasks a run or job already has, by id (built by submit/own-claims.ts). A claim is on an id: `holds` says whether it
 * is the task read under that id now (what was recorded of it is what the task shows), false when no claim names it.
 */
export interface Claims {
  readonly ids: ReadonlySet<number>;
  holds: (task: TaskFacts) => boolean;
  /**
   * The chunk whose claim holds `task` only for want of a fact to check it by (a journal written before the items
   * digest and the creation time were kept, or a task whose items are not listed in full), when no claim holds it on
   * proof: the task may as well be another request's given that id again (own-claims.ts `untold`).
   */
  untold?: (task: TaskFacts) => number | undefined;
}

/** The other taskctl runs on this machine, as the local ledger knows them (wired by core/submit/send.ts). */
export interface LocalRuns {
  /**
   * Whether other local runs have claimed a task (read again at every verdict): a claim of its id whose recorded
   * facts (service, item count, creation time) differ names another task, given that id before the service's ids
   * restarted.
   */
  claimed: () => (task: Task) => boolean;
  /**
   * Takes the task for this run, atomically; refused when another run claimed it or may have created it (`by`).
   * `unchecked`: the ledger could not be used, so nothing refused it: the other runs were not looked at.
   */
  claim: (task: Task) => { ok: true; unchecked?: true } | { ok: false; reason: 'claimed' | 'contested'; by: string };
}

export interface ReconcileOptions extends CreateAttempt {
  /** Local epoch ms when the failure was seen; the scans go on for as long again as the request was in flight. */
  failedAtMs: number;
  /**
   * The failure came with an answer (a status line arrived: a 5xx, an error page, a body cut off): the request's
   * processing had ended by then, so its window closes 1 s after. Without one (timeout, reset) it stays open.
   */
  answered: boolean;
  clock: Clock;
  /** What this run knows of the server's clock; it keeps learning from the scans. */
  serverClock?: ServerClock;
  signal?: AbortSignal;
  local?: LocalRuns | undefined;
  /** Told after a scan that found a task of these items it had not: every one so far (the check goes on to its horizon). */
  onCandidates?: (ids: readonly number[]) => void;
}

const RECONCILE_SCHEDULE_MS = [0, 2000, 3000, 5000] as const;
/** Pause between the scans that wait out a slow request, once the schedule is spent. */
const LATE_SCAN_INTERVAL_MS = 5000;
/** Waiting out a slow request is bounded: two minutes past the failure at most. */
const MAX_LATE_WAIT_MS = 120_000;
/** A last scan that failed is tried again this often, for at most RETRY_LAST_SCAN_MS. */
const LAST_SCAN_RETRY_MS = 500;
const RETRY_LAST_SCAN_MS = 2000;

/** The horizon: how long after the failure the scans go on (the schedule, and at least as long as the request was in flight). */
export function reconcileWindowMs(options: Pick<ReconcileOptions, 'sentAtMs' | 'failedAtMs'>): number {
  const schedule = RECONCILE_SCHEDULE_MS.reduce<number>((a, b) => a + b, 0);
  return Math.max(schedule, Math.min(MAX_LATE_WAIT_MS, options.failedAtMs - options.sentAtMs));
}

/** The longest a create can stay unresolved after its send: the request's own timeout, then the longest horizon. */
export function longestReconcileMs(requestTimeoutMs: number): number {
  return requestTimeoutMs + Math.max(reconcileWindowMs({ sentAtMs: 0, failedAtMs: requestTimeoutMs }), 0);
}

/**
 * After an ambiguous create: scans on the schedule (counted from the failure), then every 5 s to the horizon, and
 * always to the horizon (a second candidate may appear late). Each scan adds the identical tasks inside the window
 * (items confirmed once per task). A failed scan is skipped (the service may still be failing); the last one is tried
 * again briefly. An abort is thrown at once. The verdict follows the rule at the top of this file.
 */
export async function reconcileCreate(reader: TaskReader, options: ReconcileOptions): Promise<MatchResult> {
  const { clock, signal } = options;
  const serverClock = options.serverClock ?? serverClockOf(reader);
  const until = options.failedAtMs + reconcileWindowMs(options);
  const answeredAt = options.answered ? options.failedAtMs : undefined;
  const windowNow = () => {
    learnFrom(serverClock, reader);
    return serverClock.window(options.sentAtMs, answeredAt);
  };
  // Every task up to the loose end is read: one past the strict end is named at the verdict (`late`), never dropped.
  const looseNow = () => {
    learnFrom(serverClock, reader);
    return serverClock.looseWindow(options.sentAtMs, answeredAt);
  };
  // A task stamped before the window's start that the listing before the send proves new (`newSinceListing`): a Date
  // clock ahead of the tasks' one by more than the spread starts the window after the request's own task. The walk
  // reaches back to where that listing showed every task.
  const reach = listingReach(options.before, options.sentAtMs) ?? Number.POSITIVE_INFINITY;
  const within = (task: Task, window: ServerWindow) =>
    inWindow(task.created_at, window) || provenNew(task, options, window, serverClock.dateOffsetLow());
  const candidates = new Map<number, Task>();
  const unlisted = new Map<number, Task>();
  /** Tasks of the window held by another chunk's claim that nothing tells from this request's task (`Claims.untold`). */
  const untold = new Map<number, { task: Task; chunk: number }>();
  const judged = new Set<number>();
  let read = false;
  let lastRead = false;
  let why: string | undefined;
  let lastComplete = true;
  const scan = async (): Promise<void> => {
    const found = candidates.size;
    const match = { service: options.service, count: options.items.length };
    const result = await scanRecent(
      reader,
      match,
      () => Math.min(windowNow().from, reach + 1),
      signal,
      (tasks) => {
        const at = clock.now();
        for (const task of tasks) serverClock.noteSeen(task.created_at, at);
      },
    );
    const window = looseNow();
    for (const task of result.tasks) {
      if (options.before.ids.has(task.id) || judged.has(task.id)) continue;
      const held = options.exclude?.holds(task) === true;
      if (!within(task, window)) continue;
      signal?.throwIfAborted();
      const full = await reader.getTask(task.id);
      const items = listedTargets(full);
      // Another chunk's claim on the id holds the task as the list shows it. A claim that no fact of the list tells
      // apart (a journal's chunk recorded before created_at was kept: its items digest) is judged again on the task
      // read with its items: after the service's ids started again, a task of this request's window under an earlier
      // chunk's id is this request's, and taking it for that chunk's would send the chunk again at every resume.
      if (held && (items === undefined || options.exclude?.holds(full) === true)) {
        judged.add(task.id);
        // A claim nothing could check (no digest, no creation time) holds the task for want of proof only: one that may
        // be this request's (its items, when listed, are this request's) is named, never taken for the claim's, never
        // passed over (a resend would pay again at every resume).
        const by = options.exclude?.untold?.(full);
        if (by !== undefined && (items === undefined || sameItems(items, options.items)))
          untold.set(task.id, { task: full, chunk: by });
        continue;
      }
      // Items not listed in full prove nothing either way: a candidate, read again at the next scan.
      if (items === undefined) {
        unlisted.set(task.id, full);
        continue;
      }
      judged.add(task.id);
      unlisted.delete(task.id);
      if (sameItems(items, options.items)) candidates.set(task.id, full);
    }
    lastComplete = result.complete;
    if (candidates.size > found) options.onCandidates?.([...candidates.keys()]);
  };

  // The schedule counts from the failure, not from the end of the previous scan: slow scans (a list read that keeps
  // failing and is resent) must not push the later ones, and the verdict, past the horizon.
  let at = options.failedAtMs;
  const nextAt = (from: number, i: number) =>
    Math.min(from + (RECONCILE_SCHEDULE_MS[i] ?? LATE_SCAN_INTERVAL_MS), until);
  for (let i = 0; ; i++) {
    at = nextAt(at, i);
    const last = at >= until;
    const delay = at - clock.now();
    if (delay > 0) await clock.sleep(delay, signal);
    // Overdue (a resume long after the send): when the next scan is due too, one scan serves both.
    else if (!last && nextAt(at, i + 1) <= clock.now()) continue;
    try {
      await scan();
      read = true;
      lastRead = true;
    } catch (error) {
      // A refused key is refused at every later scan too: not waited out to the horizon, and no "unread" verdict.
      if (signal?.aborted || error instanceof AuthError) throw error;
      lastRead = false;
      why = error instanceof Error ? error.message : String(error);
    }
    if (last) break;
  }
  while (!lastRead && read && clock.now() < until + RETRY_LAST_SCAN_MS) {
    await clock.sleep(LAST_SCAN_RETRY_MS, signal);
    try {
      await scan();
      lastRead = true;
    } catch (error) {
      if (signal?.aborted || error instanceof AuthError) throw error;
    }
  }
  if (!read) return why === undefined ? { kind: 'unread' } : { kind: 'unread', why };
  const windows = { strict: windowNow(), loose: looseNow(), dateOffset: serverClock.dateOffsetLow() };
  return verdict(options, [...candidates.values()], [...unlisted.values()], windows, {
    lastRead,
    lastComplete,
    untold: [...untold.values()],
  });
}

/**
 * A task the listing before a request sent at `sentAtMs` proves new (`newSinceListing`) where the clock cannot place
 * it: stamped more than DATE_CLOCK_SPREAD_MS before what the `Date` headers read at the send (`dateOffset`: a Date
 * clock ahead of the tasks' one). One stamped closer to the send is the window's to judge: a task another client made
 * after the listing and before this request left is not this request's.
 */
export function newBeyondDate(
  before: Snapshot,
  task: Pick<Task, 'id' | 'created_at'>,
  sentAtMs: number,
  dateOffset: number | undefined,
): boolean {
  return (
    dateOffset !== undefined &&
    stampedBefore(task.created_at, sentAtMs + dateOffset) &&
    newSinceListing(before, task, sentAtMs)
  );
}

/** `newBeyondDate`, stamped no later than the window's end: inside it, as far as the clocks can tell. */
function provenNew(task: Task, attempt: CreateAttempt, window: ServerWindow, dateOffset: number | undefined): boolean {
  return newBeyondDate(attempt.before, task, attempt.sentAtMs, dateOffset) && createdAt(task) <= window.to;
}

function verdict(
  options: ReconcileOptions,
  seen: readonly Task[],
  blind: readonly Task[],
  /** `dateOffset`: what the Date headers read of the server's clock (`provenNew`). */
  windows: { strict: ServerWindow; loose: ServerWindow; dateOffset: number | undefined },
  scans: { lastRead: boolean; lastComplete: boolean; untold?: ReadonlyArray<{ task: Task; chunk: number }> },
): MatchResult {
  // The window only narrows as the clock is learnt better: judge every candidate by the final one.
  const claimed = options.local?.claimed() ?? (() => false);
  const isOpen = (task: Task) =>
    (inWindow(task.created_at, windows.strict) || provenNew(task, options, windows.strict, windows.dateOffset)) &&
    !claimed(task);
  // Past the end but before the loose end: this request's if the Date clock runs behind the tasks' clock.
  const isLate = (task: Task) => !isOpen(task) && inWindow(task.created_at, windows.loose) && !claimed(task);
  const ids = (tasks: readonly Task[]) => tasks.map((task) => task.id).sort((a, b) => a - b);
  const open = seen.filter(isOpen);
  const late = seen.filter(isLate);
  const blindLate = blind.filter(isLate);
  // A candidate whose items cannot be read may be ours: never "none", never another one adopted beside it.
  const unlisted = blind.filter(isOpen);
  if (unlisted.length > 0)
    return { kind: 'unlisted', ids: ids([...open, ...unlisted, ...late, ...blindLate]), unlisted: ids(unlisted) };
  // One another chunk's claim holds for want of proof only: the same, named with that chunk.
  const untold = (scans.untold ?? []).filter(({ task }) => isOpen(task) || isLate(task));
  if (untold.length > 0)
    return {
      kind: 'untold',
      ids: ids([...open, ...late, ...blindLate, ...untold.map(({ task }) => task)]),
      untold: untold.map(({ task, chunk }) => ({ id: task.id, chunk })).sort((a, b) => a.id - b.id),
    };
  const [only, ...more] = open;
  // Past the end, one whose items are unknown still keeps "none" away; beside a match in the window it is no rival.
  if (only === undefined)
    return late.length + blindLate.length > 0
      ? { kind: 'late', ids: ids([...late, ...blindLate]), blind: ids(blindLate) }
      : { kind: 'none' };
  if (more.length > 0 || late.length > 0) return { kind: 'ambiguous', ids: ids([...open, ...late]), late: ids(late) };
  if (!scans.lastRead) return { kind: 'unfinished', ids: [only.id] };
  // The creation time alone is no proof (the server clock is known to a second at best): without a complete snapshot
  // a match may be an identical task created just before the request (found by the exactly-once campaign).
  if (!(options.before.complete && scans.lastComplete)) return { kind: 'unproven', ids: [only.id] };
  const claim = options.local?.claim(only) ?? { ok: true };
  if (!claim.ok)
    return claim.reason === 'claimed' ? { kind: 'none' } : { kind: 'contested', ids: [only.id], by: claim.by };
  return claim.unchecked ? { kind: 'found', task: only, unchecked: true } : { kind: 'found', task: only };
}

export interface ReuseQuery {
  service: string;
  items: readonly string[];
  /** Local epoch ms: tasks created at or after this instant (on the server's clock, two minutes' tolerance unknown). */
  createdAfter: number;
  /** Tasks that must not match (this invocation's or job's, created or reused), while their claims hold. */
  exclude?: Claims;
  /** A completed task with failed items is worth reusing only when the caller accepts item failures. */
  allowItemFailures?: boolean;
  /**
   * Local epoch ms (read as `createdAfter` is): a task created at or after it is reused whatever its status. A stopped
   * run's request that may have landed made it, and paid for it: sending again would pay twice.
   */
  anyStatusFrom?: number;
}

export interface ReuseResult {
  match: MatchResult;
  /** Every candidate seen by service and count (the ids a following create must not claim). */
  seen: Snapshot;
  /** Requests made (list pages + task reads). */
  requests: number;
  /**
   * When no match was found and the lookup did not search its whole window (`seen.complete` false, or candidates left
   * unread): how much the list pages read, the creation time back to which the search reached (server-clock ms: the
   * oldest task those pages showed, or with `reads` the oldest candidate read) and the window's start (server-clock
   * ms), for the message that says so. `reads`: stopped by the bound on candidate reads (MAX_CANDIDATE_READS), with
   * the candidates in the window and those looked at, newest first, before the first left unread.
   */
  unfinished?: Unsearched;
}

/** What a lookup that did not search its whole window looked at (`ReuseResult.unfinished`). */
export interface Unsearched {
  pages: number;
  tasks: number;
  oldest: number | undefined;
  edge: number;
  /** `covered`: whether the list pages reached the window's start (else a task may also be further down the list). */
  reads?: { candidates: number; looked: number; covered: boolean };
}

/**
 * Candidates' items read per lookup at most (GET /tasks/:id each, newest first; one the run read before is not read
 * again). The list gives no items, so on a busy account of tasks of one service and size every one of them is a
 * candidate: a thousand reads are ten minutes of the documented rate limit. A hundred (a minute of it) and no match,
 * with older candidates left, is refused as the page bound is (exit 9 with a window those reads cover), never taken as
 * "none found" (that could pay twice).
 */
export const MAX_CANDIDATE_READS = 100;
/** A lookup that reads more candidates than this says so first (what it is doing, how to skip it). */
const TOLD_READS = 10;

/** A lookup about to read many candidates: how many there are in the window, and how many it reads at most. */
export type ReadsTold = (look: { candidates: number; reads: number }) => void;

/**
 * Candidates examined newest first (they come sorted), each read unless `known` (read before: free) while reads are
 * left: `examine` says whether it is the match. `looked`: the candidates examined before the first left unread, and
 * `reach` the creation time of the last of them (every candidate newer than it was examined); both absent when none
 * was left unread.
 */
async function newestFirst<T>(
  candidates: readonly T[],
  {
    at,
    known,
    examine,
  }: { at: (c: T) => number; known: (c: T) => boolean; examine: (c: T) => Promise<Task | undefined> },
  told: ReadsTold | undefined,
  signal: AbortSignal | undefined,
): Promise<{ found?: Task; looked?: number; reach?: number | undefined }> {
  const unread = candidates.filter((c) => !known(c)).length;
  const bound = Math.min(unread, MAX_CANDIDATE_READS);
  if (bound > TOLD_READS) told?.({ candidates: candidates.length, reads: bound });
  let reads = 0;
  let looked: number | undefined;
  let reach: number | undefined;
  for (const [i, candidate] of candidates.entries()) {
    signal?.throwIfAborted();
    if (!known(candidate)) {
      if (reads >= MAX_CANDIDATE_READS) {
        looked ??= i;
        continue; // one read before is still examined: a match there is a match
      }
      reads += 1;
    }
    if (looked === undefined) reach = at(candidate);
    const found = await examine(candidate);
    if (found) return { found };
  }
  if (looked === undefined) return {};
  return { looked, reach: reach === undefined || Number.isNaN(reach) ? undefined : reach };
}

/** Worth reusing: still running, or completed (with every item completed unless item failures are allowed). */
function worthReusing(task: Task, allowItemFailures: boolean): boolean {
  const phase = taskPhase(task);
  if (phase === 'ended') return false;
  if (phase === 'active') return true;
  return allowItemFailures || taskSucceeded(task);
}

/**
 * `--reuse-window`: the newest-first walk of `scanRecent` stopped at the window's edge; candidates by service, item count
 * and status first (free), then one GET /tasks/:id each, newest first, stopping at the first whose items match. A
 * failed task is never reused, but for one made since a stopped run's send (`anyStatusFrom`): that run's request may
 * have made it, and it was paid for. Cost: at most MAX_SCAN_PAGES list requests plus MAX_CANDIDATE_READS reads. A
 * match is reused wherever the walk stopped; without one, a walk its page bound stopped before the window's start, or
 * candidates left unread, is `unfinished` (send.ts `unsearched`: exit 9), never "none".
 */
export async function findReusableTask(
  reader: TaskReader,
  query: ReuseQuery,
  signal?: AbortSignal,
  /** Learns from the tasks this walk sees (they also serve as the snapshot of a create that follows). */
  learn?: { serverClock: ServerClock; clock: Clock },
  told?: ReadsTold,
): Promise<ReuseResult> {
  const edge = () => onServerClock(reader, query.createdAfter);
  const { anyStatusFrom } = query;
  const anyStatus = (task: Task) =>
    anyStatusFrom !== undefined && createdAt(task) >= onServerClock(reader, anyStatusFrom);
  let oldest: number | undefined;
  let edgeMs = Number.NaN;
  const observe = (tasks: readonly Task[]) => {
    oldest = noteListed(tasks, learn, oldest);
  };
  const edgeOnce = () => (edgeMs = edge());
  const startedAt = learn?.clock.now();
  const scan = await scanRecent(
    reader,
    { service: query.service, count: query.items.length },
    edgeOnce,
    signal,
    observe,
  );
  let requests = scan.requests;
  const seen = snapshotOf(scan, { startedAt });
  const candidates = scan.tasks
    .filter((t) => query.exclude?.holds(t) !== true)
    .filter(
      (t) => anyStatus(t) || (taskPhase(t) !== 'ended' && !(partialAsListed(t) && query.allowItemFailures !== true)),
    )
    .sort((a, b) => (createdAt(b) || 0) - (createdAt(a) || 0));
  const looked = await newestFirst(
    candidates,
    {
      at: createdAt,
      known: () => false,
      examine: async (candidate) => {
        requests += 1;
        const full = await reader.getTask(candidate.id);
        // Items not listed in full cannot prove the task holds ours: never reused.
        const items = listedTargets(full);
        const worth = worthReusing(full, query.allowItemFailures === true) || anyStatus(full);
        return items !== undefined && sameItems(items, query.items) && worth ? full : undefined;
      },
    },
    told,
    signal,
  );
  if (looked.found) return { match: { kind: 'found', task: looked.found }, seen, requests };
  const pages = { pages: scan.requests, tasks: scan.listed.size, edge: edgeMs };
  const unfinished: Unsearched | undefined =
    looked.looked !== undefined
      ? {
          ...pages,
          oldest: looked.reach,
          reads: { candidates: candidates.length, looked: looked.looked, covered: scan.complete },
        }
      : scan.complete
        ? undefined
        : { ...pages, oldest };
  return { match: { kind: 'none' }, seen, requests, ...(unfinished && { unfinished }) };
}

/**
 * A walk's page of tasks: each creation time taught to the server clock (when the walk learns), and the oldest creation
 * time seen so far, `oldest` included.
 */
function noteListed(
  tasks: readonly Task[],
  learn: { serverClock: ServerClock; clock: Clock } | undefined,
  oldest: number | undefined,
): number | undefined {
  const at = learn?.clock.now();
  if (learn && at !== undefined) for (const task of tasks) learn.serverClock.noteSeen(task.created_at, at);
  const min = Math.min(oldest ?? Number.POSITIVE_INFINITY, oldestOf(tasks));
  return Number.isFinite(min) ? min : undefined;
}

/** A local instant as a window's start on the server's clock: two minutes further back while no Date has been read. */
function onServerClock(reader: TaskReader, local: number): number {
  const offset = reader.serverClockOffset?.();
  return local + (offset ?? 0) - (offset === undefined ? CLOCK_SKEW_TOLERANCE_MS : 0);
}

/** What the run's one walk keeps of each task it listed: a few numbers, never the task. */
interface ListedTask {
  service: string;
  count: number;
  /** Its created_at (server-clock ms), NaN when unreadable. */
  at: number;
  /** Its created_at as listed (what tells it from another task given its id, `Claims`). */
  created: string;
  /** Failed or otherwise ended, as listed or read: never reused. */
  ended: boolean;
  /** Listed completed with counts that show an item not completed (`partialAsListed`). */
  partial: boolean;
}

/**
 * A task the list shows completed with counts that show an item not completed (the list's own `completed_items` and
 * `failed_items`, when the service gives them: the contract does not say it does). Such a task is worth reusing only
 * when item failures are allowed, so without that it is no candidate: its items are not read.
 */
function partialAsListed(task: Task): boolean {
  return taskPhase(task) === 'completed' && taskTone(task) === 'partial';
}

/**
 * `--reuse-window` over the chunks of one run (docs/commands.md#taskctl-create-service-items): the list is walked once,
 * at the first chunk's lookup, back to its window's start (later chunks' windows start later, inside it). Each later
 * chunk reads the first page again for the tasks created since, and walks again only when that page holds none of the
 * tasks already known (more than a page created meanwhile) or the list was not newest first. Each same-size
 * candidate's items are read once and kept as their digest (core/items/multiset.ts); a digest equal to the chunk's is
 * read again before it is reused (its status now, its items checked in full). At most MAX_CANDIDATE_READS candidates are
 * read a lookup, newest first. Each chunk is judged by what was looked at for its own window: a walk its page bound
 * stopped short covers a later chunk's window once that starts after the oldest task its pages showed, and its
 * candidates read are those of its own window. Memory: a few numbers per task listed within the window (the walk's at
 * most MAX_SCAN_PAGES pages, and those made since; older ones are let go as the window moves on) and 32 characters per
 * candidate read.
 */
export class ReuseIndex {
  private readonly listed = new Map<number, ListedTask>();
  private readonly digests = new Map<number, string | null>();
  /**
   * The last walk: whether it reached its edge, its pages, whether the list was newest first (its pages then showed
   * every task newer than the oldest one they showed), and the oldest creation time its pages showed.
   */
  private walked:
    { complete: boolean; pages: number; newestFirst: boolean; oldest: number | undefined; proves: boolean } | undefined;

  /** Keeps a few numbers of each task listed (an ended one stays ended: a later listing may not say so). */
  private note(tasks: readonly Task[]): void {
    for (const task of tasks) {
      const known = this.listed.get(task.id);
      this.listed.set(task.id, {
        service: task.service,
        count: task.total_items,
        at: createdAt(task),
        created: task.created_at,
        ended: (known?.ended ?? false) || taskPhase(task) === 'ended',
        partial: (known?.partial ?? false) || partialAsListed(task),
      });
    }
  }

  /** A later chunk's window starts later: what is older than this one's start is out of every window left. */
  private forgetBefore(since: number): void {
    for (const [id, task] of this.listed) {
      if (task.at < since) {
        this.listed.delete(id);
        this.digests.delete(id);
      }
    }
  }

  /**
   * Covered by a walk whose pages prove tasks new, the walk and the look at page 1 showed every task of the window
   * (`since` on): older ones were let go. No earlier than NEW_TASK_MARGIN_MS before the newest task listed.
   */
  private shownAfter(since: number): number {
    let newest = Number.NEGATIVE_INFINITY;
    for (const task of this.listed.values()) if (task.at > newest) newest = task.at;
    return Math.max(since - 1, newest - NEW_TASK_MARGIN_MS);
  }

  async find(
    reader: TaskReader,
    query: ReuseQuery,
    signal?: AbortSignal,
    learn?: { serverClock: ServerClock; clock: Clock },
    told?: ReadsTold,
  ): Promise<ReuseResult> {
    let requests = 0;
    const startedAt = learn?.clock.now();
    const note = (tasks: readonly Task[]) => this.note(tasks);
    if (this.walked?.newestFirst === true) {
      signal?.throwIfAborted();
      requests += 1;
      const first = await reader.listTasks({ page: 1, perPage: PER_PAGE });
      const overlaps = first.meta.total_pages <= 1 || first.tasks.some((task) => this.listed.has(task.id));
      noteListed(first.tasks, learn, undefined);
      note(first.tasks);
      if (!overlaps) this.walked = undefined;
    } else this.walked = undefined;
    if (this.walked === undefined) {
      let order: PageOrder | undefined;
      let oldest: number | undefined;
      const scan = await scanRecent(
        reader,
        { service: query.service, count: query.items.length },
        () => onServerClock(reader, query.createdAfter),
        signal,
        (tasks) => {
          order ??= orderOf(tasks);
          oldest = noteListed(tasks, learn, oldest);
          note(tasks);
        },
      );
      requests += scan.requests;
      const newestFirst = order === 'newest-first';
      // Its pages prove tasks new (an ordered list, or one page: scanRecent `shownAfter`), or nothing.
      const proves = scan.shownAfter !== undefined;
      this.walked = { complete: scan.complete, pages: scan.requests, newestFirst, oldest, proves };
    }
    const since = onServerClock(reader, query.createdAfter);
    this.forgetBefore(since);
    const walked = this.walked;
    // This window is covered when the walk reached its own edge, or, stopped short by its pages in a newest-first list,
    // when every task at or after this window's start is newer than the oldest one those pages showed (an oldest-first
    // walk read page 1, the oldest tasks, then the last pages back: what it showed says nothing of the pages between).
    const covered = walked.complete || (walked.newestFirst && walked.oldest !== undefined && walked.oldest < since);
    const inWindow = [...this.listed].filter(
      ([, task]) =>
        task.service === query.service &&
        task.count === query.items.length &&
        (Number.isNaN(task.at) || task.at >= since),
    );
    const seen: Snapshot = {
      ids: new Set(inWindow.map(([id]) => id)),
      complete: covered,
      listed: new Set(this.listed.keys()),
      ...(covered &&
        walked.proves &&
        startedAt !== undefined && { shown: { after: this.shownAfter(since), at: startedAt } }),
    };
    const result = (match: MatchResult, unfinished?: Unsearched): ReuseResult => ({
      match,
      seen,
      requests,
      ...(unfinished && { unfinished }),
    });
    const candidates = inWindow
      .filter(
        ([id, task]) =>
          query.exclude?.holds({ id, service: task.service, total_items: task.count, created_at: task.created }) !==
            true &&
          !task.ended &&
          !(task.partial && query.allowItemFailures !== true),
      )
      .sort(([, a], [, b]) => (b.at || 0) - (a.at || 0));
    const wanted = itemsDigest(query.items);
    const looked = await newestFirst(
      candidates,
      {
        at: ([, task]) => task.at,
        known: ([id]) => this.digests.has(id),
        examine: async ([id, task]) => {
          let digest = this.digests.get(id);
          let full: Task | undefined;
          if (digest === undefined) {
            requests += 1;
            full = await reader.getTask(id);
            const items = listedTargets(full);
            digest = items === undefined ? null : itemsDigest(items);
            this.digests.set(id, digest);
            if (taskPhase(full) === 'ended') task.ended = true;
          }
          // Items not listed in full cannot prove the task holds ours: never reused.
          if (digest !== wanted) return undefined;
          if (full === undefined) {
            requests += 1;
            full = await reader.getTask(id);
          }
          const items = listedTargets(full);
          const match =
            items !== undefined &&
            sameItems(items, query.items) &&
            worthReusing(full, query.allowItemFailures === true);
          return match ? full : undefined;
        },
      },
      told,
      signal,
    );
    if (looked.found) return result({ kind: 'found', task: looked.found });
    const pages = { pages: walked.pages, tasks: this.listed.size, edge: since };
    if (looked.looked !== undefined)
      return result(
        { kind: 'none' },
        {
          ...pages,
          oldest: looked.reach,
          reads: { candidates: candidates.length, looked: looked.looked, covered },
        },
      );
    return result({ kind: 'none' }, covered ? undefined : { ...pages, oldest: walked.oldest });
  }
}
