/**
 * `watch` with no ids over a long churn: what the follow engine keeps is bounded by `rememberFinished` and the tasks
 * unfinished at once, never by how many tasks came and went; and no task's line is printed twice or missed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { TaskChange } from '../../../../src/core/follow/follow.js';
import { waitExitCode } from '../../../../src/core/follow/outcome.js';
import { isTerminal } from '../../../../src/lib/task-state.js';
import { FakeClock, FakeTaskServer, T0, seededRandom } from './fakes.js';
import type { FakeServerOptions, SimTask } from './fakes.js';

const MIN = 60_000;

interface Churn {
  order: NonNullable<FakeServerOptions['order']>;
  /** Finished tasks on the account before the watch starts. */
  before: number;
  /** A new task every `everyMs`, running `runMs` (every `failEvery`-th fails). */
  everyMs: number;
  runMs: number;
  failEvery: number;
  /** The watch's length. */
  forMs: number;
  remember: number;
  seed: number;
}

async function churn(c: Churn) {
  const clock = new FakeClock();
  const tasks: SimTask[] = [];
  // Created before T0 would need a negative time: the account's old tasks are made at 0 and finished at once.
  for (let i = 0; i < c.before; i++) tasks.push({ id: i + 1, timeline: [[0, 'completed']] });
  const created = Math.floor(c.forMs / c.everyMs);
  for (let i = 1; i <= created; i++) {
    const at = i * c.everyMs;
    tasks.push({
      id: c.before + i,
      createdAfter: at,
      timeline: [
        [at + 500, 'processing'],
        [at + c.runMs, i % c.failEvery === 0 ? 'failed' : 'completed'],
      ],
    });
  }
  const server = new FakeTaskServer(clock, { order: c.order }).add(...tasks);
  const changes: TaskChange[] = [];
  let kept = 0;
  const result = await followTasks({
    reader: server,
    ids: 'all-unfinished',
    follow: true,
    clock,
    random: seededRandom(c.seed),
    intervalMs: 2000,
    until: 'terminal',
    deadline: T0 + c.forMs,
    rememberFinished: c.remember,
    onChange: (change) => changes.push(change),
    onRound: ({ remembered }) => (kept = Math.max(kept, remembered)),
  });
  // Tasks that finished with time left for a discovery (30 s apart at most) and its count read.
  const finishedInTime = tasks
    .filter((t) => (t.createdAfter ?? 0) > 0)
    .filter((t) => (t.timeline?.at(-1)?.[0] ?? Infinity) < c.forMs - MIN)
    .map((t) => t.id);
  // Followed at once: the tasks running, and those finished since the last discovery (30 s apart at most), each until
  // its end is read.
  const followedAtOnce = Math.ceil((c.runMs + MIN) / c.everyMs) + 1;
  return { result, changes, kept, finishedInTime, followedAtOnce };
}

/** Each task's lines by status: a status printed twice is a line printed twice. */
function finalLines(changes: readonly TaskChange[]): Map<number, string[]> {
  const lines = new Map<number, string[]>();
  for (const change of changes)
    if (change.statusChanged && isTerminal(change.task))
      lines.set(change.task.id, [...(lines.get(change.task.id) ?? []), change.task.status]);
  return lines;
}

describe('watch with no ids: what it keeps over a long churn', () => {
  it('keeps at most rememberFinished finished tasks besides the unfinished ones, and prints each end once', async () => {
    // Half an hour (900 rounds): its 720 tasks are more than 5 times what the follow may keep (132 below) and more than
    // 3 times the 200 finished at which the result is cut back to 100, so both bounds are met again and again; a longer
    // churn only repeats the same rounds.
    const run = await churn({
      order: 'desc',
      before: 250,
      everyMs: 2500,
      runMs: 40_000,
      failEvery: 7,
      forMs: 30 * MIN,
      remember: 40,
      seed: 1,
    });
    expect(run.finishedInTime.length).toBeGreaterThan(650);
    // 720 tasks came and finished in the half hour; the follow keeps the newest 40 (plus a quarter of slack) and those
    // running.
    expect(run.kept).toBeLessThanOrEqual(40 + 10 + 2 * run.followedAtOnce);
    const lines = finalLines(run.changes);
    for (const id of run.finishedInTime) expect([id, lines.get(id)?.length]).toEqual([id, 1]);
    // The account's old tasks, finished before the watch, are never printed, however often their pages are read.
    expect([...lines.keys()].filter((id) => id <= 250)).toEqual([]);
    // What the result keeps is bounded too, and still holds a failed task for the exit code.
    expect(run.result.tasks.length).toBeLessThanOrEqual(100 + 2 + run.followedAtOnce);
    expect(waitExitCode(run.result.tasks, { reason: 'done' })).toBe(10);
  });

  it('a watch without --follow still ends 10 when its first task failed, hundreds of tasks earlier', async () => {
    const clock = new FakeClock();
    const tasks: SimTask[] = [{ id: 1, timeline: [[1000, 'failed']] }];
    for (let i = 2; i <= 400; i++) tasks.push({ id: i, timeline: [[2000 + i * 100, 'completed']] });
    const server = new FakeTaskServer(clock, { order: 'desc', listCounts: true }).add(...tasks);
    const result = await followTasks({
      reader: server,
      ids: 'all-unfinished',
      clock,
      random: seededRandom(),
      intervalMs: 2000,
      until: 'terminal',
      rememberFinished: 20,
      onChange: () => undefined,
    });
    expect(result.reason).toBe('done');
    expect(result.tasks.length).toBeLessThanOrEqual(102);
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(10);
  });

  it('property: over any churn, newest-first or oldest-first, every end is printed exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
          before: fc.integer({ min: 0, max: 300 }),
          everyMs: fc.integer({ min: 3000, max: 30_000 }),
          runMs: fc.integer({ min: 1000, max: 4 * MIN }),
          failEvery: fc.integer({ min: 2, max: 10 }),
          forMs: fc.integer({ min: 10 * MIN, max: 25 * MIN }),
          remember: fc.integer({ min: 10, max: 60 }),
          seed: fc.integer({ min: 1, max: 1000 }),
        }),
        async (c) => {
          const run = await churn(c);
          expect(run.kept).toBeLessThanOrEqual(c.remember + Math.ceil(c.remember / 4) + 2 * run.followedAtOnce);
          const lines = finalLines(run.changes);
          for (const [id, statuses] of lines) expect([id, statuses.length]).toEqual([id, 1]);
          for (const id of run.finishedInTime) expect([id, lines.has(id)]).toEqual([id, true]);
        },
      ),
      { numRuns: 8, seed: 13 },
    );
  });
});
