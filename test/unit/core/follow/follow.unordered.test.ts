/**
 * `watch --follow` with no ids against a listing in no order of creation (docs/openapi.json leaves GET /tasks's order
 * open): here a hash of the id, so a new task lands on any page, most often a middle one, where neither end of a
 * listing by creation would put it. Each new task is still shown within a bounded number of rounds, at the rate
 * budget's pace, and a listing too long to read that fast is said to be so.
 */
import { describe, expect, it } from 'vitest';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { TaskChange } from '../../../../src/core/follow/follow.js';
import { isTerminal } from '../../../../src/lib/task-state.js';
import { busiestMinute, FakeClock, FakeTaskServer, listingKey, seededRandom, T0 } from './fakes.js';
import type { SimTask } from './fakes.js';

const MIN = 60_000;

interface Unordered {
  /** Finished tasks on the account before the watch starts, created 10 s apart before it. */
  before: number;
  /** A new task every `everyMs` from `everyMs` on, processing a second later, completed `runMs` after its creation. */
  everyMs: number;
  runMs: number;
  /** Tasks created until then (ms after T0); the watch lasts `forMs`. */
  untilMs: number;
  forMs: number;
  /** The server's budget a minute, stated in its headers or (the documented 100) enforced unstated. */
  limit?: number;
  /** Tasks its `total_count` counts that its pages never show. */
  unlisted?: number;
  rememberFinished?: number;
}

async function watchUnordered(u: Unordered) {
  const clock = new FakeClock();
  const tasks: SimTask[] = [];
  for (let i = 1; i <= u.before; i++) {
    const at = -(u.before - i + 1) * 10_000;
    tasks.push({ id: i, createdAfter: at, timeline: [[at, 'completed']] });
  }
  const created: SimTask[] = [];
  for (let at = u.everyMs; at <= u.untilMs; at += u.everyMs)
    created.push({
      id: u.before + created.length + 1,
      createdAfter: at,
      timeline: [
        [at + 1000, 'processing'],
        [at + u.runMs, 'completed'],
      ],
    });
  tasks.push(...created);
  const server = new FakeTaskServer(clock, {
    order: 'hashed',
    listCounts: true,
    rateLimit: { limit: u.limit ?? 100, headers: u.limit !== undefined },
    ...(u.unlisted !== undefined && { unlisted: u.unlisted }),
  }).add(...tasks);
  const changes: TaskChange[] = [];
  const missed: number[] = [];
  const behind: Array<{ pages: number; forMs: number }> = [];
  await followTasks({
    reader: server,
    ids: 'all-unfinished',
    follow: true,
    clock,
    random: seededRandom(5),
    intervalMs: 2000,
    until: 'terminal',
    deadline: T0 + u.forMs,
    ...(u.rememberFinished !== undefined && { rememberFinished: u.rememberFinished }),
    onChange: (change) => changes.push(change),
    onMissed: (atLeast) => missed.push(atLeast),
    onBehind: (said) => behind.push(said),
  });
  // Where each new task landed: its page among the tasks listed when it was created.
  const key = listingKey('hashed');
  const pageAtCreation = (task: SimTask): number => {
    const listed = tasks.filter((t) => (t.createdAfter ?? 0) <= (task.createdAfter ?? 0));
    return Math.floor(listed.filter((t) => key(t.id) < key(task.id)).length / 100) + 1;
  };
  const middle = created.filter((t) => {
    const pages = Math.ceil(tasks.filter((o) => (o.createdAfter ?? 0) <= (t.createdAfter ?? 0)).length / 100);
    const page = pageAtCreation(t);
    return page > 1 && page < pages;
  });
  const firstShown = new Map<number, number>();
  const ends = new Map<number, number>();
  for (const change of changes) {
    if (!firstShown.has(change.task.id)) firstShown.set(change.task.id, change.at);
    if (change.statusChanged && isTerminal(change.task)) ends.set(change.task.id, (ends.get(change.task.id) ?? 0) + 1);
  }
  /** Each new task: how long until its first line, and how many discoveries (each reads page 1) came in between. */
  const lag = created.map((task) => {
    const at = T0 + (task.createdAfter ?? 0);
    const shown = firstShown.get(task.id);
    const rounds = server.lists.filter((l) => l.page === 1 && l.at > at && l.at <= (shown ?? Infinity)).length;
    return { id: task.id, ms: shown === undefined ? undefined : shown - at, rounds };
  });
  return { server, created, middle, lag, ends, missed, behind };
}

describe('watch --follow with no ids: a listing in no order of creation', () => {
  it('shows each new task within 2 rounds (15 s) however deep in the listing it lands, within the rate budget', async () => {
    // 8 pages; a task every 10 s for 4 minutes, each done 4 s after its creation.
    const run = await watchUnordered({ before: 800, everyMs: 10_000, runMs: 4000, untilMs: 4 * MIN, forMs: 5 * MIN });
    expect(run.created).toHaveLength(24);
    // The case at hand: most land on a middle page, not on page 1 nor the last.
    expect(run.middle.length).toBeGreaterThanOrEqual(18);
    for (const { id, ms, rounds } of run.lag) {
      expect([id, ms !== undefined && ms <= 15_000]).toEqual([id, true]);
      expect([id, rounds <= 2]).toEqual([id, true]);
    }
    for (const task of run.created) expect([task.id, run.ends.get(task.id)]).toEqual([task.id, 1]);
    // The account's old tasks, finished before the watch, are never printed.
    expect([...run.ends.keys()].filter((id) => id <= 800)).toEqual([]);
    expect(run.server.limited).toBe(0);
    expect(busiestMinute(run.server.times)).toBeLessThanOrEqual(100);
    expect(run.missed).toEqual([]);
    expect(run.behind).toEqual([]);
  });

  it('a listing too long to read in a minute at the rate budget: said once, and every new task still shown', async () => {
    // 30 pages at a stated 20 requests a minute: reading them all takes about a minute and a half.
    const run = await watchUnordered({
      before: 3000,
      everyMs: 20_000,
      runMs: 4000,
      untilMs: 4 * MIN,
      forMs: 10 * MIN,
      limit: 20,
    });
    expect(run.middle.length).toBeGreaterThanOrEqual(Math.floor(run.created.length / 2));
    expect(run.behind).toHaveLength(1);
    expect(run.behind[0]?.pages).toBe(31);
    expect(run.behind[0]?.forMs).toBeGreaterThan(MIN);
    for (const task of run.created) expect([task.id, run.ends.get(task.id)]).toEqual([task.id, 1]);
    // Found within two readings of the whole listing (one begun before it was created, and the next).
    for (const { id, ms } of run.lag) expect([id, ms !== undefined && ms <= 4 * MIN]).toEqual([id, true]);
    expect(run.server.limited).toBe(0);
    expect(busiestMinute(run.server.times)).toBeLessThanOrEqual(20);
    expect(run.missed).toEqual([]);
  });

  for (const before of [500, 50])
    it(`a count of ${before} + 3 tasks ${before > 100 ? 'its pages never show' : 'its one page never shows'}: looked for once, not at every round`, async () => {
      // One new task, 5 minutes in.
      const run = await watchUnordered({
        before,
        everyMs: 5 * MIN,
        runMs: 4000,
        untilMs: 5 * MIN,
        forMs: 6 * MIN,
        unlisted: 3,
      });
      const pages = Math.ceil(before / 100);
      // The first reading, one sweep of the other pages, then page 1 at each discovery, backing off to 30 s apart.
      const quiet = run.server.lists.filter((l) => l.at < T0 + 5 * MIN);
      expect(quiet.length).toBeLessThanOrEqual(pages + (pages - 1) + 30);
      expect(quiet.filter((l) => l.page !== 1).length).toBeLessThanOrEqual(2 * (pages - 1));
      // A new task is still looked for: at the next discovery, at most 30 s after the last on a quiet listing.
      for (const { id, ms, rounds } of run.lag)
        expect([id, ms !== undefined && ms <= 35_000 && rounds <= 2]).toEqual([id, true]);
      expect(run.behind).toEqual([]);
    });

  it('more tasks created during one sweep than half of what is remembered: said once, some may not be shown', async () => {
    // Remembering 20 finished tasks, 5 created a second: more than 10 come while one sweep of 8 pages goes round.
    const run = await watchUnordered({
      before: 800,
      everyMs: 200,
      runMs: 1000,
      untilMs: MIN,
      forMs: 2 * MIN,
      rememberFinished: 20,
    });
    expect(run.missed).toHaveLength(1);
    expect(run.missed[0]).toBeGreaterThan(10);
    expect(run.server.limited).toBe(0);
    // What is shown is shown once.
    expect([...run.ends.values()].every((n) => n === 1)).toBe(true);
  });
});
