/**
 * `watch` and `wait` against a listing that churns between page walks, for virtual hours: tasks created every few
 * seconds (newest first, so a long task moves to page 2, 3, …), and a service that restarts with its ids from 1.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, BASE_URL, T0, mockApi, runTaskctl } from '../run-in-process.js';

interface Churn {
  /** A new task every `everyMs` of the clock. */
  everyMs: number;
  /** At this time (ms after T0) the service restarts: the tasks are gone and ids start again at 1. */
  restartAt?: number;
  /** Tasks finish this long after their creation, except the first one (the long task), which never does. */
  runMs: number;
  /** Finished tasks listed above the long task from the start (99: one create moves it to page 2). */
  finished?: number;
}

/**
 * A service whose GET /tasks is a function of the clock: pages of `per_page`, newest first. Every read sees the list
 * as it is at that moment, so two walks (and two pages of one walk) can see different lists.
 */
function churningApi(clock: FakeClock, churn: Churn) {
  const api = mockApi();
  const iso = (ms: number) => new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  /** How many tasks the list holds at `now`, and its `j`-th (newest first): a read makes only the tasks it sends. */
  const listAt = (now: number) => {
    const t = now - T0;
    const epoch = churn.restartAt !== undefined && t >= churn.restartAt ? churn.restartAt : 0;
    const before = epoch === 0 ? (churn.finished ?? 0) : 0;
    const count = 1 + before + Math.floor((t - epoch) / churn.everyMs);
    const task = (j: number) => {
      const i = count - 1 - j;
      const created = i === 0 ? epoch - 3_600_000 : epoch + (i - before) * churn.everyMs;
      const done = i > 0 && t - created >= churn.runMs;
      return {
        id: i + 1,
        service: 'domain_check_availability',
        status: done ? 'completed' : 'processing',
        total_items: 1,
        completed_items: done ? 1 : 0,
        failed_items: 0,
        cost: 1,
        created_at: iso(created),
        ...(done ? { completed_at: iso(created + churn.runMs) } : {}),
      };
    };
    return { count, task };
  };
  const lists: number[] = [];
  api.agent
    .get(new URL(BASE_URL).origin)
    .intercept({ method: 'GET', path: (p) => p.startsWith('/api/v1/tasks') })
    .reply((request) => {
      const url = new URL(request.path, BASE_URL);
      const { count, task: nth } = listAt(clock.now());
      const single = /^\/api\/v1\/tasks\/(\d+)$/.exec(url.pathname);
      if (single) {
        const id = Number(single[1]);
        const task = id >= 1 && id <= count ? nth(count - id) : undefined;
        const body = task
          ? { success: true, data: { ...task, items: [] } }
          : { success: false, error: { code: 'NOT_FOUND', message: 'no such task' } };
        return { statusCode: task ? 200 : 404, data: JSON.stringify(body), responseOptions: json };
      }
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('per_page') ?? '20');
      lists.push(page);
      const data: Array<ReturnType<typeof nth>> = [];
      for (let j = Math.max(0, (page - 1) * perPage); j < Math.min(page * perPage, count); j++) data.push(nth(j));
      const meta = {
        current_page: page,
        per_page: perPage,
        total_pages: Math.max(1, Math.ceil(count / perPage)),
        total_count: count,
      };
      return { statusCode: 200, data: JSON.stringify({ success: true, data, meta }), responseOptions: json };
    })
    .persist();
  return { api, lists };
}
const json = { headers: { 'content-type': 'application/json' } };

describe('watch and wait through a churning listing', () => {
  it('watch --follow keeps following while a long task moves to page 2 and quick tasks come and go', async () => {
    const clock = new FakeClock();
    const { api } = churningApi(clock, { everyMs: 5000, runMs: 100, finished: 99 });
    const result = await runTaskctl(['watch', '--follow', '--timeout', '3m'], { api, clock });
    expect(result.stderr).not.toMatch(/pages do not end/);
    expect(result.code).toBe(124);
    expect(result.stderr).toContain('still running: taskctl watch 1');
    // Tasks created long after the long task left page 1 were still reported complete.
    expect(result.stdout).toMatch(/\b130\b.*completed/);
  });

  it('watch (without --follow) keeps following the long task while new tasks push it down', async () => {
    const clock = new FakeClock();
    const { api } = churningApi(clock, { everyMs: 5000, runMs: 100, finished: 99 });
    const result = await runTaskctl(['watch', '--timeout', '2m'], { api, clock });
    expect(result.stderr).not.toMatch(/pages do not end/);
    expect(result.code).toBe(124);
  });

  it('watch --follow keeps going when the service restarts with its ids from 1, and reports the new tasks', async () => {
    const clock = new FakeClock();
    const { api } = churningApi(clock, { everyMs: 5000, runMs: 100, finished: 99, restartAt: 60_000 });
    const result = await runTaskctl(['watch', '--follow', '--timeout', '2m'], { api, clock });
    expect(result.stderr).not.toMatch(/pages do not end/);
    expect(result.code).toBe(124);
    // Task 2 finished before the watch began; after the restart, task 2 is a new task (12:01:05), reported complete.
    expect(result.stdout).toMatch(/^2025-01-15T12:01:\d\dZ\t2\t.*\tcompleted\t/m);
  });

  it('watch --follow says once on stderr when more tasks were created between two reads than a round reads', async () => {
    const clock = new FakeClock();
    // 500 tasks a second: thousands between two reads of the listing.
    const { api } = churningApi(clock, { everyMs: 2, runMs: 0 });
    const result = await runTaskctl(['watch', '--follow', '--timeout', '15s'], { api, clock });
    const said = result.stderr.match(/more than [\d,]+ tasks were created since the last read; some may not be shown/g);
    expect(said).toHaveLength(1);
  });

  it('wait on the long task follows it while it moves to page 2', async () => {
    const clock = new FakeClock();
    const { api } = churningApi(clock, { everyMs: 5000, runMs: 100, finished: 99 });
    const result = await runTaskctl(['wait', '1', '--timeout', '3m'], { api, clock });
    expect(result.stderr).not.toMatch(/pages do not end/);
    expect(result.code).toBe(124);
  });
});
