import { describe, expect, it } from 'vitest';
import { AuthError, NotFoundError, RateLimitError, UnavailableError } from '../../../../src/errors.js';
import { DEADLINE_CODE } from '../../../../src/api/resend-policy.js';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { FollowOptions, TaskChange } from '../../../../src/core/follow/follow.js';
import { stillRunningMessage, waitExitCode } from '../../../../src/core/follow/outcome.js';
import type { OutageState } from '../../../../src/core/follow/outage.js';
import type { TaskReader } from '../../../../src/core/follow/reader.js';
import { FakeClock, FakeTaskServer, T0, UNPACED, seededRandom, simTasks } from './fakes.js';
import type { FakeServerOptions, SimTask } from './fakes.js';

const MIN = 60_000;

function setup(tasks: SimTask[], serverOptions: FakeServerOptions = {}) {
  const clock = new FakeClock();
  const server = new FakeTaskServer(clock, serverOptions).add(...tasks);
  const changes: TaskChange[] = [];
  const rounds: Array<{ requests: number; budget: number }> = [];
  const base = (overrides: Partial<FollowOptions>): FollowOptions => ({
    reader: server,
    ids: tasks.map((t) => t.id),
    clock,
    random: seededRandom(),
    intervalMs: 2000,
    until: 'terminal',
    onChange: (change) => changes.push(change),
    onRound: (stats) => rounds.push(stats),
    ...overrides,
  });
  return { clock, server, changes, rounds, base };
}

/** Finishes at a pseudo-random time within `spreadMs`, after a processing phase. */
function finishing(spreadMs: number, seed = 7): (i: number) => SimTask['timeline'] {
  const random = seededRandom(seed);
  return () => {
    const start = Math.floor(random() * spreadMs * 0.3);
    return [
      [start, 'processing'],
      [start + Math.floor(random() * spreadMs * 0.7) + 1000, 'completed'],
    ];
  };
}

describe('followTasks: requests per round', () => {
  const oldTasks = simTasks(250, 1, () => [[0, 'completed']]);
  for (const n of [1, 5, 150, 1000]) {
    for (const order of ['desc', 'asc'] as const) {
      for (const listCounts of [true, false]) {
        it(`${n} tasks, ${order} listing, ${listCounts ? 'with' : 'without'} counts in the list: ≤ ⌈N/100⌉+1 per round`, async () => {
          const watched = simTasks(n, 1001, finishing(5 * MIN));
          const { server, rounds, base, clock } = setup([...oldTasks, ...watched], { order, listCounts });
          const result = await followTasks(base({ ids: watched.map((t) => t.id) }));
          const bound = Math.ceil(n / 100) + 1;
          expect(result.reason).toBe('done');
          expect(result.tasks.map((t) => t.id)).toEqual(watched.map((t) => t.id));
          expect(result.tasks.every((t) => t.status === 'completed' && t.failed_items === 0)).toBe(true);
          expect(Math.max(...rounds.map((r) => r.requests))).toBeLessThanOrEqual(bound);
          expect(rounds.every((r) => r.requests <= r.budget)).toBe(true);
          expect(result.requests).toBe(server.count());
          // Each completed task is fetched for its item counts at most once.
          const gets = new Map<number, number>();
          for (const call of server.calls) if (call.kind === 'get') gets.set(call.id, (gets.get(call.id) ?? 0) + 1);
          if (n > 2) expect(Math.max(0, ...gets.values())).toBeLessThanOrEqual(1);
          // Polling stops soon after the last task finishes (at most ~5 min in), or once the requests it needed have
          // gone out at the limiter's pace (the documented 100 a minute: 1,000 item-count GETs take 10 minutes).
          expect(clock.now() - T0).toBeLessThan(Math.max(6 * MIN, (server.count() / 100) * MIN + MIN));
        });
      }
    }
  }

  it('finds tasks in a listing of no particular order, within the bound', async () => {
    const watched = simTasks(150, 301, finishing(5 * MIN));
    const { rounds, base, server } = setup([...simTasks(300, 1, () => [[0, 'completed']]), ...watched], {
      order: 'scattered',
      listCounts: true,
    });
    const result = await followTasks(base({ ids: watched.map((t) => t.id) }));
    expect(result.reason).toBe('done');
    expect(result.tasks.every((t) => t.status === 'completed')).toBe(true);
    expect(Math.max(...rounds.map((r) => r.requests))).toBeLessThanOrEqual(3);
    // Once found, tasks are read from their pages rather than one by one.
    expect(server.count('get')).toBeLessThan(server.count('list'));
  });

  it('polls a long task less and less often, never more than ~30 s apart', async () => {
    const { server, clock, base } = setup([
      {
        id: 1,
        timeline: [
          [0, 'processing'],
          [10 * MIN, 'completed'],
        ],
      },
    ]);
    const times: number[] = [];
    const reader = {
      rateLimiter: server.rateLimiter,
      listTasks: server.listTasks.bind(server),
      getTask: (id: number) => (times.push(clock.now()), server.getTask(id)),
    };
    await followTasks(base({ reader }));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(33_000);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(27_000);
    // 10 minutes at a fixed 2 s would be 300 requests.
    expect(times.length).toBeLessThan(40);
  });
});

describe('followTasks: ending', () => {
  it('times out with the unfinished ids, exit 124', async () => {
    const { base, clock } = setup([
      { id: 1, timeline: [[1000, 'completed']] },
      { id: 2, timeline: [[1000, 'processing']] },
    ]);
    const result = await followTasks(base({ deadline: T0 + 5 * MIN }));
    expect(result.reason).toBe('timeout');
    expect(clock.now()).toBe(T0 + 5 * MIN);
    expect(result.unfinished).toEqual([2]);
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(124);
  });

  it('ends on abort with reason interrupted, exit 130 and a resume hint', async () => {
    const controller = new AbortController();
    const { base } = setup(simTasks(3, 1, () => [[0, 'processing']]));
    let roundCount = 0;
    const result = await followTasks(
      base({
        signal: controller.signal,
        onRound: () => {
          if (++roundCount === 3) controller.abort(new Error('SIGINT'));
        },
      }),
    );
    expect(result.reason).toBe('interrupted');
    expect(result.unfinished).toEqual([1, 2, 3]);
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(130);
    expect(stillRunningMessage(result.unfinished)).toBe('still running: taskctl wait 1 2 3');
  });

  it('abandons a request in flight when aborted', async () => {
    const controller = new AbortController();
    const clock = new FakeClock();
    const reader = {
      rateLimiter: UNPACED,
      listTasks: () => new Promise<never>(() => undefined),
      getTask: () => {
        queueMicrotask(() => controller.abort()); // once the request is in flight
        return new Promise<never>(() => undefined);
      },
    };
    const result = await followTasks({
      reader,
      ids: [1],
      clock,
      intervalMs: 2000,
      until: 'terminal',
      signal: controller.signal,
      onChange: () => undefined,
    });
    expect(result.reason).toBe('interrupted');
  });

  it('survives a 502 and a rate limit mid-wait', async () => {
    const { base, server } = setup(
      simTasks(5, 1, () => [
        [0, 'processing'],
        [30_000, 'completed'],
      ]),
      { listCounts: true },
    );
    server.failWith = (index) =>
      index === 1
        ? new UnavailableError('HTTP 502 from GET /tasks')
        : index === 2
          ? new RateLimitError('rate limited')
          : undefined;
    const errors: Array<[string, number]> = [];
    const result = await followTasks(
      base({ onTransientError: (error, attempt) => errors.push([error.constructor.name, attempt]) }),
    );
    expect(errors).toEqual([
      ['UnavailableError', 1],
      ['RateLimitError', 2],
    ]);
    expect(result.reason).toBe('done');
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(0);
  });

  it("failed rounds back off with the client's backoff on the polling schedule: the interval ×1.5, jitter only below", async () => {
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    server.failWith = () => new UnavailableError('HTTP 503');
    const failedAt: number[] = [];
    await followTasks(
      base({
        random: () => 1, // the most jitter: 75 % of the nominal delay
        deadline: T0 + 20_000,
        outageToleranceMs: 10 * MIN,
        onTransientError: () => failedAt.push(clock.now()),
      }),
    );
    const gaps = failedAt.slice(1).map((at, i) => at - failedAt[i]!);
    expect(gaps.slice(0, 4)).toEqual([1500, 2250, 3375, 5063]);
  });

  it('a service failing until the deadline is an outage (exit 8), not a timeout: 124 needs an answering service', async () => {
    const { base, server } = setup([{ id: 1 }]);
    server.failWith = () => new UnavailableError('HTTP 503');
    let attempts = 0;
    const result = await followTasks(
      base({
        deadline: T0 + 2 * MIN,
        outageToleranceMs: 10 * MIN,
        onTransientError: (_e, attempt) => (attempts = attempt),
      }),
    );
    expect(result.reason).toBe('outage');
    expect(result.outage).toMatchObject({ why: 'deadline', answered: false, lastError: { message: 'HTTP 503' } });
    expect(waitExitCode(result.tasks, { reason: result.reason, lastError: result.outage?.lastError })).toBe(8);
    expect(attempts).toBeGreaterThan(3);
    expect(server.count()).toBeLessThan(30);
  });

  it('a deadline before the budget allowed any read is a timeout (124), not an outage: the service was asked nothing', async () => {
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    // The window is spent (a create used it) and resets in 30 s; the deadline comes in 10 s.
    server.rateLimiter.update({ limit: 100, remaining: 0, resetAtMs: T0 + 30_000 });
    const result = await followTasks(base({ deadline: T0 + 10_000 }));
    expect(server.count()).toBe(0);
    expect(result).toMatchObject({ reason: 'timeout', requests: 0, unfinished: [1] });
    expect(result.outage).toBeUndefined();
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(124);
    expect(clock.now()).toBe(T0 + 10_000);
  });

  it('a service whose requests hang gives up at the outage tolerance, not a request timeout later', async () => {
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    // Models the API client: from 5 s on no answer comes, so each request fails at its deadline or after 35 s.
    let firstUnanswered: number | undefined;
    const cut = async (deadline: number | undefined): Promise<void> => {
      if (clock.now() - T0 < 5000) return;
      firstUnanswered ??= clock.now();
      const until = Math.min(clock.now() + 35_000, deadline ?? Number.POSITIVE_INFINITY);
      clock.nowMs = Math.max(clock.nowMs, until);
      throw new UnavailableError(until === deadline ? 'no answer before the deadline' : 'no answer within 35s');
    };
    const view = (deadline: number | undefined): TaskReader => ({
      rateLimiter: server.rateLimiter,
      listTasks: async (q) => (await cut(deadline), server.listTasks(q)),
      getTask: async (id) => (await cut(deadline), server.getTask(id)),
      withDeadline: view,
    });
    const result = await followTasks(base({ reader: view(undefined), outageToleranceMs: 10_000 }));
    expect(result.reason).toBe('outage');
    expect(result.outage?.why).toBe('tolerance');
    expect(result.outage?.lastError?.message).toBe('no answer before the deadline');
    // The first read left unanswered went after 5 s: giving up is due 10 s later, not at the 35 s request timeout.
    expect(firstUnanswered).toBeGreaterThanOrEqual(T0 + 5000);
    expect(clock.now() - (firstUnanswered ?? 0)).toBeLessThanOrEqual(10_000);
  });

  it('gives up after the outage tolerance without a good answer, with no deadline at all (watch), and says when', async () => {
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    // Answers for the first 5 minutes, then only 502s.
    let firstFailed: number | undefined;
    server.failWith = () => {
      if (clock.now() - T0 < 5 * MIN) return undefined;
      firstFailed ??= clock.now();
      return new UnavailableError('HTTP 502');
    };
    const states: OutageState[] = [];
    const result = await followTasks(base({ outageToleranceMs: 2 * MIN, onOutage: (state) => states.push(state) }));
    expect(result.reason).toBe('outage');
    expect(result.outage?.why).toBe('tolerance');
    expect(result.outage?.answered).toBe(true);
    // The last good answer came before minute 5, the first failed read after it; the follow gave up 2 minutes after
    // that read (the time it did not ask is no failure of the service), not a poll interval later.
    const lastGoodAt = states[0]?.lastGoodAt ?? 0;
    const since = firstFailed ?? 0;
    expect(lastGoodAt).toBeLessThan(T0 + 5 * MIN);
    expect(since).toBeGreaterThanOrEqual(T0 + 5 * MIN);
    expect(clock.now() - since).toBeGreaterThanOrEqual(2 * MIN);
    expect(clock.now() - since).toBeLessThan(2 * MIN + 1000);
    expect(states.every((state) => state.ongoing && state.giveUpAt === since + 2 * MIN)).toBe(true);
    expect(states.map((state) => state.failures)).toEqual(states.map((_, i) => i + 1));
    expect(result.tasks[0]?.status).toBe('processing');
    expect(result.unfinished).toEqual([1]);
  });

  /**
   * A long task polled about every 30 s (10 minutes of work) and a service that fails every read in
   * [A + from, A + from + length), A being the first good answer after minute 3: the follow's last answer before it.
   */
  async function sparseWaitThroughOutage(from: number, length: number, toleranceMs: number) {
    const { base, server, clock } = setup([
      {
        id: 1,
        timeline: [
          [0, 'processing'],
          [10 * MIN, 'completed'],
        ],
      },
    ]);
    let lastAnswer = T0;
    let window: [number, number] | undefined;
    server.failWith = () => {
      const now = clock.now();
      if (window === undefined && now - T0 >= 3 * MIN) window = [lastAnswer + from, lastAnswer + from + length];
      if (window && now >= window[0] && now < window[1]) return new UnavailableError('HTTP 502');
      lastAnswer = now;
      return undefined;
    };
    const failedAt: number[] = [];
    const result = await followTasks(
      base({ outageToleranceMs: toleranceMs, onTransientError: () => failedAt.push(clock.now()) }),
    );
    return { result, failedAt, window };
  }

  it('a sparse poll keeps the whole tolerance: one read failing for a few seconds is not an outage of 30 s', async () => {
    // The last answer came ~30 s before the next read (a long task's poll gap): with --outage-tolerance 30s, the first
    // failed read of a 16-second blip already counted as 30 s without a good answer, and the wait gave up (exit 8).
    const { result, failedAt, window } = await sparseWaitThroughOutage(20_000, 16_000, 30_000);
    expect(failedAt.length).toBeGreaterThan(0);
    expect(window && failedAt.every((at) => at >= window[0] && at < window[1])).toBe(true);
    expect(result.reason).toBe('done');
  });

  it('a service failing for less than the tolerance is waited out, however long before it the last read was', async () => {
    // 110 s of failure (under the 2 minutes) beginning 15 s after the last answer: it ended 125 s after that answer,
    // past "2 minutes without a good answer", though the service had failed for less than 2 minutes of reads.
    const { result, failedAt } = await sparseWaitThroughOutage(15_000, 110_000, 2 * MIN);
    expect(failedAt.length).toBeGreaterThan(3);
    expect(result.reason).toBe('done');
  });

  it.each([
    ['429 last', ['502', '429'], 7],
    ['502 last', ['429', '502'], 8],
  ])('when 429s and 5xx mix, the outage exit code follows the last failure (%s)', async (_name, kinds, code) => {
    const { base, server } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    let n = 0;
    server.failWith = () => {
      const kind = n++ < 3 ? kinds[0] : kinds[1];
      return kind === '429' ? new RateLimitError('rate limited') : new UnavailableError('HTTP 502');
    };
    const result = await followTasks(base({ outageToleranceMs: MIN }));
    expect(result.reason).toBe('outage');
    expect(waitExitCode(result.tasks, { reason: result.reason, lastError: result.outage?.lastError })).toBe(code);
  });

  it('reports the outage while polling again and once when the service answers again', async () => {
    const { base, server, clock } = setup([
      {
        id: 1,
        timeline: [
          [0, 'processing'],
          [3 * MIN, 'completed'],
        ],
      },
    ]);
    server.failWith = () =>
      clock.now() - T0 >= 20_000 && clock.now() - T0 < 80_000 ? new UnavailableError('HTTP 502') : undefined;
    const states: OutageState[] = [];
    const result = await followTasks(base({ onOutage: (state) => states.push(state) }));
    expect(result.reason).toBe('done');
    expect(states.length).toBeGreaterThan(1);
    expect(states.slice(0, -1).every((state) => state.ongoing)).toBe(true);
    const last = states[states.length - 1];
    expect(last).toMatchObject({ ongoing: false, answered: true, lastError: { message: 'HTTP 502' } });
    expect(last?.lastGoodAt).toBe(states[0]?.lastGoodAt);
  });

  it('does not report a request cut by the deadline as a transient error to poll again for: the wait simply timed out', async () => {
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    const deadline = T0 + MIN;
    // The request in flight when the deadline comes fails (the client cuts it there).
    server.failWith = () => {
      if (clock.now() + 20_000 < deadline) return undefined;
      clock.nowMs = deadline;
      return new UnavailableError('GET /tasks/1: no answer before the deadline');
    };
    const reported: string[] = [];
    const result = await followTasks(base({ deadline, onTransientError: (error) => reported.push(error.message) }));
    expect(result.reason).toBe('timeout');
    expect(reported).toEqual([]);
  });

  it("ends as a timeout when the deadline's cut fires a few ms before the clock reads the deadline", async () => {
    // A timer counts from the event loop's cached time, which can lag the clock by the tick's own work: under load the
    // cut at the deadline (src/api/request.ts) fires while Date.now() is still a few ms short of it.
    const { base, server, clock } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    const deadline = T0 + MIN;
    server.failWith = () => {
      if (clock.now() + 20_000 < deadline) return undefined;
      clock.nowMs = deadline - 3;
      const cut = Object.assign(new Error('the deadline passed before the answer came'), { code: DEADLINE_CODE });
      return Object.assign(new UnavailableError('GET /tasks/1: no answer before the deadline'), { cause: cut });
    };
    const reported: string[] = [];
    const result = await followTasks(base({ deadline, onTransientError: (error) => reported.push(error.message) }));
    expect(result.reason).toBe('timeout');
    expect(reported).toEqual([]);
  });

  it('is fatal on a missing task (404) and on auth errors', async () => {
    const { base } = setup([{ id: 1, timeline: [[0, 'processing']] }]);
    await expect(followTasks(base({ ids: [1, 999] }))).rejects.toBeInstanceOf(NotFoundError);
    const second = setup([{ id: 1 }]);
    second.server.failWith = () => new AuthError('unauthorized');
    await expect(followTasks(second.base({}))).rejects.toBeInstanceOf(AuthError);
  });

  it('--any returns when the first task finishes', async () => {
    const { base, clock } = setup([
      {
        id: 1,
        timeline: [
          [0, 'processing'],
          [100_000, 'completed'],
        ],
      },
      {
        id: 2,
        timeline: [
          [0, 'processing'],
          [10_000, 'failed'],
        ],
      },
    ]);
    const result = await followTasks(base({ any: true }));
    expect(result.reason).toBe('done');
    expect(clock.now() - T0).toBeLessThan(20_000);
    expect(result.tasks.map((t) => t.status)).toEqual(['processing', 'failed']);
    expect(result.unfinished).toEqual([1]);
    expect(waitExitCode(result.tasks, { reason: result.reason })).toBe(10);
  });

  it('--until processing is met by processing, and by a task that already finished', async () => {
    const { base, clock } = setup([
      {
        id: 1,
        timeline: [
          [5_000, 'processing'],
          [MIN, 'completed'],
        ],
      },
      { id: 2, timeline: [[0, 'completed']], failedItems: 1 },
    ]);
    const result = await followTasks(base({ until: 'processing' }));
    expect(result.reason).toBe('done');
    expect(result.tasks.map((t) => t.status)).toEqual(['processing', 'completed']);
    expect(clock.now() - T0).toBeLessThan(10_000);
  });

  it('finishes at once with no ids', async () => {
    const { base, server } = setup([]);
    const result = await followTasks(base({ ids: [] }));
    expect(result).toEqual({ tasks: [], reason: 'done', unfinished: [], requests: 0, heldByRateLimit: false });
    expect(server.count()).toBe(0);
  });
});

describe('followTasks: changes and item counts', () => {
  it('reports each status change once, with the previous status', async () => {
    const { base, changes } = setup([
      {
        id: 1,
        timeline: [
          [3_000, 'processing'],
          [20_000, 'completed'],
        ],
      },
    ]);
    await followTasks(base({}));
    expect(changes.map((c) => [c.task.status, c.previous])).toEqual([
      ['pending', undefined],
      ['processing', 'pending'],
      ['completed', 'processing'],
    ]);
    expect(changes.every((c) => c.task.items === undefined)).toBe(true);
  });

  it('counts failed items of completed tasks with one GET each, and reports completion after that', async () => {
    const tasks = simTasks(5, 1, () => [
      [0, 'processing'],
      [10_000, 'completed'],
    ]);
    tasks[2]!.failedItems = 2;
    const { base, server, changes } = setup(tasks);
    const result = await followTasks(base({}));
    expect(result.tasks.map((t) => t.failed_items)).toEqual([0, 0, 2, 0, 0]);
    expect(
      server.calls
        .filter((c) => c.kind === 'get')
        .map((c) => c.id)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5]);
    const completed = changes.filter((c) => c.task.status === 'completed');
    expect(completed.map((c) => c.task.failed_items)).toEqual([0, 0, 2, 0, 0]);
    expect(waitExitCode(result.tasks, { reason: 'done' })).toBe(11);
    expect(waitExitCode(result.tasks, { reason: 'done', allowItemFailures: true })).toBe(0);
  });

  it('skips the item count GETs with countItems: false', async () => {
    const { base, server } = setup(
      simTasks(5, 1, () => [
        [0, 'processing'],
        [10_000, 'completed'],
      ]),
    );
    const result = await followTasks(base({ countItems: false }));
    expect(result.reason).toBe('done');
    expect(server.count('get')).toBe(0);
  });
});

describe('followTasks: watch with no ids', () => {
  for (const order of ['desc', 'asc'] as const) {
    it(`follows unfinished tasks and picks up new ones (${order} listing)`, async () => {
      const history = simTasks(250, 1, () => [[0, 'completed']]);
      const { base, changes } = setup(
        [
          ...history,
          {
            id: 300,
            timeline: [
              [0, 'processing'],
              [30_000, 'completed'],
            ],
          },
          {
            id: 301,
            timeline: [
              [60_000, 'processing'],
              [90_000, 'failed'],
            ],
          },
          {
            id: 302,
            createdAfter: 20_000,
            timeline: [
              [25_000, 'processing'],
              [40_000, 'completed'],
            ],
          },
        ],
        { order },
      );
      const result = await followTasks(base({ ids: 'all-unfinished' }));
      expect(result.reason).toBe('done');
      expect(result.tasks.map((t) => [t.id, t.status])).toEqual([
        [300, 'completed'],
        [301, 'failed'],
        [302, 'completed'],
      ]);
      const seen = new Set(changes.map((c) => c.task.id));
      expect([...seen].sort()).toEqual([300, 301, 302]);
      expect(changes.filter((c) => c.task.id === 302).map((c) => c.task.status)).toContain('completed');
    });
  }

  it('--follow keeps going after they finish and reports tasks created later', async () => {
    const { base, changes } = setup([
      { id: 1, timeline: [[0, 'completed']] },
      {
        id: 2,
        createdAfter: 5 * MIN,
        timeline: [
          [5 * MIN + 1000, 'processing'],
          [6 * MIN, 'completed'],
        ],
      },
    ]);
    const result = await followTasks(base({ ids: 'all-unfinished', follow: true, deadline: T0 + 10 * MIN }));
    expect(result.reason).toBe('timeout');
    expect(changes.map((c) => [c.task.id, c.task.status])).toContainEqual([2, 'completed']);
    expect(changes.some((c) => c.task.id === 1)).toBe(false);
  });
});

describe('waitExitCode', () => {
  const task = (status: string, failed?: number) => ({
    id: 1,
    service: 's',
    status,
    total_items: 3,
    cost: 3,
    created_at: '2025-01-01T00:00:00Z',
    ...(failed === undefined ? {} : { failed_items: failed }),
  });
  it('maps outcomes to 0 / 10 / 11', () => {
    expect(waitExitCode([{ ...task('completed', 0), completed_items: 3 }], { reason: 'done' })).toBe(0);
    expect(waitExitCode([task('completed', 1), task('failed')], { reason: 'done' })).toBe(10);
    expect(waitExitCode([task('completed', 1)], { reason: 'done' })).toBe(11);
    expect(waitExitCode([task('completed', 1)], { reason: 'done', allowItemFailures: true })).toBe(0);
    expect(waitExitCode([task('failed')], { reason: 'timeout' })).toBe(124);
  });
});
