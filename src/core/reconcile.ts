/**
 * Finding "our" task without an idempotency key (the API has none): after an ambiguous POST /tasks, and before paying
 * again for the same list (`--reuse-window`).
 *
 * Exactly-once for an ambiguous create rests on evidence taken before the POST, never on the list's order or on ids
 * growing (the spec promises neither):
 * 1. Before sending, `takeSnapshot` lists the recent tasks and keeps the ids of every task with the same service and
 *    item count. A task seen there existed before our request, so it is never ours, however well it matches.
 * 2. After an ambiguous failure, `reconcileCreate` scans again. A candidate must be absent from the snapshot, not one of
 *    this run's own tasks, have the same service, count and items (as a multiset, from GET /tasks/:id), and a creation
 *    time not before the send on the server's clock (`ApiClient.serverClockOffset`, a lower bound from Date headers; two
 *    minutes of tolerance when no Date was seen).
 * 3. It keeps scanning for at least 10 s and for as long again as the request was in flight (a POST that timed out may
 *    still be committed late), so "nothing was created" is only concluded after the request's own time has been
 *    waited out; even then the command exits 9 ("may have been created"), never 0. After a timeout, one match is
 *    watched to the end of that window too: were ours to land late next to another client's identical task, two
 *    candidates appear and the answer is exit 9, not the other client's task.
 * 4. Two candidates are never resolved by guessing: exit 9 names both. Nor is one candidate when the snapshot could not
 *    be taken in full (the list failed twice, or had no order and more than MAX_SCAN_PAGES pages): exit 9 names it.
 * Known limit: another client creating the same service and items while our request was in flight (after the
 * snapshot) cannot be told apart from ours; when both land, two candidates appear and the answer is exit 9.
 */
import type { PageMeta, Task } from '../api/schemas.js';
import { taskPhase, taskSucceeded } from './task-state.js';
import type { Clock } from './time.js';

export interface TaskReader {
  listTasks: (query: { page?: number; perPage?: number }) => Promise<{ tasks: Task[]; meta: PageMeta }>;
  getTask: (id: number) => Promise<Task>;
  /** Server clock minus local clock (a lower bound, from Date headers), when known: see `ApiClient`. */
  serverClockOffset?: () => number | undefined;
}

/** Client and server clocks differ; with the difference unknown, a creation time this far outside the window still counts. */
const CLOCK_SKEW_TOLERANCE_MS = 120_000;
/** Largest page the spec allows: fewest requests per scan. */
const PER_PAGE = 100;
/**
 * Pages read per scan at most. Newest-first or oldest-first lists stop at the window's edge long before; a list in no
 * recognisable order is read up to this bound (documented in the README: at most 10 list requests per scan).
 */
export const MAX_SCAN_PAGES = 10;

/** `unproven`: one new-looking match, but the snapshot was incomplete, so it may have existed before the request. */
export type MatchResult =
  | { kind: 'found'; task: Task }
  | { kind: 'none' }
  /** No scan could read the task list: nothing is known either way. */
  | { kind: 'unread' }
  | { kind: 'ambiguous'; ids: number[] }
  | { kind: 'unproven'; ids: number[] };

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const item of a) counts.set(item, (counts.get(item) ?? 0) + 1);
  for (const item of b) {
    const left = counts.get(item);
    if (!left) return false;
    counts.set(item, left - 1);
  }
  return true;
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
  /** List requests made. */
  requests: number;
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
): Promise<RecentScan> {
  const found: Task[] = [];
  let requests = 0;
  const read = async (page: number) => {
    signal?.throwIfAborted();
    requests += 1;
    return reader.listTasks({ page, perPage: PER_PAGE });
  };
  /** Keeps the matching tasks of a page. */
  const take = (tasks: readonly Task[], since: number): void => {
    for (const task of tasks) {
      const at = createdAt(task);
      if ((Number.isNaN(at) || at >= since) && task.service === match.service && task.total_items === match.count) {
        found.push(task);
      }
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
  if (totalPages <= 1) return { tasks: found, complete: true, requests };
  const order = orderOf(first.tasks);
  if (order === 'newest-first') {
    let tasks = first.tasks;
    for (let page = 2; page <= totalPages && reachesOn(tasks.at(-1), since); page++) {
      if (page > MAX_SCAN_PAGES) return { tasks: found, complete: false, requests };
      tasks = (await read(page)).tasks;
      take(tasks, since);
    }
    return { tasks: found, complete: true, requests };
  }
  if (order === 'oldest-first') {
    // Page 1 held the oldest tasks; the recent ones are at the end, read backwards until a page starts before the edge.
    for (let page = totalPages; page > 1; page--) {
      if (requests >= MAX_SCAN_PAGES) return { tasks: found, complete: false, requests };
      const { tasks } = await read(page);
      take(tasks, since);
      if (!reachesOn(tasks[0], since)) return { tasks: found, complete: true, requests };
    }
    return { tasks: found, complete: true, requests };
  }
  for (let page = 2; page <= totalPages; page++) {
    if (page > MAX_SCAN_PAGES) return { tasks: found, complete: false, requests };
    take((await read(page)).tasks, since);
  }
  return { tasks: found, complete: true, requests };
}

/** What existed before a POST: ids of recent tasks with the same service and item count. */
export interface Snapshot {
  ids: ReadonlySet<number>;
  /** False when the listing failed or stopped at its page bound: a match is then never claimed (exit 9 names it). */
  complete: boolean;
}

/**
 * Taken just before POST /tasks (one list request when the list is ordered). Reaches two minutes further back than the
 * acceptance test, so that every task the reconciliation could accept was either seen here or is new.
 */
export async function takeSnapshot(
  reader: TaskReader,
  match: { service: string; count: number },
  clock: Clock,
  signal?: AbortSignal,
): Promise<Snapshot> {
  const scan = await scanRecent(
    reader,
    match,
    () => clock.now() + (reader.serverClockOffset?.() ?? 0) - CLOCK_SKEW_TOLERANCE_MS,
    signal,
  );
  return { ids: new Set(scan.tasks.map((t) => t.id)), complete: scan.complete };
}

export interface CreateAttempt {
  service: string;
  items: readonly string[];
  /** Local epoch ms when the POST was sent (`AmbiguousCreateError.sentAtMs`). */
  sentAtMs: number;
  /** Tasks seen before the POST (never ours). */
  before: Snapshot;
  /** This run's own tasks (earlier chunks). */
  exclude?: ReadonlySet<number>;
}

/** The first instant, on the server's clock, at which a task created by our request can carry its `created_at`. */
function acceptanceEdge(reader: TaskReader, sentAtMs: number): number {
  const offset = reader.serverClockOffset?.();
  // The offset is a lower bound (whole-second Date, measured after the answer travelled): the edge is never late.
  return offset === undefined ? sentAtMs - CLOCK_SKEW_TOLERANCE_MS : sentAtMs + offset;
}

/** Confirms candidates by their items (one GET /tasks/:id each). */
async function confirm(
  reader: TaskReader,
  candidates: readonly Task[],
  items: readonly string[],
  signal?: AbortSignal,
): Promise<Task[]> {
  const matches: Task[] = [];
  for (const candidate of candidates) {
    signal?.throwIfAborted();
    const full = await reader.getTask(candidate.id);
    if (
      sameItems(
        (full.items ?? []).map((item) => item.target),
        items,
      )
    )
      matches.push(full);
  }
  return matches;
}

function verdict(matches: readonly Task[]): MatchResult {
  const [only, ...others] = matches;
  if (only === undefined) return { kind: 'none' };
  if (others.length === 0) return { kind: 'found', task: only };
  return { kind: 'ambiguous', ids: matches.map((task) => task.id) };
}

/** One scan after an ambiguous create: new candidates by service, count, time and snapshot, confirmed by their items. */
export async function findCreatedTask(
  reader: TaskReader,
  attempt: CreateAttempt,
  signal?: AbortSignal,
): Promise<MatchResult> {
  const scan = await scanRecent(
    reader,
    { service: attempt.service, count: attempt.items.length },
    () => acceptanceEdge(reader, attempt.sentAtMs),
    signal,
  );
  const candidates = scan.tasks.filter((t) => !attempt.before.ids.has(t.id) && !attempt.exclude?.has(t.id));
  const result = verdict(await confirm(reader, candidates, attempt.items, signal));
  // The creation time alone is no proof (the server clock is known to a second at best): without a complete snapshot
  // a match may be an identical task created just before the request (found by the exactly-once campaign).
  if (result.kind === 'found' && !(attempt.before.complete && scan.complete)) {
    return { kind: 'unproven', ids: [result.task.id] };
  }
  return result;
}

export interface ReconcileOptions extends CreateAttempt {
  /** Local epoch ms when the failure was seen; the scans go on for as long again as the request was in flight. */
  failedAtMs: number;
  clock: Clock;
  signal?: AbortSignal;
  /**
   * The request timed out, so it may still land: one match does not end the scans; they go on to the window's end,
   * and a second match that appears meanwhile (ours landing late next to another client's) makes the answer ambiguous.
   */
  timedOut?: boolean;
}

const RECONCILE_SCHEDULE_MS = [0, 2000, 3000, 5000] as const;
/** Pause between the scans that wait out a slow request, once the schedule is spent. */
const LATE_SCAN_INTERVAL_MS = 5000;
/** Waiting out a slow request is bounded: two minutes past the failure at most. */
const MAX_LATE_WAIT_MS = 120_000;

/** How long after the failure the scans go on: the schedule, and at least as long as the request was in flight. */
export function reconcileWindowMs(options: Pick<ReconcileOptions, 'sentAtMs' | 'failedAtMs'>): number {
  const schedule = RECONCILE_SCHEDULE_MS.reduce<number>((a, b) => a + b, 0);
  return Math.max(schedule, Math.min(MAX_LATE_WAIT_MS, options.failedAtMs - options.sentAtMs));
}

/**
 * After an ambiguous create: scans on the schedule (counted from the failure), then every 5 s until the request's own time in flight has been
 * waited out again. Stops at the first scan with one or more matches (two or more are never resolved by guessing),
 * except after a timeout, when one match is watched to the window's end (see `timedOut`).
 * A scan that fails (the service may still be failing) is retried at the next point; an abort is thrown at once.
 */
export async function reconcileCreate(reader: TaskReader, options: ReconcileOptions): Promise<MatchResult> {
  const { clock, signal } = options;
  const until = options.failedAtMs + reconcileWindowMs(options);
  const delays = [...RECONCILE_SCHEDULE_MS];
  let last: MatchResult = { kind: 'unread' };
  // The schedule counts from the failure, not from the end of the previous scan: slow scans (a list read that keeps
  // failing and is retried) must not push the later ones, and the verdict, past the window.
  let scheduledAt = options.failedAtMs;
  for (let i = 0; ; i++) {
    const step = delays[i];
    let delay: number;
    if (step !== undefined) {
      scheduledAt += step;
      delay = scheduledAt - clock.now();
    } else {
      delay = Math.min(LATE_SCAN_INTERVAL_MS, until - clock.now());
      if (delay <= 0) return last;
    }
    if (delay > 0) await clock.sleep(delay, signal);
    let scan: MatchResult;
    try {
      scan = await findCreatedTask(reader, options, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      continue;
    }
    if (last.kind === 'unread') last = { kind: 'none' };
    // A match once seen stays the answer unless more appear (a later scan failing to list it proves nothing).
    if (scan.kind !== 'none') last = scan;
    if (last.kind === 'ambiguous' || (last.kind !== 'none' && options.timedOut !== true)) return last;
  }
}

export interface ReuseQuery {
  service: string;
  items: readonly string[];
  /** Local epoch ms: tasks created at or after this instant (on the server's clock, two minutes' tolerance unknown). */
  createdAfter: number;
  /** Ids that must not match (tasks this invocation already created or reused). */
  exclude?: ReadonlySet<number>;
  /** A completed task with failed items is worth reusing only when the caller accepts item failures. */
  allowItemFailures?: boolean;
}

export interface ReuseResult {
  match: MatchResult;
  /** Every candidate seen by service and count (the ids a following create must not claim). */
  seen: Snapshot;
  /** Requests made (list pages + task reads). */
  requests: number;
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
 * failed task is never reused. Cost: at most MAX_SCAN_PAGES list requests plus one read per same-size candidate.
 */
export async function findReusableTask(
  reader: TaskReader,
  query: ReuseQuery,
  signal?: AbortSignal,
): Promise<ReuseResult> {
  const edge = () => {
    const offset = reader.serverClockOffset?.();
    return query.createdAfter + (offset ?? 0) - (offset === undefined ? CLOCK_SKEW_TOLERANCE_MS : 0);
  };
  const scan = await scanRecent(reader, { service: query.service, count: query.items.length }, edge, signal);
  let requests = scan.requests;
  const seen: Snapshot = { ids: new Set(scan.tasks.map((t) => t.id)), complete: scan.complete };
  const candidates = scan.tasks
    .filter((t) => !query.exclude?.has(t.id) && taskPhase(t) !== 'ended')
    .sort((a, b) => (createdAt(b) || 0) - (createdAt(a) || 0));
  for (const candidate of candidates) {
    signal?.throwIfAborted();
    requests += 1;
    const full = await reader.getTask(candidate.id);
    const items = (full.items ?? []).map((item) => item.target);
    if (sameItems(items, query.items) && worthReusing(full, query.allowItemFailures === true)) {
      return { match: { kind: 'found', task: full }, seen, requests };
    }
  }
  return { match: { kind: 'none' }, seen, requests };
}
