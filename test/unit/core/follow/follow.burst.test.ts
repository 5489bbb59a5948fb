/**
 * `watch --follow` with no ids when more than a page of tasks is created between two reads of the listing: the tasks
 * pushed past page 1 (newest first) or before the last page (oldest first) are read in the same round, never skipped.
 */
import { describe, expect, it } from 'vitest';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { TaskChange } from '../../../../src/core/follow/follow.js';
import { isTerminal } from '../../../../src/lib/task-state.js';
import { FakeClock, FakeTaskServer, seededRandom, T0 } from './fakes.js';
import type { SimTask } from './fakes.js';

interface Burst {
  order: 'asc' | 'desc';
  /** Finished tasks on the account before the watch starts. */
  before: number;
  /** Tasks created at once (1 ms apart), `at` ms after T0, each finished when first listed (a quick service). */
  burst: number;
  at: number;
  /** Afterwards a task every `everyMs` until `forMs`, finished as quickly. */
  everyMs?: number;
  forMs: number;
  /** The service's `created_at` a few ms off its creation (fakes.ts `stampJitterMs`). */
  stampJitterMs?: number;
  /** Each page of the listing takes this long to come (fakes.ts `listMs`). */
  listMs?: number;
}

async function watchBurst(b: Burst) {
  const clock = new FakeClock();
  const tasks: SimTask[] = [];
  for (let i = 1; i <= b.before; i++) tasks.push({ id: i, timeline: [[0, 'completed']] });
  const made = (createdAfter: number): void => {
    tasks.push({ id: tasks.length + 1, createdAfter, timeline: [[createdAfter, 'completed']] });
  };
  for (let i = 0; i < b.burst; i++) made(b.at + i);
  if (b.everyMs !== undefined) for (let t = b.at + b.burst + b.everyMs; t < b.forMs; t += b.everyMs) made(t);
  const server = new FakeTaskServer(clock, {
    order: b.order,
    listCounts: true,
    ...(b.stampJitterMs !== undefined && { stampJitterMs: b.stampJitterMs }),
    ...(b.listMs !== undefined && { listMs: b.listMs }),
  }).add(...tasks);
  const changes: TaskChange[] = [];
  const notices: number[] = [];
  const result = await followTasks({
    reader: server,
    ids: 'all-unfinished',
    follow: true,
    clock,
    random: seededRandom(7),
    intervalMs: 2000,
    until: 'terminal',
    deadline: T0 + b.forMs,
    onChange: (change) => changes.push(change),
    onMissed: (atLeast) => notices.push(atLeast),
  });
  const finalLines = new Map<number, number>();
  for (const change of changes)
    if (change.statusChanged && isTerminal(change.task))
      finalLines.set(change.task.id, (finalLines.get(change.task.id) ?? 0) + 1);
  // Every task created by then had a minute for its end to be read.
  const expected = tasks.filter((t) => (t.createdAfter ?? 0) > 0 && (t.createdAfter ?? 0) < b.forMs - 60_000);
  return { result, finalLines, expected, notices, server };
}

describe('watch --follow with no ids: more than a page created between two reads', () => {
  for (const order of ['desc', 'asc'] as const)
    it(`${order === 'desc' ? 'newest' : 'oldest'} first: each of 250 tasks created between two rounds ends once`, async () => {
      const run = await watchBurst({ order, before: 1000, burst: 250, at: 10_000, forMs: 120_000 });
      expect(run.expected).toHaveLength(250);
      for (const task of run.expected) expect([task.id, run.finalLines.get(task.id)]).toEqual([task.id, 1]);
      expect([...run.finalLines.keys()].filter((id) => id <= 1000)).toEqual([]);
      expect(run.notices).toEqual([]);
    });

  for (const order of ['desc', 'asc'] as const)
    it(`${order} amid a churn of more than a page per round: none is skipped`, async () => {
      // 70 tasks a second: over 100 between two reads of the listing, every round. Two minutes: the 3,803 tasks created
      // in the first (each with a minute left for its end to be read) come over about 25 rounds, each more than a
      // page; a longer churn only repeats those rounds.
      const run = await watchBurst({ order, before: 1000, burst: 250, at: 10_000, everyMs: 14, forMs: 120_000 });
      expect(run.expected.length).toBeGreaterThan(3500);
      const missed = run.expected.filter((t) => run.finalLines.get(t.id) !== 1).map((t) => t.id);
      expect(missed).toEqual([]);
      expect(run.notices).toEqual([]);
    });

  it('newest first amid that churn, each page taking 300 ms to come: none is skipped', async () => {
    // Tasks created while page 1 and 2 are read push page 1's tasks onto page 2: found earlier in the same round, they
    // are news still, so the catch-up reads on to page 3 and beyond. Without that, 231 of these 3,803 went
    // unshown.
    const run = await watchBurst({
      order: 'desc',
      before: 1000,
      burst: 250,
      at: 10_000,
      everyMs: 14,
      forMs: 120_000,
      listMs: 300,
    });
    expect(run.expected.length).toBeGreaterThan(3500);
    const missed = run.expected.filter((t) => run.finalLines.get(t.id) !== 1).map((t) => t.id);
    expect(missed).toEqual([]);
    expect(run.notices).toEqual([]);
  });

  it('more than the catch-up bound between two reads: said once, in how many at least, and the rest still shown', async () => {
    // 1,500 at once: more than page 1 and the 10 pages after it hold, and more than the rate budget reads in an interval.
    const run = await watchBurst({ order: 'desc', before: 100, burst: 1500, at: 10_000, forMs: 40_000 });
    expect(run.notices).toHaveLength(1);
    const [atLeast = 0] = run.notices;
    expect(atLeast).toBeGreaterThanOrEqual(200);
    expect(atLeast).toBeLessThanOrEqual(1100);
    // What the round that found them read is shown, each once (the cursor finds more later).
    expect([...run.finalLines.values()].every((n) => n === 1)).toBe(true);
    expect(run.finalLines.size).toBeGreaterThanOrEqual(atLeast);
  });

  it('a newest-first list whose creation times are a few ms out of its order is still read as one in order', async () => {
    // Stamped up to 5 ms late, tasks created 1 ms apart are listed by id with times that rise and fall by a few ms:
    // no list in no order of creation (its sweep would not say what the catch-up bound missed), the same notice.
    const run = await watchBurst({
      order: 'desc',
      before: 100,
      burst: 1500,
      at: 10_000,
      forMs: 40_000,
      stampJitterMs: 5,
    });
    expect(run.notices).toHaveLength(1);
    expect(run.notices[0]).toBeGreaterThanOrEqual(200);
    expect([...run.finalLines.values()].every((n) => n === 1)).toBe(true);
  });
});
