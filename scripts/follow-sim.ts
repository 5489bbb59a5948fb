// The follow policies side by side on virtual time (run by scripts/bench-follow.ts through tsx): the real follow
// engine and the real sandbox (its item timings, GET /tasks and /tasks/:id) on one virtual clock, so a 10-minute task
// takes a second. Prints one JSON object. Not a test: the bench reports what it finds.
import { PageMetaSchema, TaskSchema } from '../src/api/schemas.js';
import type { PageMeta, Task } from '../src/api/schemas.js';
import { followTasks } from '../src/core/follow/follow.js';
import type { TaskReader } from '../src/core/follow/reader.js';
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

type Policy = 'predictive' | 'backoff';

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
  const get = async (path: string): Promise<unknown> => {
    times.push(clock.now());
    const response = await fetch(`${sandbox.url}${path}`, { headers });
    if (response.status === 429) {
      limited++;
      throw new RateLimitError('429');
    }
    return response.json();
  };
  const reader: TaskReader = {
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
function followOptions(w: World, policy: Policy) {
  return {
    reader: w.reader,
    clock: w.clock,
    intervalMs: 2000,
    until: 'terminal' as const,
    policy,
    random: seeded(),
    onChange: () => undefined,
  };
}

type World = Awaited<ReturnType<typeof world>>;

async function oneTask(policy: Policy, items: number, itemMs: number) {
  const w = await world(0, itemMs);
  try {
    const id = await w.create(Array.from({ length: items }, (_, i) => `sim${i}.example.com`));
    const started = w.clock.now();
    const result = await followTasks({ ...followOptions(w, policy), ids: [id] });
    const task = result.tasks[0];
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

async function manyTasks(policy: Policy, count: number) {
  const w = await world(0, 300);
  try {
    const ids: number[] = [];
    for (let i = 0; i < count; i++)
      ids.push(await w.create(Array.from({ length: (i % 10) + 1 }, (_, j) => `m${i}-${j}.example.com`)));
    w.times.length = 0;
    const rounds: number[] = [];
    await followTasks({ ...followOptions(w, policy), ids, onRound: ({ requests }) => rounds.push(requests) });
    let perMinute = 0;
    for (let i = 0, j = 0; i < w.times.length; i++) {
      while ((w.times[i] ?? 0) - (w.times[j] ?? 0) >= 60_000) j++;
      perMinute = Math.max(perMinute, i - j + 1);
    }
    return { requests: w.times.length, maxPerRound: Math.max(...rounds), maxPerMinute: perMinute };
  } finally {
    await w.sandbox.close();
  }
}

/** What the sim prints (one JSON line), read by scripts/bench-follow.ts. */
export type SimOutput = Record<Policy, SimFigures>;
type SimFigures = Record<'0.1 s' | '10 s' | '60 s' | '75 s' | '10 min', Awaited<ReturnType<typeof oneTask>>> & {
  '300 tasks': Awaited<ReturnType<typeof manyTasks>>;
};

const out = {} as SimOutput;
for (const policy of ['predictive', 'backoff'] as const) {
  out[policy] = {
    '0.1 s': await oneTask(policy, 1, 100),
    '10 s': await oneTask(policy, 50, 200),
    '60 s': await oneTask(policy, 1200, 50),
    '75 s': await oneTask(policy, 375, 200),
    '10 min': await oneTask(policy, 3000, 200),
    '300 tasks': await manyTasks(policy, 300),
  };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
