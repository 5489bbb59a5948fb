/** The window arithmetic of exactly-once create, on a fake clock: timestamp forms, skew, resolution. */
import { describe, expect, it } from 'vitest';
import {
  ANSWERED_MARGIN_MS,
  DATE_CLOCK_SPREAD_MS,
  earlierTaskBounds,
  inWindow,
  ServerClock,
  stampedBefore,
  timesInOrderPerTask,
  UNKNOWN_OFFSET_MS,
} from '../../../src/core/server-time.js';
// T0 (12:00:00.000Z) is the local clock's "now" in these tests.
import { T0 } from '../../clock.js';

describe('ServerClock', () => {
  it('nothing observed: two minutes either way, and a resolution of 1 s', () => {
    const clock = new ServerClock();
    expect(clock.offset()).toEqual({ low: -UNKNOWN_OFFSET_MS, high: UNKNOWN_OFFSET_MS });
    expect(clock.resolutionMs()).toBe(1000);
    expect(clock.window(T0 + 500)).toEqual({ from: T0 - UNKNOWN_OFFSET_MS, to: Number.POSITIVE_INFINITY });
  });

  it('a Date header bounds the offset from both sides (whole seconds, between send and answer)', () => {
    const clock = new ServerClock();
    // Sent at T0, answered at T0 + 200; the server's clock is 3 s ahead, its Date reads 12:00:03.
    clock.noteDate(T0 + 3000, T0, T0 + 200);
    expect(clock.offset()).toEqual({ low: 2800, high: 4000 });
    const learnt = new ServerClock();
    learnt.learn({ low: 2800, high: 4000 }); // the same bounds as the client's Date headers give them
    expect(learnt.offset()).toEqual(clock.offset());
  });

  it('a Date written by a clock 5 s ahead of the one stamping tasks (a gateway): the task of a send is in its window', () => {
    const clock = new ServerClock();
    clock.noteDate(T0 + 5000, T0, T0 + 100);
    // Sent at T0 + 1000 (local, the same as the application's clock), stamped 12:00:01.200; unanswered, or a failure
    // answered at T0 + 1300. The window starts no later than DATE_CLOCK_SPREAD_MS below what the Date reads.
    expect(clock.window(T0 + 1000).from).toBe(Math.floor((T0 + 1000 + 4900 - DATE_CLOCK_SPREAD_MS) / 1000) * 1000);
    expect(inWindow('2025-01-15T12:00:01.200Z', clock.window(T0 + 1000))).toBe(true);
    expect(inWindow('2025-01-15T12:00:01Z', clock.window(T0 + 1000, T0 + 1300))).toBe(true);
    // Tasks seen move the start fully: a task stamped 12:00:00.901 was listed at T0 + 1000 (1 ms resolution).
    clock.noteSeen('2025-01-15T12:00:00.901Z', T0 + 1000);
    expect(clock.window(T0 + 1000).from).toBe(T0 + 900);
    expect(inWindow('2025-01-15T12:00:01.200Z', clock.window(T0 + 1000))).toBe(true);
  });

  it('a Date 5 minutes ahead of the clock stamping tasks: once a task this run created shows it, the tasks place the start', () => {
    const clock = new ServerClock();
    clock.noteDate(T0 + 300_000, T0, T0 + 100);
    // Before any task of its own: the start is DATE_CLOCK_SPREAD_MS below the Date, past a task stamped at the send.
    expect(inWindow('2025-01-15T12:00:01.200Z', clock.window(T0 + 1000))).toBe(false);
    clock.noteCreated('2025-01-15T12:00:00.511Z', T0 + 500, T0 + 520);
    // Learnt again from Date headers afterwards (each scan does): the start stays where the tasks put it.
    clock.learn({ low: 299_900, high: 301_000 });
    // Stamped 12:00:00.511 (1 ms resolution), answered at T0 + 520: the offset is at least -10 ms.
    expect(clock.window(T0 + 1000).from).toBe(T0 + 1000 - 10);
    expect(inWindow('2025-01-15T12:00:01.200Z', clock.window(T0 + 1000))).toBe(true);
  });

  it("an earlier run's own tasks (a resume's journal) place the start only once they show the Date clock that far ahead", () => {
    // Its tasks were stamped between their sends and the next sends: the offset was in [-500, 1000].
    const ahead = new ServerClock();
    ahead.learnEarlierTasks({ low: -500, high: 1000 });
    ahead.noteDate(T0 + 300_000, T0, T0 + 100);
    // Sent at T0 + 1000: from T0 + 500, less a minute for this machine's clock set since, floored to the resolution.
    expect(ahead.window(T0 + 1000).from).toBe(T0 - 60_000);
    expect(inWindow('2025-01-15T12:00:01Z', ahead.window(T0 + 1000))).toBe(true);
    // Bounds that contradict each other (a clock that stepped between the runs) say nothing.
    const stepped = new ServerClock();
    stepped.learnEarlierTasks({ low: -500, high: 1000 });
    stepped.learnEarlierTasks({ low: 5000, high: 9000 });
    stepped.noteDate(T0 + 300_000, T0, T0 + 100);
    expect(stepped.window(T0 + 1000).from).toBe(Math.floor((T0 + 1000 + 299_900 - DATE_CLOCK_SPREAD_MS) / 1000) * 1000);
    // A Date that agrees with them (within the spread): they do not narrow the window, which the Date places.
    const level = new ServerClock();
    level.learnEarlierTasks({ low: -500, high: 1000 });
    level.noteDate(T0 + 3000, T0, T0 + 100);
    expect(level.window(T0 + 1000).from).toBe(Math.floor((T0 + 1000 + 2900 - DATE_CLOCK_SPREAD_MS) / 1000) * 1000);
  });

  it('a Date written by a clock 5 s behind the one stamping tasks: the strict end misses the task, the loose end holds it', () => {
    const clock = new ServerClock();
    clock.noteDate(T0 - 5000, T0, T0 + 100);
    // Sent at T0 + 1000, a 502 answered at T0 + 1300; the task was stamped 12:00:01.200 (the local clock's time).
    const strict = clock.window(T0 + 1000, T0 + 1300);
    expect(strict.to).toBe(T0 + 1300 - 4000 + ANSWERED_MARGIN_MS);
    expect(inWindow('2025-01-15T12:00:01.200Z', strict)).toBe(false);
    // The loose end: the Date's upper bound moved DATE_CLOCK_SPREAD_MS later, as the start moves earlier.
    const loose = clock.looseWindow(T0 + 1000, T0 + 1300);
    expect(loose).toEqual({ from: strict.from, to: T0 + 1300 - 4000 + DATE_CLOCK_SPREAD_MS + ANSWERED_MARGIN_MS });
    expect(inWindow('2025-01-15T12:00:01.200Z', loose)).toBe(true);
    // Unanswered: both open.
    expect(clock.looseWindow(T0 + 1000).to).toBe(Number.POSITIVE_INFINITY);
  });

  it('a task this run created pins the end: the loose window is then the strict one', () => {
    const clock = new ServerClock();
    clock.noteDate(T0 - 5000, T0, T0 + 100);
    clock.noteCreated('2025-01-15T12:00:00.511Z', T0 + 500, T0 + 520);
    const strict = clock.window(T0 + 1000, T0 + 1300);
    expect(clock.looseWindow(T0 + 1000, T0 + 1300)).toEqual(strict);
    expect(inWindow('2025-01-15T12:00:01.200Z', strict)).toBe(true);
    // Nothing learnt at all: the end is already two minutes loose, and stays so.
    const blank = new ServerClock();
    expect(blank.looseWindow(T0, T0 + 50)).toEqual(blank.window(T0, T0 + 50));
  });

  it('a server 3 s behind, learnt from its tasks: the window moves back with it', () => {
    const clock = new ServerClock();
    // Sent at T0 - 1000, answered at T0 - 900, stamped 11:59:56 (3 s behind, whole seconds).
    clock.noteCreated('2025-01-15T11:59:56Z', T0 - 1000, T0 - 900);
    const { low, high } = clock.offset();
    expect([low, high]).toEqual([-3000 - 1000 - 100, -3000 + 1000]);
    // Sent at T0 + 500 (local): the task reads 11:59:56 or later, floored to whole seconds.
    expect(clock.window(T0 + 500).from).toBe(T0 - 4000);
    // Answered at T0 + 600: no later than T0 + 600 - 2000 + the margin.
    expect(clock.window(T0 + 500, T0 + 600).to).toBe(T0 + 600 - 2000 + ANSWERED_MARGIN_MS);
  });

  it('the resolution: whole seconds until a fraction shows otherwise; the send is floored to it', () => {
    const clock = new ServerClock({ low: 0, high: 0 });
    clock.noteSeen('2025-01-15T11:59:00Z', T0);
    expect(clock.resolutionMs()).toBe(1000);
    // Case 3 (test/README.md): sent at 12:00:00.500, created at 12:00:00.900, shown as 12:00:00: inside the window.
    const window = clock.window(T0 + 500, T0 + 1000);
    expect(inWindow('2025-01-15T12:00:00Z', window)).toBe(true);
    expect(inWindow('2025-01-15T11:59:59Z', window)).toBe(false);
    clock.noteSeen('2025-01-15T11:59:00.123Z', T0);
    expect(clock.resolutionMs()).toBe(1);
    expect(clock.window(T0 + 500).from).toBe(T0 + 500);
  });

  it('a created task narrows the offset to its resolution (milliseconds)', () => {
    const clock = new ServerClock();
    clock.noteDate(T0 + 5000, T0, T0 + 50); // 5 s ahead
    // Sent at T0 + 1000, answered at T0 + 1030, stamped 12:00:06.011 on the server.
    clock.noteCreated('2025-01-15T12:00:06.011Z', T0 + 1000, T0 + 1030);
    const { low, high } = clock.offset();
    expect(low).toBeGreaterThanOrEqual(4979);
    expect(high).toBeLessThanOrEqual(5012);
  });

  it('tasks seen before sending raise the lower bound (a server ahead, without any Date header)', () => {
    const clock = new ServerClock();
    clock.noteSeen('2025-01-15T12:00:04.500Z', T0);
    expect(clock.offset().low).toBe(4500 - 100);
    expect(clock.offset().high).toBe(4400 + UNKNOWN_OFFSET_MS);
  });

  it('contradicting observations (the server clock stepped) widen the bounds, never empty them', () => {
    const clock = new ServerClock();
    clock.noteCreated('2025-01-15T12:00:00.005Z', T0, T0 + 10); // [-6, 6]
    clock.noteCreated('2025-01-15T12:00:10.105Z', T0 + 100, T0 + 110); // [9994, 10006]: contradicts
    const { low, high } = clock.offset();
    expect(low).toBeLessThanOrEqual(-6);
    expect(high).toBeGreaterThanOrEqual(10_006);
  });

  it('an unanswered failure leaves the window open; an unreadable created_at is always inside', () => {
    const clock = new ServerClock({ low: 0, high: 0 });
    const window = clock.window(T0);
    expect(window.to).toBe(Number.POSITIVE_INFINITY);
    expect(inWindow('2025-01-15T13:00:00Z', window)).toBe(true);
    expect(inWindow('not a time', clock.window(T0, T0 + 10))).toBe(true);
  });
});

describe("earlierTaskBounds: what a job's answered tasks show of the clock stamping them", () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  it('stamped after its send, and before the next send when that came soon after', () => {
    const answered = { answered: true, created_at: iso(T0 + 123) };
    const bounds = earlierTaskBounds([{ send: { sent_at: T0 }, task: answered }, { send: { sent_at: T0 + 500 } }]);
    expect(bounds).toEqual({ low: 123 - 1 - 500, high: 123 + 1 });
    // The next send a day later (another run's): it says nothing of the low side.
    const later = earlierTaskBounds([
      { send: { sent_at: T0 }, task: answered },
      { send: { sent_at: T0 + 86_400_000 } },
    ]);
    expect(later).toEqual({ low: Number.NEGATIVE_INFINITY, high: 124 });
    // A task reused or adopted (not its POST's answer) says nothing.
    expect(earlierTaskBounds([{ send: { sent_at: T0 }, task: { created_at: iso(T0 + 123) } }])).toBeUndefined();
  });
});

describe('stampedBefore: a created_at clearly before a Date received before the send', () => {
  const date = T0 + 10_000; // 12:00:10 on the server's clock
  it('whole seconds: more than 2 minutes and the timestamp’s second before it, never less', () => {
    expect(stampedBefore('2025-01-15T11:58:08Z', date)).toBe(true);
    expect(stampedBefore('2025-01-15T11:58:09Z', date)).toBe(false);
    expect(stampedBefore('2025-01-15T11:00:00.000+00:00', date)).toBe(true);
  });
  it('Date and created_at from two clocks of one service, seconds apart: never', () => {
    expect(stampedBefore('2025-01-15T12:00:05Z', date)).toBe(false);
    expect(stampedBefore('2025-01-15T11:58:40.123Z', date)).toBe(false);
  });
  it('a finer timestamp narrows the margin to 2 minutes and its own resolution', () => {
    // `.95`, `.99`: 10 ms resolution, so before 11:58:09.990.
    expect(stampedBefore('2025-01-15T11:58:09.95Z', date)).toBe(true);
    expect(stampedBefore('2025-01-15T11:58:09.99Z', date)).toBe(false);
  });
  it('no Date seen, or a time that cannot be read: never', () => {
    expect(stampedBefore('2025-01-15T11:00:00Z', undefined)).toBe(false);
    expect(stampedBefore('yesterday', date)).toBe(false);
  });
});

describe("timesInOrderPerTask: a task's records never go back, within a bounded memory", () => {
  it("a time before the task's last is given that one; other tasks keep their own; a last record forgets the task", () => {
    const inOrder = timesInOrderPerTask(10);
    expect(inOrder(1, T0 + 5000, false)).toBe(T0 + 5000);
    expect(inOrder(2, T0 + 1000, false)).toBe(T0 + 1000); // another task: its own time
    expect(inOrder(1, T0 + 2000, false)).toBe(T0 + 5000);
    expect(inOrder(1, T0 + 3000, true)).toBe(T0 + 5000); // its last record, and then forgotten
    expect(inOrder(1, T0, false)).toBe(T0);
  });

  it('remembers at most `remember` tasks, the one seen least recently forgotten first', () => {
    const inOrder = timesInOrderPerTask(2);
    inOrder(1, T0 + 5000, false);
    inOrder(2, T0 + 5000, false);
    inOrder(1, T0 + 6000, false); // task 1 seen again: task 2 is now the least recent
    inOrder(3, T0 + 5000, false); // a third task: task 2 forgotten
    expect(inOrder(1, T0, false)).toBe(T0 + 6000);
    expect(inOrder(3, T0, false)).toBe(T0 + 5000);
    expect(inOrder(2, T0, false)).toBe(T0);
  });
});
