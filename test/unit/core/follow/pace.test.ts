/** The following targets of docs/performance.md, on virtual time: the end noticed soon after `completed_at`, with few requests. */
import { describe, expect, it } from 'vitest';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { FollowOptions, TaskChange } from '../../../../src/core/follow/follow.js';
import {
  busiestMinute,
  FakeClock,
  FakeTaskServer,
  followManyTasks,
  T0,
  seededRandom,
  steadyWork,
  workEnd,
} from './fakes.js';
import type { SimTask } from './fakes.js';
import { TaskPace } from '../../../../src/core/follow/pace.js';

const SEC = 1000;

async function follow(task: SimTask, overrides: Partial<FollowOptions> = {}) {
  const clock = new FakeClock();
  const server = new FakeTaskServer(clock).add(task);
  const changes: TaskChange[] = [];
  const result = await followTasks({
    reader: server,
    ids: [task.id],
    clock,
    random: seededRandom(),
    intervalMs: 2000,
    until: 'terminal',
    onChange: (change) => changes.push(change),
    ...overrides,
  });
  const end = workEnd(task) ?? 0;
  return { result, changes, server, lateMs: clock.now() - T0 - end, gets: server.count('get') };
}

describe('predictive polling: steady tasks (the following targets)', () => {
  const cases: Array<[string, SimTask, number, number]> = [
    ['0.1 s task', { id: 1, work: steadyWork(1, 100, 100) }, 0.5 * SEC, 3],
    ['10 s task (50 items × 200 ms)', { id: 1, work: steadyWork(50, 200) }, 2 * SEC, 10],
    ['10 s task (200 items × 50 ms)', { id: 1, work: steadyWork(200, 50) }, 2 * SEC, 10],
    ['60 s task (1,200 items × 50 ms)', { id: 1, work: steadyWork(1200, 50) }, 2 * SEC, 15],
    ['75 s task (375 items × 200 ms)', { id: 1, work: steadyWork(375, 200) }, 2 * SEC, 15],
    ['10-minute task (3,000 items × 200 ms)', { id: 1, work: steadyWork(3000, 200) }, 3 * SEC, 40],
  ];
  for (const [name, task, lateBound, getBound] of cases) {
    it(`${name}: the end noticed ≤ ${lateBound / SEC} s after completed_at, ≤ ${getBound} GETs`, async () => {
      const { result, lateMs, gets } = await follow(task);
      expect(result.reason).toBe('done');
      expect(result.tasks[0]?.status).toBe('completed');
      expect(lateMs).toBeGreaterThanOrEqual(0);
      expect(lateMs).toBeLessThanOrEqual(lateBound);
      expect(gets).toBeLessThanOrEqual(getBound);
    });
  }

  it('the first poll after the first look comes within a fraction of a second', async () => {
    const { server } = await follow({ id: 1, work: steadyWork(1, 100, 100) });
    expect(server.calls).toHaveLength(2);
  });
});

describe('predictive polling: item progress is news', () => {
  it('reports moving counts while the status stays processing, with a rate and a predicted end', async () => {
    const { changes } = await follow({ id: 1, work: steadyWork(200, 50) });
    const processing = changes.filter((c) => c.task.status === 'processing');
    const counts = new Set(processing.map((c) => c.counts.completed));
    expect(counts.size).toBeGreaterThanOrEqual(3);
    expect(processing.filter((c) => c.statusChanged)).toHaveLength(1);
    const late = processing[processing.length - 1];
    expect(late?.itemsPerSecond).toBeCloseTo(20, 0);
    expect(Math.abs((late?.predictedEnd ?? 0) - (T0 + 10_200))).toBeLessThan(1000);
    // Never the same counts and status twice.
    const keys = changes.map((c) => `${c.task.status} ${c.counts.completed}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('predictive polling: predictions recover when the rate changes', () => {
  it('a slow item in the middle (5 s instead of 100 ms)', async () => {
    const durations = Array.from({ length: 100 }, (_, i) => (i === 60 ? 5000 : 100));
    const { lateMs, gets } = await follow({ id: 1, work: { startAt: 200, durations } });
    expect(lateMs).toBeLessThanOrEqual(2 * SEC);
    expect(gets).toBeLessThanOrEqual(20);
  });

  it('a 60 s stall, then the same rate again', async () => {
    const durations = Array.from({ length: 200 }, (_, i) => (i === 100 ? 60_000 : 100));
    const { lateMs, gets } = await follow({ id: 1, work: { startAt: 200, durations } });
    expect(lateMs).toBeLessThanOrEqual(2 * SEC);
    expect(gets).toBeLessThanOrEqual(25);
  });

  it('the rate halves half-way (a 60 s task that takes 90 s)', async () => {
    const durations = Array.from({ length: 600 }, (_, i) => (i < 300 ? 100 : 200));
    const { lateMs, gets } = await follow({ id: 1, work: { startAt: 200, durations } });
    expect(lateMs).toBeLessThanOrEqual(2 * SEC);
    expect(gets).toBeLessThanOrEqual(20);
  });

  it('the rate doubles half-way', async () => {
    const durations = Array.from({ length: 600 }, (_, i) => (i < 300 ? 200 : 100));
    const { lateMs, gets } = await follow({ id: 1, work: { startAt: 200, durations } });
    expect(lateMs).toBeLessThanOrEqual(2 * SEC);
    expect(gets).toBeLessThanOrEqual(20);
  });
});

describe('predictive polling: many tasks and odd servers', () => {
  it('300 tasks against a server enforcing 100/min without headers: ≤ 4 requests a round, ≤ 100 in any minute, no 429', async () => {
    const { result, server, rounds } = await followManyTasks({
      listCounts: true,
      rateLimit: { limit: 100, headers: false },
    });
    expect(result.reason).toBe('done');
    expect(Math.max(...rounds)).toBeLessThanOrEqual(4);
    expect(busiestMinute(server.times)).toBeLessThanOrEqual(100);
    expect(server.limited).toBe(0);
  });

  it('a task whose GET has no items is polled at the normal pace, not in a hot loop', async () => {
    const clock = new FakeClock();
    const server = new FakeTaskServer(clock).add({ id: 1, noItems: true, timeline: [[60_000, 'completed']] });
    const changes: TaskChange[] = [];
    const result = await followTasks({
      reader: server,
      ids: [1],
      clock,
      random: seededRandom(),
      intervalMs: 2000,
      until: 'terminal',
      onChange: (change) => changes.push(change),
    });
    expect(result.reason).toBe('done');
    expect(server.count()).toBeLessThanOrEqual(15);
    expect(changes[0]?.counts.completed).toBeUndefined();
  });
});

describe('the rate a person reads', () => {
  it('is the average over the kept samples, not the last step: a burst after a slow spell shows as what it is', () => {
    const pace = new TaskPace({ startMs: 1000, maxMs: 30_000, factor: 1.5, jitter: 0, random: () => 0.5 }, T0);
    const seen = (at: number, done: number) => pace.observe(T0 + at, { done, total: 20, statusChanged: false });
    seen(0, 0);
    seen(10_000, 5);
    seen(11_000, 7); // two items in the last second: 2/s for that step, 7 in 11 s overall
    expect(pace.itemsPerSecond()).toBeCloseTo(7 / 11, 3);
    // The end a person is told: the 13 items left at that average, from the last look.
    expect(pace.estimatedEnd()).toBeCloseTo(T0 + 11_000 + 13 / (7 / 11_000), -1);
    // Polling may still plan on the faster step (an early look costs one request).
    expect(pace.predictedEnd()).toBeLessThan(pace.estimatedEnd() ?? 0);
  });
});
