/**
 * The poll scheduler behind `wait`, `watch` and `create --wait`: when each task is next due, and how one round reads
 * the tasks that are due with as few requests as possible. Pure: time comes in as numbers, randomness is injected.
 */
import type { PageMeta } from '../../api/schemas.js';

/** Longest gap between two polls of an unchanged task. */
const MAX_POLL_INTERVAL_MS = 30_000;
/** Growth of the interval per poll while nothing changes. */
const BACKOFF_FACTOR = 1.5;
/** ±10%, so tasks started together (and several taskctl processes) don't poll in lockstep. */
const JITTER_FRACTION = 0.1;
/** GET /tasks per_page maximum (the API's bound). */
export const PAGE_SIZE = 100;
/** Floor for `--interval`: anything shorter only burns the rate limit. */
const MIN_POLL_INTERVAL_MS = 100;

export interface PollConfig {
  /** Interval after a change (`--interval`). */
  startMs: number;
  /** Cap for an unchanged task (30 s, or the start value when that is larger). */
  maxMs: number;
  factor: number;
  /** Fraction of the interval added or removed at random. */
  jitter: number;
  /** Uniform in [0, 1); injected so tests are deterministic. */
  random: () => number;
}

/** Defaults: ×1.5 growth, 30 s cap, ±10% jitter, `Math.random`. */
export function pollConfig(intervalMs: number, random: () => number = Math.random): PollConfig {
  const startMs = Math.max(MIN_POLL_INTERVAL_MS, intervalMs);
  return {
    startMs,
    maxMs: Math.max(startMs, MAX_POLL_INTERVAL_MS),
    factor: BACKOFF_FACTOR,
    jitter: JITTER_FRACTION,
    random,
  };
}

/**
 * Interval for a task unchanged for `unchangedForMs`: `start + (factor − 1) × unchangedFor`, capped at `maxMs`.
 * Polled on schedule this is exactly ×factor per poll (2 s, 3 s, 4.5 s, …); it is written in elapsed time rather than a
 * poll counter so that a task seen early, for free, on a list page read for another task keeps the same curve.
 */
export function backoffInterval(config: PollConfig, unchangedForMs: number): number {
  return Math.min(config.maxMs, config.startMs + (config.factor - 1) * Math.max(0, unchangedForMs));
}

/** `ms` scaled by a random factor in [1 − fraction, 1 + fraction]. */
export function jitter(ms: number, fraction: number, random: () => number): number {
  const r = Math.min(1, Math.max(0, random()));
  return ms * (1 + fraction * (2 * r - 1));
}

interface TimerState {
  /** When the current status was first seen. */
  changedAt: number;
  observedAt: number;
  dueAt: number;
  /** Set by `schedule`: how early the key may be polled with others (its jitter spread); else from the backoff. */
  window?: number;
}

/** Per-key poll timing: new keys are due at once; each observation schedules the next one. */
export class PollTimers<K> {
  private readonly timers = new Map<K, TimerState>();

  constructor(readonly config: PollConfig) {}

  /** Starts timing `key`; it is due immediately. */
  add(key: K, now: number): void {
    if (!this.timers.has(key)) this.timers.set(key, { changedAt: now, observedAt: now, dueAt: now });
  }

  delete(key: K): void {
    this.timers.delete(key);
  }

  /** Records an observation: a change resets the interval; the next poll is one jittered interval from now. */
  observe(key: K, changed: boolean, now: number): void {
    let timer = this.timers.get(key);
    if (!timer) {
      timer = { changedAt: now, observedAt: now, dueAt: now };
      this.timers.set(key, timer);
    }
    if (changed) timer.changedAt = now;
    timer.observedAt = now;
    timer.dueAt = now + jitter(this.interval(key), this.config.jitter, this.config.random);
  }

  /** Sets the next poll of `key` from outside (the task's pace); `window`: how early it may join an earlier round. */
  schedule(key: K, dueAt: number, window: number): void {
    const timer = this.timers.get(key);
    if (!timer) return;
    timer.dueAt = dueAt;
    timer.window = window;
  }

  /** Moves the next poll of `key` to `at` without touching its backoff (a due key that a round could not reach). */
  defer(key: K, at: number): void {
    const timer = this.timers.get(key);
    if (timer) timer.dueAt = Math.max(timer.dueAt, at);
  }

  /** Current (unjittered) interval of `key`. */
  interval(key: K): number {
    const timer = this.timers.get(key);
    return timer ? backoffInterval(this.config, timer.observedAt - timer.changedAt) : this.config.startMs;
  }

  dueAt(key: K): number | undefined {
    return this.timers.get(key)?.dueAt;
  }

  /**
   * Keys due at `now`, most overdue first. A key due within the jitter spread (2 × jitter × its interval) counts as due,
   * so tasks that would poll together without jitter share one round instead of costing a round each.
   */
  due(now: number): K[] {
    const due: Array<[K, number]> = [];
    for (const [key, timer] of this.timers) {
      const window =
        timer.window ?? 2 * this.config.jitter * backoffInterval(this.config, timer.observedAt - timer.changedAt);
      if (timer.dueAt <= now + window) due.push([key, timer.dueAt]);
    }
    return due.sort((a, b) => a[1] - b[1]).map(([key]) => key);
  }
}

/**
 * Requests the pace lets go back to back after a quiet spell: one round's worth for 300 tasks (⌈300/100⌉+1), and a
 * new task's quick first polls. The rate itself is the client's limiter's (api/rate-limit.ts readyAt).
 */
export const ROUND_BURST = 4;

/** Most requests one round may use for `count` tasks needing a request: ⌈count/100⌉ + 1 (docs/performance.md). */
export function roundBudget(count: number): number {
  return count <= 0 ? 0 : Math.ceil(count / PAGE_SIZE) + 1;
}

/**
 * Where watched tasks live in GET /tasks. The listing's order is not specified, so this is only a hint: a task missing
 * from its page loses its hint and is searched for again.
 */
export class PageKnowledge {
  private readonly pages = new Map<number, number>();
  private readonly unlisted = new Set<number>();
  /** Pages read in the current search for tasks with no known page → how many watched tasks each held. */
  private readonly searchedPages = new Map<number, number>();
  /** `total_pages` of the latest list response. */
  totalPages: number | undefined;

  pageOf(id: number): number | undefined {
    return this.pages.get(id);
  }

  /** True for a task a full search of the listing did not find: it is fetched one by one from then on. */
  isUnlisted(id: number): boolean {
    return this.unlisted.has(id);
  }

  get searched(): ReadonlyMap<number, number> {
    return this.searchedPages;
  }

  /**
   * Records a page read: where each watched task on it is (those `stillWatched` says are: a task that finished there is
   * not kept; it still counts as a hit for the search order), and the listing's size.
   */
  recordPage(
    page: number,
    meta: PageMeta,
    watchedIds: Iterable<number>,
    stillWatched: (id: number) => boolean = () => true,
  ): void {
    this.totalPages = meta.total_pages;
    let hits = 0;
    for (const id of watchedIds) {
      hits++;
      if (!stillWatched(id)) continue;
      this.pages.set(id, page);
      this.unlisted.delete(id);
    }
    this.searchedPages.set(page, hits);
  }

  /** The task was not on the page it was last seen on (the listing moved). */
  forget(id: number): void {
    this.pages.delete(id);
  }

  /** The task is watched no more: nothing about it is kept. */
  drop(id: number): void {
    this.pages.delete(id);
    this.unlisted.delete(id);
  }

  /**
   * Closes a round: with nothing left to find the search starts afresh next time; once every page was searched,
   * the tasks still not found are marked unlisted.
   */
  endRound(idsWithoutPage: readonly number[]): void {
    const missing = idsWithoutPage.filter((id) => !this.unlisted.has(id));
    if (missing.length === 0) {
      this.searchedPages.clear();
      return;
    }
    const total = this.totalPages;
    if (total === undefined) return;
    for (let page = 1; page <= total; page++) if (!this.searchedPages.has(page)) return;
    for (const id of missing) this.unlisted.add(id);
    this.searchedPages.clear();
  }
}

export interface PlanInput {
  pageOf: (id: number) => number | undefined;
  isUnlisted: (id: number) => boolean;
  totalPages: number | undefined;
  /** Pages already read in the current search (page → watched tasks found there); never re-read for the search. */
  searched: ReadonlyMap<number, number>;
  /** Requests left this round. */
  budget: number;
}

export interface RoundPlan {
  /** List pages to read, in order; the caller stops as soon as every due task has been seen. */
  pages: number[];
  /** Tasks to fetch one by one (GET /tasks/:id), after the pages. */
  gets: number[];
}

/**
 * Plans the requests for the due tasks not yet seen this round, within `budget`:
 * 1. pages where due tasks were last seen, the fullest first (a page is as cheap as a GET and shows up to 100 tasks);
 * 2. tasks with no known page: one GET each when that fits the budget (cheaper than searching), otherwise search
 *    unread pages, starting next to pages where watched tasks were found (tasks created together sit together),
 *    then alternating from both ends (newest-first and oldest-first listings both keep fresh tasks at an end);
 * 3. tasks the listing does not show (see PageKnowledge.isUnlisted): one GET each.
 * Callers re-plan after each page, so only the first page of a plan has to be right.
 */
export function planRound(dueIds: readonly number[], input: PlanInput): RoundPlan {
  let left = Math.max(0, input.budget);
  if (left === 0 || dueIds.length === 0) return { pages: [], gets: [] };

  const byPage = new Map<number, number>();
  const unknown: number[] = [];
  const unlisted: number[] = [];
  for (const id of dueIds) {
    const page = input.pageOf(id);
    if (page !== undefined) byPage.set(page, (byPage.get(page) ?? 0) + 1);
    else if (input.isUnlisted(id)) unlisted.push(id);
    else unknown.push(id);
  }

  // Stable sort: among equally full pages, the one holding the most overdue task comes first.
  const pages = [...byPage]
    .sort((a, b) => b[1] - a[1])
    .map(([page]) => page)
    .slice(0, left);
  left -= pages.length;

  const gets: number[] = [];
  if (unknown.length > 0 && unknown.length + unlisted.length > left) {
    const search = searchOrder(input.totalPages, input.searched, left + pages.length).filter(
      (page) => !pages.includes(page),
    );
    const chosen = search.slice(0, left);
    pages.push(...chosen);
    left -= chosen.length;
    // Every page searched already: the endRound call will mark them unlisted; until then fetch them directly.
    if (search.length === 0) gets.push(...unknown.slice(0, left));
  } else {
    gets.push(...unknown.slice(0, left));
  }
  left = Math.max(0, input.budget - pages.length - gets.length);
  gets.push(...unlisted.slice(0, left));
  return { pages, gets };
}

/**
 * Up to `limit` unread pages in the order worth searching (see planRound). With no list read yet, only page 1 is
 * known to exist.
 */
export function searchOrder(
  totalPages: number | undefined,
  searched: ReadonlyMap<number, number>,
  limit = Infinity,
): number[] {
  if (totalPages === undefined) return searched.has(1) || limit < 1 ? [] : [1];
  const order = new Set<number>();
  const add = (page: number): void => {
    if (order.size < limit && page >= 1 && page <= totalPages && !searched.has(page)) order.add(page);
  };
  const hitPages = [...searched]
    .filter(([, hits]) => hits > 0)
    .map(([page]) => page)
    .sort((a, b) => a - b);
  for (const page of hitPages) {
    add(page + 1);
    add(page - 1);
  }
  for (let low = 1, high = totalPages; low <= high && order.size < limit; low++, high--) {
    add(low);
    add(high);
  }
  return [...order];
}
