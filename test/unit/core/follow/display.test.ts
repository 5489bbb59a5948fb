import { beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../../src/api/schemas.js';
import { FollowDisplay } from '../../../../src/core/follow/display.js';
import { clockTime } from '../../../../src/lib/duration.js';
import type { TaskChange } from '../../../../src/core/follow/follow.js';
import { itemCounts } from '../../../../src/lib/task-state.js';
import { createMemoryIO, createMemoryStream } from '../../../../src/output/memory-io.js';
import { loadChalk } from '../../../../src/output/colour.js';
import { createProgress } from '../../../../src/output/progress.js';
import { FakeClock, T0 } from '../../../clock.js';

// Colour is loaded by the command before it paints (output/colour.ts); a file run first in its worker must load it too.
beforeAll(loadChalk);

function task(id: number, status: string, completed: number, total = 10): Task {
  return {
    id,
    service: 's',
    status,
    total_items: total,
    cost: 1,
    created_at: new Date(T0).toISOString(),
    completed_items: completed,
    failed_items: 0,
    ...(status === 'completed' ? { completed_at: new Date(T0 + 5000).toISOString() } : {}),
  };
}

function change(t: Task, at: number, statusChanged = true): TaskChange {
  return { task: t, counts: itemCounts(t), statusChanged, at };
}

function live(rows: number, columns = 80, color = false) {
  const stderr = Object.assign(createMemoryStream(true, columns), { rows });
  const { io } = createMemoryIO();
  const clock = new FakeClock();
  const progress = createProgress({ io: { ...io, stderr }, format: 'table', color, tickMs: 0 });
  // Each frame starts back at the block's first column (CSI 1G); the cursor moves and line clears are left out.
  const frames = () =>
    stderr
      .text()
      .split('\x1b[1G')
      .map((frame) => frame.replace(/\x1b\[\d*[ABK]/g, ''))
      .filter((frame) => frame !== '');
  return { progress, clock, frames, advance: (ms: number) => clock.advance(ms) };
}

describe('FollowDisplay on a terminal', () => {
  it('draws nothing for tasks not seen yet (no placeholder lines)', () => {
    const { progress, clock, frames } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1, 2] });
    display.change(change(task(1, 'processing', 3), T0));
    expect(frames().pop()).toMatch(/^⠋ task 1 processing █+░+ 30% +3\/10 · 0:00$/);
    expect(frames().join('')).not.toContain('task 2');
  });

  it('a narrow terminal keeps the counts: the times go, the bar shortens, then goes', () => {
    const at = (columns: number, failed: number) => {
      const { progress, clock, frames } = live(24, columns);
      const t = { ...task(1, 'processing', 40, 100), failed_items: failed };
      const display = new FollowDisplay({ progress, clock, ids: [1] });
      display.change({ ...change(t, T0), itemsPerSecond: 10, predictedEnd: T0 + 9000 });
      return frames().pop() ?? '';
    };
    expect(at(80, 2)).toMatch(/^⠋ task 1 processing █+░+ 42% +40\/100 2 failed 10\.0\/s est\. 0:09 left · 0:00$/);
    expect(at(60, 2)).toMatch(/^⠋ task 1 processing █+░+ 42% +40\/100 2 failed · 0:00$/);
    expect(at(70, 2)).toMatch(/^⠋ task 1 processing █+░+ 42% +40\/100 2 failed est\. 0:09 left · 0:00$/);
    // A live line leaves three columns free (output/width.ts liveLineBudget): 42 columns give it 39.
    expect(at(42, 0)).toBe('⠋ task 1 processing ██░░░░░ 40%  40/100');
    expect(at(42, 2)).toBe('⠋ task 1 processing 42% 40/100 2 failed');
    expect(at(33, 2)).toBe('⠋ 1 processing 40/100 2 failed');
    expect(at(40, 2)).toBe('⠋ task 1 processing 40/100 2 failed');
  });

  it('the bars of a block keep one width: a task with failed items narrows every bar, not its own alone', () => {
    const { progress, clock, frames } = live(24, 80);
    const display = new FollowDisplay({ progress, clock, ids: [1, 2, 3] });
    display.change({ ...change(task(1, 'processing', 2), T0), itemsPerSecond: 2.5, predictedEnd: T0 + 3000 });
    const failing = { ...change({ ...task(2, 'processing', 1), failed_items: 1 }, T0), itemsPerSecond: 2.5 };
    display.change({ ...failing, predictedEnd: T0 + 3000 });
    display.change({ ...change(task(3, 'processing', 2), T0), itemsPerSecond: 2.5, predictedEnd: T0 + 3000 });
    const block = (frames().pop() ?? '').split('\n').filter((row) => row.includes('task'));
    const bars = block.map((row) => /[█░]+/.exec(row)?.[0].length);
    expect(bars, block.join('\n')).toHaveLength(3);
    expect(new Set(bars).size, block.join('\n')).toBe(1);
    expect(bars[0]).toBeGreaterThanOrEqual(4);
  });

  it('the final line is fitted too: nothing the terminal would wrap', () => {
    const { progress, clock, frames } = live(24, 40);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change(change({ ...task(1, 'completed', 2, 3), failed_items: 1 }, T0));
    display.finish(false);
    expect(frames().join('\n')).toMatch(/\n✗ task 1 completed 100% 2\/3 1 failed\n/);
  });

  it('the final line of a task still running (a wait that timed out) keeps its state, never a rate or an estimate', () => {
    const { progress, clock, frames, advance } = live(24, 80);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change({ ...change(task(1, 'processing', 4), T0), itemsPerSecond: 2, predictedEnd: T0 + 3000 });
    advance(2000);
    display.finish(false);
    const last =
      frames()
        .join('\n')
        .split('\n')
        .filter((row) => row.includes('task 1'))
        .pop() ?? '';
    // The icon's column stays, blank: the bar lines up with those of tasks that ended.
    expect(last).toMatch(/^ {2}task 1 processing █+░+ 40% +4\/10 · 0:02$/);
  });

  it('the elapsed time ticks between polls', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change(change(task(1, 'processing', 3), T0));
    advance(7000);
    progress.refresh();
    expect(frames().pop()).toMatch(/ · 0:07$/);
  });

  it('shows only the counts the service reported: nothing moves between polls; the time left is an estimate', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    const t = task(1, 'processing', 10, 100);
    display.change({ ...change(t, T0), itemsPerSecond: 10, predictedEnd: T0 + 9000 });
    advance(3000);
    progress.refresh();
    expect(frames().pop()).toMatch(/ 10% +10\/100 10\.0\/s est\. 0:06 left · 0:03$/);
    advance(120_000);
    progress.refresh();
    expect(frames().pop()).toMatch(/ 10% +10\/100 /);
    display.change(change(task(1, 'completed', 100, 100), clock.now()));
    expect(frames().pop()).toMatch(/^✓ task 1 completed █+ 100% +100\/100 /);
  });

  it('the time left counts down like a timer: 400 ms left is "0:01 left", never "0:00 left"', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change({ ...change(task(1, 'processing', 9, 10), T0), itemsPerSecond: 5, predictedEnd: T0 + 2400 });
    advance(2000);
    progress.refresh();
    expect(frames().pop()).toMatch(/ est\. 0:01 left · 0:02$/);
  });

  it('an estimate whose time has passed with items left says so ("est. overdue"), never "ending now"', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change({ ...change(task(1, 'processing', 16, 41), T0), itemsPerSecond: 5, predictedEnd: T0 + 2000 });
    advance(4000);
    progress.refresh();
    const line = frames().pop() ?? '';
    expect(line).toMatch(/ 16\/41 5\.00\/s est\. overdue · 0:04$/);
    expect(line).not.toMatch(/ending now/);
  });

  it('a service that stops answering: said in place with the time since the last answer; no rate or estimate', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    const t = task(1, 'processing', 59, 60);
    display.change({ ...change(t, T0), itemsPerSecond: 2, predictedEnd: T0 + 500 });
    advance(12_000);
    display.unanswered('reading task 1: could not reach 127.0.0.1:9 (connection refused)');
    // Two lines: how long nothing came, then why, each with the whole width (at 80 columns the reason was cut).
    const [head, why, line] = (frames().pop() ?? '').split('\n');
    expect(head).toBe('! polling, last answer 12s ago');
    expect(why).toBe('  reading task 1: could not reach 127.0.0.1:9 (connection refused)');
    expect(line).toMatch(/ 98% +59\/60 · 0:12$/);
    expect(line).not.toMatch(/\/s|est\./);
    advance(20_000);
    progress.refresh();
    expect(frames().pop()).toMatch(/last answer 32s ago/);
    display.poll(change({ ...t, completed_items: 60 }, clock.now(), false));
    expect(frames().pop()).not.toMatch(/polling, last answer/);
  });

  it('a service that never answered: "no good answer yet", as watch says, not a last answer timed from the start', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    advance(59_000);
    const line = display.unanswered('reading task 1: the server answered HTTP 502 after 4 attempts');
    expect(line).toBe(
      'no good answer yet (59s), still polling: reading task 1: the server answered HTTP 502 after 4 attempts',
    );
    const [head] = (frames().pop() ?? '').split('\n');
    expect(head).toBe('! no good answer yet (59s), still polling');
    expect(frames().join('')).not.toMatch(/last answer/);
    display.poll(change(task(1, 'processing', 3), clock.now()));
    advance(12_000);
    display.unanswered('reading task 1: the server answered HTTP 502 after 4 attempts');
    expect((frames().pop() ?? '').split('\n')[0]).toBe('! polling, last answer 12s ago');
  });

  it('a stall at 80 and 40 columns: the give-up countdown shown, the text wrapped within the block, never cut', () => {
    const reason = 'reading task 12: http://127.0.0.1:44555 did not answer within 35s (2 attempts)';
    for (const columns of [80, 40]) {
      const { progress, clock, frames, advance } = live(24, columns);
      const display = new FollowDisplay({ progress, clock, ids: [12] });
      display.change({ ...change(task(12, 'processing', 16, 41), T0), itemsPerSecond: 2, predictedEnd: T0 + 500 });
      advance(42_000);
      display.unanswered(reason);
      display.outage({ ongoing: true, giveUpAt: T0 + 127_000 });
      const lines = (frames().pop() ?? '').split('\n');
      const block = lines.slice(0, -1);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(columns - 1);
      expect(block.join(' ').replace(/\s+/g, ' ')).toBe(
        `! polling, last answer 42s ago (giving up in 1m25s) ${reason}`,
      );
      expect(block.join('\n')).not.toContain('…');
      expect(lines.at(-1)).toMatch(/^\S task 12 processing /);
      advance(5000);
      progress.refresh();
      expect(frames().pop()).toContain('giving up in 1m20s');
    }
  });

  it('a read that hangs before it fails: after 5 s the block says it waits for the answer; no rate or estimate', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    const t = task(1, 'processing', 59, 60);
    display.change({ ...change(t, T0), itemsPerSecond: 2, predictedEnd: T0 + 500 });
    display.round();
    advance(3000);
    display.roundStarted();
    advance(4000);
    progress.refresh();
    expect(frames().pop()).not.toMatch(/waiting/); // a round answered within 5 s is an ordinary poll
    advance(9000);
    progress.refresh();
    const [head, line] = (frames().pop() ?? '').split('\n');
    expect(head).toMatch(/^! waiting for the service's answer \(13s\), last answer 16s ago$/);
    expect(line).not.toMatch(/\/s|est\./);
    display.poll(change({ ...t, completed_items: 60 }, clock.now(), false));
    display.round();
    expect(frames().pop()).not.toMatch(/waiting/);
  });

  it('the estimate holds from when the next answer was due until it comes, and counts on after it', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    const t = task(1, 'processing', 19, 200);
    const estimate = () => / est\. (\S+) left /.exec(frames().pop() ?? '')?.[1];
    display.change({ ...change(t, T0), itemsPerSecond: 5, predictedEnd: T0 + 36_000 });
    display.round();
    advance(2000);
    progress.refresh();
    expect(estimate()).toBe('0:34'); // between rounds the estimate counts down
    display.roundStarted();
    advance(3000);
    progress.refresh();
    expect(estimate()).toBe('0:34'); // no answer yet: the count is frozen, the estimate too
    advance(1900);
    progress.refresh();
    expect(estimate()).toBe('0:34');
    display.poll({ ...change({ ...t, completed_items: 40 }, clock.now(), false), predictedEnd: T0 + 36_000 });
    display.round();
    advance(1000);
    progress.refresh();
    expect(estimate()).toBe('0:29');
  });

  it('the elapsed time holds while an answer is awaited: tasks that ended in the stall end at their own time', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1, 2] });
    const lastOf = (id: number) =>
      frames()
        .join('\n')
        .split('\n')
        .filter((row) => row.includes(`task ${id} `))
        .pop() ?? '';
    advance(2000);
    for (const id of [1, 2]) display.change(change(task(id, 'processing', 4), clock.now()));
    display.round();
    advance(1000);
    display.roundStarted();
    // The service stopped (SIGSTOP): 40 s without an answer.
    for (let i = 0; i < 40; i++) {
      advance(1000);
      progress.refresh();
    }
    expect(lastOf(1)).toMatch(/ · 0:03$/);
    // It answers, one task at a time: each had completed 5 s after it started, during the stall. The block is drawn
    // between the two answers, with task 2 not read yet.
    display.poll(change(task(1, 'completed', 10), clock.now()));
    progress.refresh();
    expect(lastOf(2)).toMatch(/ · 0:03$/);
    display.poll(change(task(2, 'completed', 10), clock.now()));
    display.round();
    display.finish(false);
    expect(lastOf(1)).toMatch(/^✓ task 1 completed .* · 0:05$/);
    expect(lastOf(2)).toMatch(/^✓ task 2 completed .* · 0:05$/);
  });

  it('the elapsed time holds through rounds that fail (a stall past the request timeout), and at the end', () => {
    const { progress, clock, frames, advance } = live(24);
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    const last = () =>
      frames()
        .join('\n')
        .split('\n')
        .filter((row) => row.includes('task 1 '))
        .pop() ?? '';
    display.change(change(task(1, 'processing', 4), clock.now()));
    display.round();
    advance(2000);
    // The service stopped: each round hangs until its request times out, fails, and the next one begins.
    for (let round = 0; round < 4; round++) {
      display.roundStarted();
      advance(30_000);
      display.unanswered('no answer in time');
      display.round();
      advance(5000);
      progress.refresh();
      expect(last()).toMatch(/ · 0:02$/);
    }
    display.finish(false);
    expect(last()).toMatch(/^ {2}task 1 processing .* · 0:02$/);
  });

  it('paints a task by its tone, not its phase: completed with failed items is yellow, whole is green', () => {
    const { progress, clock, frames } = live(24, 80, true);
    const display = new FollowDisplay({ progress, clock, ids: [1, 2] });
    display.change(change({ ...task(1, 'completed', 9), failed_items: 1 }, T0));
    display.change(change(task(2, 'completed', 10), T0));
    const [partial, whole] = (frames().pop() ?? '').split('\n');
    expect(partial).toContain('\x1b[33mcompleted');
    expect(partial).not.toContain('\x1b[32m');
    expect(whole).toContain('\x1b[32mcompleted');
  });

  it('more tasks than rows: a summary line plus the unfinished ones', () => {
    const { progress, clock, frames } = live(5);
    const ids = [1, 2, 3, 4, 5, 6];
    const display = new FollowDisplay({ progress, clock, ids });
    for (const id of ids) display.change(change(task(id, id <= 3 ? 'completed' : 'processing', id <= 3 ? 10 : 1), T0));
    const last = (frames().pop() ?? '').split('\n');
    expect(last).toHaveLength(4);
    expect(last[0]).toMatch(/^⠋ 6 tasks: 3 finished, 3 running · 0:00$/);
    expect(last.slice(1).map((line) => /task (\d)/.exec(line)?.[1])).toEqual(['4', '5', '6']);
  });
});

describe('FollowDisplay in plain mode', () => {
  it('throttles count lines to max(2 s, elapsed/60), prints status changes at once, and the held-back line later', () => {
    const stderr = createMemoryStream(false);
    const { io } = createMemoryIO();
    const clock = new FakeClock();
    const progress = createProgress({ io: { ...io, stderr }, format: 'table', clock });
    const display = new FollowDisplay({ progress, clock, ids: [1] });
    display.change(change(task(1, 'processing', 1), clock.now()));
    clock.advance(500);
    display.change(change(task(1, 'processing', 2), clock.now(), false));
    expect(stderr.text().split('\n').filter(Boolean)).toHaveLength(1);
    clock.advance(2000);
    display.round();
    expect(stderr.text()).toContain('items 2/10');
    clock.advance(100);
    display.change(change(task(1, 'completed', 10), clock.now()));
    expect(stderr.text().split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('clockTime', () => {
    expect([clockTime(0), clockTime(7_900), clockTime(754_000), clockTime(3_723_000)]).toEqual([
      '0:00',
      '0:07',
      '12:34',
      '1:02:03',
    ]);
  });
});
