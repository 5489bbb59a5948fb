/**
 * `watch --follow` against a service whose GET /tasks is in no order of creation (a hash of the id: docs/openapi.json
 * leaves the order open), 31 pages long, with a budget of 20 requests a minute stated in its headers: new tasks land on
 * middle pages, are still shown, and the one stderr line says they may be shown late.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock, BASE_URL, T0, mockApi, runTaskctl } from '../run-in-process.js';
import { listingKey } from '../../core/follow/fakes.js';

const MIN = 60_000;
const LIMIT = 20;
const json = { 'content-type': 'application/json' };

/** 3,000 finished tasks created 10 s apart before T0, and `fresh` more: each created at its time, done 4 s later. */
function hashedApi(clock: FakeClock, fresh: number[]) {
  const api = mockApi();
  const iso = (ms: number) => new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const made = [
    ...Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, at: -(3000 - i) * 10_000 })),
    ...fresh.map((at, i) => ({ id: 3001 + i, at })),
  ];
  const key = listingKey('hashed');
  made.sort((a, b) => key(a.id) - key(b.id));
  const used = new Map<number, number>();
  const refused = { count: 0 };
  api.agent
    .get(new URL(BASE_URL).origin)
    .intercept({ method: 'GET', path: (p) => p.startsWith('/api/v1/tasks?') })
    .reply((request) => {
      const t = clock.now() - T0;
      const window = Math.floor(t / MIN);
      used.set(window, (used.get(window) ?? 0) + 1);
      const headers = {
        ...json,
        'x-ratelimit-limit': String(LIMIT),
        'x-ratelimit-remaining': String(Math.max(0, LIMIT - (used.get(window) ?? 0))),
        'x-ratelimit-reset': String(Math.ceil(((window + 1) * MIN - t) / 1000)),
      };
      if ((used.get(window) ?? 0) > LIMIT) {
        refused.count++;
        return { statusCode: 429, data: '{}', responseOptions: { headers } };
      }
      const url = new URL(request.path, BASE_URL);
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Number(url.searchParams.get('per_page') ?? '25');
      const listed = made.filter((task) => task.at <= t);
      const data = listed.slice((page - 1) * perPage, page * perPage).map((task) => {
        const done = t >= task.at + 4000;
        return {
          id: task.id,
          service: 'domain_check_availability',
          status: done ? 'completed' : 'processing',
          total_items: 1,
          completed_items: done ? 1 : 0,
          failed_items: 0,
          cost: 1,
          created_at: iso(task.at),
          ...(done ? { completed_at: iso(task.at + 4000) } : {}),
        };
      });
      const meta = {
        current_page: page,
        per_page: perPage,
        total_pages: Math.max(1, Math.ceil(listed.length / perPage)),
        total_count: listed.length,
      };
      return { statusCode: 200, data: JSON.stringify({ success: true, data, meta }), responseOptions: { headers } };
    })
    .persist();
  return { api, refused };
}

describe('watch --follow: a task list in no order of creation', () => {
  it('shows the tasks created on its middle pages, and says once that on 31 pages at 20/min they may come late', async () => {
    const clock = new FakeClock();
    const fresh = [150_000, 170_000, 190_000, 210_000];
    const { api, refused } = hashedApi(clock, fresh);
    const result = await runTaskctl(['watch', '--follow', '--timeout', '8m', '-o', 'tsv'], { api, clock });
    expect(result.code).toBe(124);
    for (let i = 0; i < fresh.length; i++)
      expect(result.stdout).toMatch(new RegExp(`\\t${3001 + i}\\t.*\\tcompleted\\t`));
    // The account's old tasks, finished before the watch, are never printed.
    const ids = result.stdout
      .split('\n')
      .filter(Boolean)
      .slice(1)
      .map((line) => Number(line.split('\t')[1]));
    expect(ids.filter((id) => id <= 3000)).toEqual([]);
    const said = result.stderr.match(/warning: new tasks may be shown late: .*/g);
    expect(said).toEqual([
      expect.stringMatching(
        /^warning: new tasks may be shown late: the task list is not in order of creation, so each is found only by reading all 31 pages, which took over \d+m\d*s?/,
      ),
    ]);
    // Never beyond the stated budget.
    expect(refused.count).toBe(0);
  });
});
