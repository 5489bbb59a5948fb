import { describe, expect, it } from 'vitest';
import type { PageMeta, Task } from '../../../src/api/schemas.js';
import {
  findReusableTask,
  newSinceListing,
  MAX_CANDIDATE_READS,
  MAX_SCAN_PAGES,
  reconcileCreate,
  scanRecent,
  takeSnapshot,
  type CreateAttempt,
  type LocalRuns,
  type TaskReader,
} from '../../../src/core/reconcile.js';
import { UnavailableError } from '../../../src/errors.js';
import { FakeClock, T0 } from '../../clock.js';

const EMPTY = { ids: new Set<number>(), complete: true };

function task(id: number, service: string, items: string[], createdAt = T0, status = 'pending'): Task {
  return {
    id,
    service,
    status,
    total_items: items.length,
    cost: items.length,
    created_at: new Date(createdAt).toISOString(),
    completed_at: status === 'pending' ? null : new Date(createdAt + 1000).toISOString(),
    items: items.map((target) => ({ target, status: status === 'pending' ? 'pending' : 'completed', data: null })),
  };
}

type Order = 'newest-first' | 'oldest-first' | 'shuffled';

/** Pages of `perPage` over `tasks` in the given order; `appearAfter` hides tasks until that many list calls were made. */
function reader(
  tasks: Task[] | (() => Task[]),
  options: { failFirst?: number; appearAfter?: number; order?: Order; offset?: number } = {},
): TaskReader & { lists: number; gets: number; pages: number[] } {
  const state = {
    lists: 0,
    gets: 0,
    pages: [] as number[],
    async listTasks({ page = 1, perPage = 100 }: { page?: number; perPage?: number }) {
      state.lists += 1;
      state.pages.push(page);
      if (state.lists <= (options.failFirst ?? 0)) throw new UnavailableError('502');
      const all = typeof tasks === 'function' ? tasks() : tasks;
      const visible = state.lists > (options.appearAfter ?? 0) ? all : [];
      const order = options.order ?? 'newest-first';
      const sorted = [...visible]
        .sort((a, b) =>
          order === 'newest-first'
            ? b.id - a.id
            : order === 'oldest-first'
              ? a.id - b.id
              : ((a.id * 7919) % 2003) - ((b.id * 7919) % 2003),
        )
        .map(({ items: _items, ...rest }) => rest);
      const meta: PageMeta = {
        current_page: page,
        per_page: perPage,
        total_count: sorted.length,
        total_pages: Math.ceil(sorted.length / perPage),
      };
      return { tasks: sorted.slice((page - 1) * perPage, page * perPage), meta };
    },
    async getTask(id: number) {
      state.gets += 1;
      const all = typeof tasks === 'function' ? tasks() : tasks;
      const found = all.find((t) => t.id === id);
      if (!found) throw new Error('missing');
      return found;
    },
    serverClockOffset: () => options.offset,
  };
  return state;
}

/** A whole reconciliation of a request answered with a failure 50 ms after it was sent (virtual time). */
function reconcileAnswered(r: TaskReader, attempt: CreateAttempt, local?: LocalRuns) {
  const failedAtMs = attempt.sentAtMs + 50;
  return reconcileCreate(r, { ...attempt, failedAtMs, answered: true, clock: new FakeClock(failedAtMs), local });
}

describe('reconcileCreate: the candidates', () => {
  it('never claims an identical task that existed before the request was sent (snapshot), however recent', async () => {
    // A bug once: the same create run twice in a row; the second POST never reached the server.
    const earlier = task(1, 'svc', ['a.com', 'b.com'], T0 - 200);
    const r = reader([earlier], { offset: 0 });
    const before = await takeSnapshot(r, { service: 'svc', count: 2 }, new FakeClock(T0));
    expect([...before.ids]).toEqual([1]);
    const result = await reconcileAnswered(r, { service: 'svc', items: ['a.com', 'b.com'], sentAtMs: T0, before });
    expect(result).toEqual({ kind: 'none' });
  });

  it('finds the one new task with the same service, count and items (as a multiset)', async () => {
    const tasks = [task(1, 'svc', ['a', 'b']), task(3, 'other', ['a', 'b'])];
    const r = reader(() => tasks, { offset: 0 });
    const before = await takeSnapshot(r, { service: 'svc', count: 2 }, new FakeClock(T0));
    tasks.push(task(2, 'svc', ['b', 'a'], T0 + 5), task(4, 'svc', ['a', 'c'], T0 + 6));
    const result = await reconcileAnswered(r, { service: 'svc', items: ['a', 'b'], sentAtMs: T0, before });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 2 }) });
  });

  it('rejects a new-looking task created minutes before the send on the server clock', async () => {
    // Minutes: a Date header may be written by a clock ahead of the one stamping tasks (DATE_CLOCK_SPREAD_MS), so
    // seconds before the send on the Date's clock may still be the request's own task.
    const r = reader([task(5, 'svc', ['a'], T0 - 30_000 - 180_000)], { offset: -30_000 });
    expect(await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY })).toEqual({
      kind: 'none',
    });
    const late = reader([task(6, 'svc', ['a'], T0 - 30_000 + 200)], { offset: -30_000 });
    expect((await reconcileAnswered(late, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY })).kind).toBe(
      'found',
    );
  });

  it('never guesses between two new identical tasks', async () => {
    const r = reader([task(1, 'svc', ['a']), task(2, 'svc', ['a'])], { offset: 0 });
    expect(await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0 - 10, before: EMPTY })).toEqual({
      kind: 'ambiguous',
      ids: [1, 2],
      late: [],
    });
  });
});

describe('reconcileCreate: a task whose items the service does not list in full', () => {
  const unlisted = (t: Task, items: Task['items']): Task =>
    items === undefined ? (({ items: _, ...rest }) => rest)(t) : { ...t, items };

  it('no items, or fewer than its total: a candidate that keeps the outcome unsure, never none', async () => {
    const bare = unlisted(task(1, 'svc', ['a', 'b'], T0 + 5), undefined);
    const short = task(2, 'svc', ['a', 'b'], T0 + 6);
    const partial = unlisted(short, short.items?.slice(0, 1));
    for (const t of [bare, partial]) {
      const result = await reconcileAnswered(reader([t], { offset: 0 }), {
        service: 'svc',
        items: ['a', 'b'],
        sentAtMs: T0,
        before: EMPTY,
      });
      expect(result).toEqual({ kind: 'unlisted', ids: [t.id], unlisted: [t.id] });
    }
  });

  it('beside one that matches, it is never adopted: both are named', async () => {
    const tasks = [task(1, 'svc', ['a'], T0 + 5), unlisted(task(2, 'svc', ['a'], T0 + 6), undefined)];
    const result = await reconcileAnswered(reader(tasks, { offset: 0 }), {
      service: 'svc',
      items: ['a'],
      sentAtMs: T0,
      before: EMPTY,
    });
    expect(result).toEqual({ kind: 'unlisted', ids: [1, 2], unlisted: [2] });
  });

  it('one seen before the send, another service or another size is still none', async () => {
    const old = unlisted(task(1, 'svc', ['a'], T0 + 5), undefined);
    const other = unlisted(task(2, 'other', ['a'], T0 + 5), undefined);
    const bigger = unlisted(task(3, 'svc', ['a', 'b'], T0 + 5), undefined);
    const result = await reconcileAnswered(reader([old, other, bigger], { offset: 0 }), {
      service: 'svc',
      items: ['a'],
      sentAtMs: T0,
      before: { ids: new Set([1]), complete: true },
    });
    expect(result).toEqual({ kind: 'none' });
  });
});

describe('scanRecent', () => {
  const many = (n: number, newestAt = T0) =>
    Array.from({ length: n }, (_, i) => task(i + 1, 'svc', ['x'], newestAt - (n - 1 - i) * 60_000));

  it('newest first: stops after the first page wholly older than the edge', async () => {
    const r = reader(many(1000), { order: 'newest-first' });
    const scan = await scanRecent(r, { service: 'svc', count: 1 }, () => T0 - 150 * 60_000);
    expect(scan).toMatchObject({ complete: true, requests: 2 });
    expect(scan.tasks).toHaveLength(151);
    // Every task stamped after the oldest of the two pages read was listed: tasks 801 to 1000.
    expect(scan.shownAfter).toBe(T0 - 199 * 60_000);
    expect(scan.listed.size).toBe(200);
  });

  it('oldest first: reads from the last page backwards', async () => {
    const r = reader(many(1000), { order: 'oldest-first' });
    const scan = await scanRecent(r, { service: 'svc', count: 1 }, () => T0 - 150 * 60_000);
    expect(r.pages).toEqual([1, 10, 9]);
    expect(scan.tasks.map((t) => t.id).sort((a, b) => b - a)[0]).toBe(1000);
    expect(scan.tasks).toHaveLength(151);
    // The oldest of the last two pages (page 1, read to learn the order, says nothing of pages 2 to 8).
    expect(scan.shownAfter).toBe(T0 - 199 * 60_000);
  });

  it('a list of one page shows every task; read to its end over several, an ordered one its oldest, a shuffled one nothing', async () => {
    const edge = () => T0 - 600 * 60_000;
    for (const order of ['newest-first', 'oldest-first', 'shuffled'] as const) {
      const one = await scanRecent(reader(many(80), { order }), { service: 'svc', count: 1 }, edge);
      expect(one.shownAfter, order).toBe(Number.NEGATIVE_INFINITY);
    }
    // Tasks created or removed while the pages are walked move the others across them: never "every task".
    const newest = await scanRecent(reader(many(250), { order: 'newest-first' }), { service: 'svc', count: 1 }, edge);
    expect(newest.shownAfter).toBe(T0 - 249 * 60_000);
    // Oldest first: page 1 read to learn the order, then pages 3 and 2 back; page 1's tasks are not counted.
    const oldest = await scanRecent(reader(many(250), { order: 'oldest-first' }), { service: 'svc', count: 1 }, edge);
    expect(oldest.shownAfter).toBe(T0 - 149 * 60_000);
    // A list in no recognisable order (sorted by another time, say) may have moved a task onto a page already read.
    const shuffled = await scanRecent(reader(many(250), { order: 'shuffled' }), { service: 'svc', count: 1 }, edge);
    expect(shuffled.complete).toBe(true);
    expect(shuffled.shownAfter).toBeUndefined();
  });

  it('no recognisable order: reads every page up to the bound, and says when it stopped short', async () => {
    const r = reader(many(2000), { order: 'shuffled' });
    const scan = await scanRecent(r, { service: 'svc', count: 1 }, () => T0 - 60_000);
    expect(scan.complete).toBe(false);
    expect(scan.requests).toBe(MAX_SCAN_PAGES);
    // The pages unread may hold any creation time: the listing proves no task new.
    expect(scan.shownAfter).toBeUndefined();
  });
});

describe('takeSnapshot: what its listing proves', () => {
  it('from when its first page was asked for, and never further back than two minutes before the newest task listed', async () => {
    const tasks = Array.from({ length: 5 }, (_, i) => task(i + 1, 'svc', ['x'], T0 - (4 - i) * 30 * 60_000));
    const clock = new FakeClock(T0 + 1000);
    const snapshot = await takeSnapshot(reader(tasks), { service: 'svc', count: 1 }, clock);
    // One page: every task listed; but a task made since is stamped no earlier than minutes before the newest one.
    expect(snapshot.shown).toEqual({ after: T0 - 120_000, at: T0 + 1000 });
    // Every task of that kind listed so far back is in its ids (here: the newest alone).
    expect([...snapshot.ids]).toEqual([5]);
  });
});

describe('newSinceListing: a task the listing before the send proves new', () => {
  const before = { ids: new Set<number>(), complete: true, listed: new Set([1]), shown: { after: T0 - 1000, at: T0 } };
  const stamped = (id: number, at: number) => ({ id, created_at: new Date(at).toISOString() });

  it('not listed and stamped after what the listing showed in full, the request sent soon after it', () => {
    expect(newSinceListing(before, stamped(2, T0 - 999), T0 + 1000)).toBe(true);
    // Listed, or stamped where the listing did not show every task: no proof.
    expect(newSinceListing(before, stamped(1, T0), T0 + 1000)).toBe(false);
    expect(newSinceListing(before, stamped(2, T0 - 1000), T0 + 1000)).toBe(false);
    expect(newSinceListing(before, { id: 2, created_at: 'soon' }, T0 + 1000)).toBe(false);
    expect(
      newSinceListing({ ids: new Set<number>(), complete: true, listed: new Set<number>() }, stamped(2, T0), T0),
    ).toBe(false);
  });

  it('a request that left more than two minutes after the listing (a rate-limit wait): no proof', () => {
    expect(newSinceListing(before, stamped(2, T0), T0 + 120_000)).toBe(true);
    expect(newSinceListing(before, stamped(2, T0), T0 + 120_001)).toBe(false);
  });
});

/** A create of one item whose request failed 50 ms after it was sent, with an empty complete snapshot. */
const FAILED_FAST = {
  service: 'svc',
  items: ['a'],
  sentAtMs: T0 - 50,
  failedAtMs: T0,
  answered: true,
  before: EMPTY,
};

describe('reconcileCreate', () => {
  it('keeps scanning while the service fails or the task has not appeared yet', async () => {
    const r = reader([task(7, 'svc', ['a'])], { failFirst: 1, appearAfter: 2, offset: 0 });
    const clock = new FakeClock(T0);
    const result = await reconcileCreate(r, {
      service: 'svc',
      items: ['a'],
      sentAtMs: T0 - 100,
      failedAtMs: T0,
      answered: false,
      before: EMPTY,
      clock,
    });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 7 }) });
    expect(r.lists).toBe(4); // every scan of the schedule: a second candidate may appear to the end
  });

  it('gives up after about 10 s when the request failed fast', async () => {
    const r = reader([], { offset: 0 });
    const clock = new FakeClock(T0);
    const result = await reconcileCreate(r, { ...FAILED_FAST, clock });
    expect(result).toEqual({ kind: 'none' });
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  it('says so when no scan could read the task list at all (unread), rather than that nothing matched', async () => {
    const r = reader([], { failFirst: 1000, offset: 0 });
    const result = await reconcileCreate(r, { ...FAILED_FAST, clock: new FakeClock(T0) });
    expect(result).toEqual({ kind: 'unread', why: '502' });
    expect(r.lists).toBe(4);
  });

  it('waits out a timed-out request for as long again: a POST committed 40 s late is still found', async () => {
    const clock = new FakeClock(T0);
    const tasks: Task[] = [];
    const r = reader(
      () => {
        if (clock.nowMs >= T0 + 40_000 && tasks.length === 0) tasks.push(task(9, 'svc', ['a'], clock.nowMs));
        return tasks;
      },
      { offset: 0 },
    );
    const result = await reconcileCreate(r, {
      service: 'svc',
      items: ['a'],
      sentAtMs: T0 - 60_000,
      failedAtMs: T0,
      answered: false,
      before: EMPTY,
      clock,
    });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 9 }) });
    expect(clock.nowMs - T0).toBeLessThanOrEqual(60_000);
  });

  it('an abort during the scans is thrown, not swallowed as a failed scan', async () => {
    const controller = new AbortController();
    const r = reader([], { offset: 0 });
    r.listTasks = async () => {
      controller.abort(new Error('interrupted'));
      throw new Error('aborted request');
    };
    await expect(
      reconcileCreate(r, {
        service: 'svc',
        items: ['a'],
        sentAtMs: T0,
        failedAtMs: T0,
        answered: false,
        before: EMPTY,
        clock: new FakeClock(T0),
        signal: controller.signal,
      }),
    ).rejects.toThrow('aborted request');
  });
});

describe('findReusableTask (--reuse-window)', () => {
  const query = { service: 'svc', items: ['a', 'b'], createdAfter: T0 - 3_600_000 };

  it('never reuses a failed task; a completed one with failed items only with --allow-item-failures', async () => {
    const failed = task(1, 'svc', ['a', 'b'], T0 - 1000, 'failed');
    const partial = task(2, 'svc', ['a', 'b'], T0 - 2000, 'completed');
    partial.items![1]!.status = 'error';
    const r = reader([failed, partial], { offset: 0 });
    expect((await findReusableTask(r, query)).match.kind).toBe('none');
    expect(r.gets).toBe(1); // the failed task is rejected from the listing, without a read
    const allowed = await findReusableTask(r, { ...query, allowItemFailures: true });
    expect(allowed.match).toEqual({ kind: 'found', task: expect.objectContaining({ id: 2 }) });
  });

  it('finds an identical task behind 400 newer ones, reading only same-size candidates', async () => {
    const tasks = [task(1, 'svc', ['b', 'a'], T0 - 5 * 3_600_000)];
    for (let i = 2; i <= 401; i++) tasks.push(task(i, 'svc', ['x', 'y', 'z'], T0 - 5 * 3_600_000 + i * 1000));
    const r = reader(tasks, { offset: 0 });
    const result = await findReusableTask(r, { ...query, createdAfter: T0 - 6 * 3_600_000 });
    expect(result.match).toEqual({ kind: 'found', task: expect.objectContaining({ id: 1 }) });
    expect(result.requests).toBe(5 + 1); // five list pages, one task read
  });

  it('a walk stopped by its page bound reads the newest candidates it listed, at most MAX_CANDIDATE_READS', async () => {
    // 1,200 same-size tasks within the hour, one every 3 s: the 10 pages reach back 50 minutes only.
    const tasks = Array.from({ length: 1200 }, (_, i) => task(i + 1, 'svc', [`f${i}`, 'y'], T0 - (1200 - i) * 3000));
    const r = reader(tasks, { offset: 0 });
    const result = await findReusableTask(r, query);
    expect(result.match.kind).toBe('none');
    expect(result.unfinished).toMatchObject({
      pages: MAX_SCAN_PAGES,
      tasks: 1000,
      reads: { candidates: 1000, looked: MAX_CANDIDATE_READS, covered: false },
    });
    expect(r.gets).toBe(MAX_CANDIDATE_READS);
    expect(result.requests).toBe(MAX_SCAN_PAGES + MAX_CANDIDATE_READS);
  });

  it('a walk stopped by its page bound reuses a match among the candidates it listed', async () => {
    const tasks = Array.from({ length: 1200 }, (_, i) => task(i + 1, 'svc', [`f${i}`, 'y'], T0 - (1200 - i) * 3000));
    tasks.push(task(1201, 'svc', ['a', 'b'], T0 - 50 * 3000 - 1500)); // the 51st newest
    const r = reader(tasks, { offset: 0 });
    const result = await findReusableTask(r, query);
    expect(result.match).toEqual({ kind: 'found', task: expect.objectContaining({ id: 1201 }) });
  });

  it("a walk stopped by its page bound still reads the candidates since a stopped run's send, and reuses its task", async () => {
    const tasks = Array.from({ length: 1200 }, (_, i) => task(i + 1, 'svc', [`f${i}`, 'y'], T0 - (1200 - i) * 3000));
    tasks.push(task(1201, 'svc', ['a', 'b'], T0 - 1000, 'failed'));
    const r = reader(tasks, { offset: 0 });
    const result = await findReusableTask(r, { ...query, anyStatusFrom: T0 - 10_000 });
    expect(result.match).toEqual({ kind: 'found', task: expect.objectContaining({ id: 1201 }) });
    expect(r.gets).toBe(1); // the tasks made since that send (10 s), nothing older
  });

  it('stops at the window edge on a newest-first list', async () => {
    const tasks = Array.from({ length: 500 }, (_, i) => task(i + 1, 'svc', ['q'], T0 - (500 - i) * 3_600_000));
    const r = reader(tasks, { offset: 0 });
    const result = await findReusableTask(r, query);
    expect(result.match.kind).toBe('none');
    expect(r.lists).toBe(1);
  });
});

describe('reconcileCreate after a timeout', () => {
  it('watches one match to the window end: ours landing late next to another client identical task is ambiguous', async () => {
    const clock = new FakeClock(T0);
    const tasks = [task(20, 'svc', ['a'], T0 + 1000)]; // another client's, created while ours was in flight
    const r = reader(
      () => {
        if (clock.nowMs >= T0 + 30_000 && tasks.length === 1) tasks.push(task(21, 'svc', ['a'], clock.nowMs));
        return tasks;
      },
      { offset: 0 },
    );
    const options = { service: 'svc', items: ['a'], sentAtMs: T0 - 60_000, failedAtMs: T0, before: EMPTY, clock };
    expect(await reconcileCreate(r, { ...options, answered: false })).toEqual({
      kind: 'ambiguous',
      ids: [20, 21],
      late: [],
    });
  });

  it('one match that stays alone to the window end is ours', async () => {
    const clock = new FakeClock(T0);
    const r = reader([task(20, 'svc', ['a'], T0 + 1000)], { offset: 0 });
    const options = { service: 'svc', items: ['a'], sentAtMs: T0 - 20_000, failedAtMs: T0, before: EMPTY, clock };
    expect(await reconcileCreate(r, { ...options, answered: false })).toEqual({
      kind: 'found',
      task: expect.objectContaining({ id: 20 }),
    });
    expect(clock.nowMs - T0).toBe(20_000);
  });
});

describe('without a complete snapshot', () => {
  it('a single new-looking match is unproven, never claimed (an identical task from a second before)', async () => {
    // Found by the campaign: the pre-send listing failed, and the previous identical task was 200 ms old.
    const r = reader([task(8, 'svc', ['a'], T0 - 200)], { offset: -900 });
    const before = { ids: new Set<number>(), complete: false };
    expect(await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before })).toEqual({
      kind: 'unproven',
      ids: [8],
    });
  });
});

describe('reconcileCreate: the window and the other local runs', () => {
  const one = (id: number, at: number) => task(id, 'svc', ['a'], at);

  it('case 1: a neighbour task made 3 s after an answered 502 is past the window: named (late), never adopted', async () => {
    // A's POST answered 502 by a proxy at T0 + 50; B's identical task lands at T0 + 3 s. Same clocks (Date: +-1 s),
    // but a Date clock running behind the tasks' one would read the same: it may be A's, so it is named, not adopted.
    const r = { ...reader([one(1, T0 + 3000)]), serverClockBounds: () => ({ low: -900, high: 1000 }) };
    expect(await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY })).toEqual({
      kind: 'late',
      ids: [1],
      blind: [],
    });
    // B on this machine claimed it: no candidate at all.
    const local: LocalRuns = { claimed: () => (task) => task.id === 1, claim: () => ({ ok: true }) };
    const attempt = { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY };
    expect(await reconcileAnswered(r, attempt, local)).toEqual({ kind: 'none' });
  });

  it('a Date header 5 s behind the clock stamping tasks: the request’s own task, past the answered end, is named', async () => {
    // Without the loose end the window closed at failure - 4 s (as the Date read it), before the task: "none".
    const behind = (tasks: Task[]) => ({ ...reader(tasks), serverClockBounds: () => ({ low: -5100, high: -4000 }) });
    const attempt = { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY };
    expect(await reconcileAnswered(behind([one(1, T0 + 20)]), attempt)).toEqual({ kind: 'late', ids: [1], blind: [] });
    // A match inside the window and one past its end: either may be the request's.
    const both = behind([one(1, T0 - 4500), one(2, T0 + 20)]);
    expect(await reconcileAnswered(both, attempt)).toEqual({ kind: 'ambiguous', ids: [1, 2], late: [2] });
    // Past the loose end too (minutes after the answer): not this request's.
    expect(await reconcileAnswered(behind([one(1, T0 + 200_000)]), attempt)).toEqual({ kind: 'none' });
  });

  it('a same-size task past the answered end whose items are not listed: named as such, never beside a match', async () => {
    // Same clocks (Date: +-1 s); another job's task of the same service and size lands 5 s after the 502, and the
    // service leaves its items out: it is no match, yet would be this request's if the Date clock ran behind.
    const bounds = () => ({ low: -900, high: 1000 });
    const blindTask = { ...one(2, T0 + 5000), items: [] };
    const attempt = { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY };
    const alone = { ...reader([blindTask]), serverClockBounds: bounds };
    expect(await reconcileAnswered(alone, attempt)).toEqual({ kind: 'late', ids: [2], blind: [2] });
    // Beside the request's own match in the window, a task whose items are unknown outside it does not stop the recovery.
    const beside = { ...reader([one(1, T0 + 20), blindTask]), serverClockBounds: bounds };
    expect(await reconcileAnswered(beside, attempt)).toEqual({
      kind: 'found',
      task: expect.objectContaining({ id: 1 }),
    });
  });

  it('case 3: whole-second created_at floored below the send time is still found', async () => {
    // Created at 12:00:00.900, shown as 12:00:00; sent at 12:00:00.500.
    const r = reader([{ ...one(4, 0), created_at: '2025-01-15T12:00:00Z' }], { offset: 0 });
    const result = await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0 + 500, before: EMPTY });
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 4 }) });
  });

  it('a task another local run claimed is never a candidate; the one left is ours', async () => {
    const r = reader([one(1, T0 + 10), one(2, T0 + 20)], { offset: 0 });
    const claims: number[] = [];
    const local: LocalRuns = {
      claimed: () => (task) => task.id === 2,
      claim: (t) => (claims.push(t.id), { ok: true }),
    };
    const result = await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY }, local);
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 1 }) });
    expect(claims).toEqual([1]);
  });

  it('a claim the ledger could not check: the candidate is found, marked as not checked against the other runs', async () => {
    const r = reader([one(1, T0 + 10)], { offset: 0 });
    const local: LocalRuns = { claimed: () => () => false, claim: () => ({ ok: true, unchecked: true }) };
    const result = await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY }, local);
    expect(result).toEqual({ kind: 'found', task: expect.objectContaining({ id: 1 }), unchecked: true });
  });

  it('a single candidate another local run may have made is contested (exit 9), never adopted', async () => {
    const r = reader([one(1, T0 + 10)], { offset: 0 });
    const local: LocalRuns = {
      claimed: () => () => false,
      claim: () => ({ ok: false, reason: 'contested', by: 'process 42' }),
    };
    expect(await reconcileAnswered(r, { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY }, local)).toEqual({
      kind: 'contested',
      ids: [1],
      by: 'process 42',
    });
  });

  it('a second identical candidate appearing at the end of the horizon makes it ambiguous', async () => {
    const clock = new FakeClock(T0 + 50);
    const tasks = [one(1, T0 + 10)];
    const r = reader(
      () => {
        if (clock.nowMs >= T0 + 10_000 && tasks.length === 1) tasks.push(one(2, T0 + 5000));
        return tasks;
      },
      { offset: 0 },
    );
    const options = { service: 'svc', items: ['a'], sentAtMs: T0, failedAtMs: T0 + 50, before: EMPTY, clock };
    expect(await reconcileCreate(r, { ...options, answered: false })).toEqual({
      kind: 'ambiguous',
      ids: [1, 2],
      late: [],
    });
  });

  it('a last scan that cannot read the list leaves one candidate unadopted (unfinished)', async () => {
    const clock = new FakeClock(T0 + 50);
    const r = reader([one(1, T0 + 10)], { offset: 0 });
    const list = r.listTasks.bind(r);
    r.listTasks = async (q) => {
      if (clock.nowMs >= T0 + 10_000) throw new UnavailableError('502');
      return list(q);
    };
    const options = { service: 'svc', items: ['a'], sentAtMs: T0, failedAtMs: T0 + 50, before: EMPTY, clock };
    expect(await reconcileCreate(r, { ...options, answered: true })).toEqual({ kind: 'unfinished', ids: [1] });
  });

  it('a server clock 3 s ahead, learnt from Date bounds: a task stamped at send + 3 s is found, one minutes before is not', async () => {
    const bounds = { low: 2500, high: 3500 };
    const ahead = (tasks: Task[]) => ({ ...reader(tasks), serverClockBounds: () => bounds });
    const attempt = { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY };
    expect((await reconcileAnswered(ahead([one(1, T0 + 3010)]), attempt)).kind).toBe('found');
    expect((await reconcileAnswered(ahead([one(1, T0 - 180_000)]), attempt)).kind).toBe('none');
  });

  it('a Date header 5 s ahead of the clock stamping tasks (a gateway): the request’s own task is found, not missed', async () => {
    // Without the spread the window started at send + 5 s, after the task, and a resume sent the chunk again.
    const gateway = (tasks: Task[]) => ({ ...reader(tasks), serverClockBounds: () => ({ low: 4900, high: 6000 }) });
    const attempt = { service: 'svc', items: ['a'], sentAtMs: T0, before: EMPTY };
    expect((await reconcileAnswered(gateway([one(1, T0 + 200)]), attempt)).kind).toBe('found');
  });
});
