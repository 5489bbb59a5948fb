import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PageKnowledge,
  PollTimers,
  backoffInterval,
  jitter,
  planRound,
  pollConfig,
  roundBudget,
  searchOrder,
} from '../../../../src/core/follow/scheduler.js';
import type { PlanInput } from '../../../../src/core/follow/scheduler.js';

const noJitter = (): number => 0.5;

describe('backoff', () => {
  it('grows ×1.5 per on-schedule poll from the start interval up to 30 s', () => {
    const timers = new PollTimers<number>(pollConfig(2000, noJitter));
    let now = 0;
    timers.observe(1, true, now);
    const intervals: number[] = [];
    for (let i = 0; i < 10; i++) {
      const due = timers.dueAt(1)!;
      intervals.push(due - now);
      now = due;
      timers.observe(1, false, now);
    }
    expect(intervals.slice(0, 6)).toEqual([2000, 3000, 4500, 6750, 10125, 15187.5]);
    expect(intervals[6]).toBeCloseTo(22781.25);
    expect(intervals.slice(7)).toEqual([30000, 30000, 30000]);
  });

  it('resets to the start interval on a change', () => {
    const timers = new PollTimers<number>(pollConfig(2000, noJitter));
    timers.observe(1, true, 0);
    timers.observe(1, false, 2000);
    timers.observe(1, false, 5000);
    expect(timers.interval(1)).toBe(4500);
    timers.observe(1, true, 9500);
    expect(timers.interval(1)).toBe(2000);
    expect(timers.dueAt(1)).toBe(11_500);
  });

  it('keeps a start interval above 30 s as the cap, and floors tiny intervals at 100 ms', () => {
    expect(backoffInterval(pollConfig(60_000), 1e9)).toBe(60_000);
    expect(pollConfig(0).startMs).toBe(100);
  });

  it('jitter stays within ±10% and the schedule within [0.9, 1.1] × interval', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 30_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (ms, r) => {
          const value = jitter(ms, 0.1, () => r);
          expect(value).toBeGreaterThanOrEqual(ms * 0.9 - 1e-9);
          expect(value).toBeLessThanOrEqual(ms * 1.1 + 1e-9);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (unchanged, r) => {
          const timers = new PollTimers<number>(pollConfig(2000, () => r));
          timers.observe(1, true, 0);
          timers.observe(1, false, unchanged);
          const interval = timers.interval(1);
          const gap = timers.dueAt(1)! - unchanged;
          expect(gap).toBeGreaterThanOrEqual(interval * 0.9 - 1e-9);
          expect(gap).toBeLessThanOrEqual(interval * 1.1 + 1e-9);
          expect(interval).toBeLessThanOrEqual(30_000);
        },
      ),
    );
  });

  it('counts tasks due within the jitter spread as due together, most overdue first', () => {
    const timers = new PollTimers<number>(pollConfig(2000, noJitter));
    timers.add(1, 0);
    timers.observe(2, true, 0); // due at 2000
    timers.observe(3, true, 1700); // due at 3700: beyond 2000 + 20% of 2000
    expect(timers.due(0)).toEqual([1]);
    expect(timers.due(1700)).toEqual([1, 2]);
  });
});

function input(partial: Partial<PlanInput> & { pages?: Record<number, number> }): PlanInput {
  const pages = partial.pages ?? {};
  return {
    pageOf: (id) => pages[id],
    isUnlisted: partial.isUnlisted ?? (() => false),
    totalPages: partial.totalPages,
    searched: partial.searched ?? new Map(),
    budget: partial.budget ?? 2,
  };
}

describe('planRound', () => {
  it('budget is ⌈N/100⌉ + 1', () => {
    expect([0, 1, 5, 100, 101, 150, 1000].map(roundBudget)).toEqual([0, 2, 2, 2, 3, 3, 11]);
  });

  it('fetches a single task of unknown page directly', () => {
    expect(planRound([7], input({}))).toEqual({ pages: [], gets: [7] });
  });

  it('searches the listing when there are more unknown tasks than the budget allows GETs', () => {
    expect(planRound([1, 2, 3, 4, 5], input({}))).toEqual({ pages: [1], gets: [] });
    // After page 1 showed some of them: its neighbour first, then alternating ends.
    const searched = new Map([[1, 3]]);
    expect(planRound([4, 5, 6, 7], input({ totalPages: 6, searched, budget: 3 })).pages).toEqual([2, 6, 5]);
    // GETs when they fit the budget: cheaper than a search.
    expect(planRound([4, 5, 6], input({ totalPages: 6, searched, budget: 3 }))).toEqual({ pages: [], gets: [4, 5, 6] });
  });

  it('reads known pages, fullest first, and GETs the rest when that fits', () => {
    const plan = planRound([1, 2, 3, 4, 9], input({ pages: { 1: 4, 2: 3, 3: 3, 4: 3 }, budget: 2 }));
    expect(plan).toEqual({ pages: [3, 4], gets: [] });
    const withUnknown = planRound([1, 2, 9], input({ pages: { 1: 3, 2: 3 }, budget: 2 }));
    expect(withUnknown).toEqual({ pages: [3], gets: [9] });
  });

  it('fetches unlisted tasks one by one, and unknown ones once every page was searched', () => {
    const searched = new Map([
      [1, 0],
      [2, 0],
    ]);
    expect(planRound([5, 6, 7], input({ totalPages: 2, searched, isUnlisted: (id) => id === 7, budget: 2 }))).toEqual({
      pages: [],
      gets: [5, 6],
    });
  });

  it('never plans more requests than the budget', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 12 }),
        (ids, hintEvery, totalPages, budget) => {
          const pages: Record<number, number> = {};
          ids.forEach((id, i) => {
            if (i % hintEvery === 0) pages[id] = 1 + (id % Math.max(1, totalPages));
          });
          const plan = planRound(ids, input({ pages, totalPages, budget, isUnlisted: (id) => id % 7 === 0 }));
          expect(plan.pages.length + plan.gets.length).toBeLessThanOrEqual(budget);
          expect(new Set(plan.pages).size).toBe(plan.pages.length);
        },
      ),
    );
  });

  it('search order skips searched pages and stops at the limit', () => {
    expect(searchOrder(undefined, new Map())).toEqual([1]);
    expect(searchOrder(5, new Map([[1, 0]]))).toEqual([5, 2, 4, 3]);
    expect(searchOrder(10_000, new Map(), 3)).toEqual([1, 10_000, 2]);
    expect(searchOrder(0, new Map([[1, 0]]))).toEqual([]);
  });
});

describe('PageKnowledge', () => {
  const meta = (totalPages: number) => ({
    current_page: 1,
    per_page: 100,
    total_count: totalPages * 100,
    total_pages: totalPages,
  });

  it('marks tasks unlisted once every page was searched without finding them', () => {
    const k = new PageKnowledge();
    k.recordPage(1, meta(2), [1]);
    k.endRound([2]);
    expect(k.isUnlisted(2)).toBe(false);
    k.recordPage(2, meta(2), []);
    k.endRound([2]);
    expect(k.isUnlisted(2)).toBe(true);
    expect(k.searched.size).toBe(0);
    // Seen on a page later: listed again.
    k.recordPage(1, meta(2), [2]);
    expect(k.isUnlisted(2)).toBe(false);
    expect(k.pageOf(2)).toBe(1);
  });

  it('forgets a hint, and clears the search when nothing is missing', () => {
    const k = new PageKnowledge();
    k.recordPage(3, meta(3), [9]);
    k.forget(9);
    expect(k.pageOf(9)).toBeUndefined();
    k.endRound([]);
    expect(k.searched.size).toBe(0);
  });
});
