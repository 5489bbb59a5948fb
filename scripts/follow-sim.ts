// The follow engine beside a fixed-interval baseline on virtual time (run by scripts/bench-follow.ts through tsx): the
// real follow engine, paced by the client's rate limiter, and the real sandbox (its item timings, GET /tasks and
// /tasks/:id) on one virtual clock, so a 10-minute task takes a second. The baseline is taskctl's polling before
// the predictive schedule, kept here (not in src/) only to measure against. Prints one JSON object. Not a test: the bench reports
// what it finds.
import { parseRateLimit, RateLimiter } from '../src/api/rate-limit.js';
import { PageMetaSchema, TaskSchema } from '../src/api/schemas.js';
import type { PageMeta, Task } from '../src/api/schemas.js';
import { followTasks } from '../src/core/follow/follow.js';
import type { TaskReader } from '../src/core/follow/reader.js';
import { isTerminal } from '../src/lib/task-state.js';
import { RateLimitError } from '../src/errors.js';
import { startSandbox } from '../src/sandbox/index.js';
import * as z from 'zod';

class VirtualClock {
  constructor(public t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    this.t += Math.max(0, ms);
    return Promise.resolve();
  }
}

type Policy = 'predictive' | 'fixed';

/** Seeded jitter, so two bench runs print the same figures. */
function seeded(seed = 42): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function world(rateLimit: number, itemMs: number) {
  const clock = new VirtualClock();
  const sandbox = await startSandbox({ port: 0, clock, itemMs, rateLimit, seed: 7, balance: 1e9 });
  const headers = { 'x-api-key': sandbox.apiKey, 'content-type': 'application/json' };
  const times: number[] = [];
  let limited = 0;
  // The client's protocol with its limiter (api/client.ts): wait your turn, learn from the headers, release.
  const rateLimiter = new RateLimiter({ clock });
  rateLimiter.steady();
  const get = async (path: string): Promise<unknown> => {
    await rateLimiter.acquire();
    try {
      times.push(clock.now());
      const response = await fetch(`${sandbox.url}${path}`, { headers });
      rateLimiter.update(parseRateLimit(response.headers, clock.now()));
      if (response.status === 429) {
        limited++;
        rateLimiter.limited(clock.now() + 1000 * Number(response.headers.get('retry-after') ?? 60));
        throw new RateLimitError('429');
      }
      return await response.json();
    } finally {
      rateLimiter.release();
    }
  };
  const reader: TaskReader = {
    rateLimiter,
    async listTasks(q): Promise<{ tasks: Task[]; meta: PageMeta }> {
      const body = z
        .object({ data: z.array(TaskSchema), meta: PageMetaSchema })
        .parse(await get(`/tasks?page=${q.page ?? 1}&per_page=${q.perPage ?? 100}`));
      return { tasks: body.data, meta: body.meta };
    },
    async getTask(id): Promise<Task> {
      return z.object({ data: TaskSchema }).parse(await get(`/tasks/${id}`)).data;
    },
  };
  const create = async (items: string[]): Promise<number> => {
    const response = await fetch(`${sandbox.url}/tasks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ service: 'domain_check_availability', items }),
    });
    const body = (await response.json()) as { data?: { task_id?: number; id?: number } };
    const id = body.data?.task_id ?? body.data?.id;
    if (id === undefined) throw new Error(`create failed: ${JSON.stringify(body)}`);
    return id;
  };
  return { clock, sandbox, reader, create, times, limited: () => limited };
}

/** What both simulations give the engine: `wait`'s defaults, the world's clock and reader, a fixed seed. */
function followOptions(w: World) {
  return {
    reader: w.reader,
    clock: w.clock,
    intervalMs: 2000,
    until: 'terminal' as const,
    random: seeded(),
    onChange: () => undefined,
  };
}

/** The baseline: GET the task every 2 s (±10%), the interval growing ×1.5 to 30 s while its status does not change. */
async function fixedInterval(w: World, id: number): Promise<Task> {
  const random = seeded();
  let interval = 2000;
  let status: string | undefined;
  for (;;) {
    const task = await w.reader.getTask(id);
    if (isTerminal(task)) return task;
    interval = task.status === status ? Math.min(30_000, interval * 1.5) : 2000;
    status = task.status;
    await w.clock.sleep(interval * (0.9 + 0.2 * random()));
  }
}

type World = Awaited<ReturnType<typeof world>>;

async function oneTask(policy: Policy, items: number, itemMs: number) {
  const w = await world(0, itemMs);
  try {
    const id = await w.create(Array.from({ length: items }, (_, i) => `sim${i}.example.com`));
    const started = w.clock.now();
    const task =
      policy === 'fixed'
        ? await fixedInterval(w, id)
        : (await followTasks({ ...followOptions(w), ids: [id] })).tasks[0];
    const completedAt = Date.parse(task?.completed_at ?? '');
    return {
      noticedMs: w.clock.now() - completedAt,
      sinceStartMs: w.clock.now() - started,
      gets: w.times.length,
      status: task?.status,
    };
  } finally {
    await w.sandbox.close();
  }
}

async function manyTasks(count: number) {
  const w = await world(0, 300);
  try {
    const ids: number[] = [];
    for (let i = 0; i < count; i++)
      ids.push(await w.create(Array.from({ length: (i % 10) + 1 }, (_, j) => `m${i}-${j}.example.com`)));
    w.times.length = 0;
    const rounds: number[] = [];
    await followTasks({ ...followOptions(w), ids, onRound: ({ requests }) => rounds.push(requests) });
    let perMinute = 0;
    for (let i = 0, j = 0; i < w.times.length; i++) {
      while ((w.times[i] ?? 0) - (w.times[j] ?? 0) >= 60_000) j++;
      perMinute = Math.max(perMinute, i - j + 1);
    }
    return {
      requests: w.times.length,
      maxPerRound: Math.max(...rounds),
      maxPerMinute: perMinute,
      limited: w.limited(),
    };
  } finally {
    await w.sandbox.close();
  }
}

/** What the sim prints (one JSON line), read by scripts/bench-follow.ts. */
export type SimOutput = Record<Policy, SimFigures> & { '300 tasks': Awaited<ReturnType<typeof manyTasks>> };
type SimFigures = Record<'0.1 s' | '10 s' | '60 s' | '75 s' | '10 min', Awaited<ReturnType<typeof oneTask>>>;

const out = {} as SimOutput;
for (const policy of ['predictive', 'fixed'] as const) {
  out[policy] = {
    '0.1 s': await oneTask(policy, 1, 100),
    '10 s': await oneTask(policy, 50, 200),
    '60 s': await oneTask(policy, 1200, 50),
    '75 s': await oneTask(policy, 375, 200),
    '10 min': await oneTask(policy, 3000, 200),
  };
}
// A sandbox that sends no rate-limit headers: the limiter's pace keeps to the documented 100/min
// (docs/behaviour.md#pacing-and-the-rate-limit).
out['300 tasks'] = await manyTasks(300);
process.stdout.write(`${JSON.stringify(out)}\n`);
