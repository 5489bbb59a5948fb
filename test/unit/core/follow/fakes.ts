/** Fake time and a fake task API whose tasks change state over virtual time, counting every request. */
import type { PageMeta, Task, TaskItem } from '../../../../src/api/schemas.js';
import { RateLimiter } from '../../../../src/api/rate-limit.js';
import { NotFoundError, RateLimitError } from '../../../../src/errors.js';
import type { TaskReader } from '../../../../src/core/follow/reader.js';
import { followTasks, type FollowResult } from '../../../../src/core/follow/follow.js';

import { FakeClock, T0 } from '../../../clock.js';

export { FakeClock, T0 } from '../../../clock.js';

export interface SimTask {
  id: number;
  service?: string;
  totalItems?: number;
  /** Virtual ms after T0 at which the task appears; default 0. */
  createdAfter?: number;
  /** Status changes: [ms after T0, status]; before the first entry the task is pending. */
  timeline?: Array<[number, string]> | undefined;
  /** Items that fail (reported once completed or failed). */
  failedItems?: number;
  /**
   * Item-level progress instead of `timeline`: processing from `startAt` (ms after T0), item i finishing
   * `durations[i]` ms after the one before it, completed (`completed_at` exact) with the last item.
   */
  work?: { startAt: number; durations: number[] } | undefined;
  /** GET /tasks/:id carries no `items` (docs/openapi.json allows it); the list still has no counts. */
  noItems?: boolean;
}

/** A task of `count` items of `itemMs` each, starting `startAt` ms after T0. */
export function steadyWork(count: number, itemMs: number, startAt = 200): SimTask['work'] {
  return { startAt, durations: Array.from({ length: count }, () => itemMs) };
}

/** When the task's work ends (ms after T0), or undefined for a timeline task. */
export function workEnd(task: SimTask): number | undefined {
  return task.work ? task.work.startAt + task.work.durations.reduce((a, b) => a + b, 0) : undefined;
}

export type Call = { kind: 'list'; page: number; perPage: number } | { kind: 'get'; id: number };

export interface FakeServerOptions {
  /**
   * Listing order; 'scattered' is a fixed pseudo-random order of the first 1,009 ids, 'hashed' one of any ids (a hash
   * of the id, as a service listing by a random key would): docs/openapi.json fixes none.
   */
  order?: 'asc' | 'desc' | 'scattered' | 'hashed';
  /**
   * List entries carry completed_items/failed_items (a server may: docs/openapi.json's `Task`); default false, as in
   * its examples.
   */
  listCounts?: boolean;
  /**
   * The server enforces this many requests per fixed minute from T0 (a 429 beyond it); `headers` says whether its
   * answers carry `X-RateLimit-*`. Default: no limit enforced, no headers.
   */
  rateLimit?: { limit: number; headers: boolean };
  /** `total_count` counts this many tasks more than the listing ever shows (docs/openapi.json ties neither to the other). */
  unlisted?: number;
  /**
   * Each task's `created_at` is up to this many ms later than its creation (by its id): a service that stamps a task
   * a moment after it numbers it, so creates made together are listed by id a few ms out of their times' order.
   */
  stampJitterMs?: number;
  /** A page of the listing takes this long to come (the clock moves on by it): tasks are created while pages are read. */
  listMs?: number;
}

const MINUTE = 60_000;

/** Where a task's id puts it in the listing of `order`: the lower the key, the nearer page 1. */
export function listingKey(order: FakeServerOptions['order']): (id: number) => number {
  switch (order) {
    case 'asc':
      return (id) => id;
    case 'scattered':
      return (id) => (id * 7919) % 1009;
    case 'hashed':
      return (id) => {
        let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b);
        h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
        return (h ^ (h >>> 16)) >>> 0;
      };
    default:
      return (id) => -id;
  }
}

/** The timestamp `ms` after T0, each made once: a 1,000-task listing asks for the same few thousand again every round. */
const isoTimes = new Map<number, string>();
function iso(ms: number): string {
  let text = isoTimes.get(ms);
  if (text === undefined) isoTimes.set(ms, (text = new Date(T0 + ms).toISOString()));
  return text;
}

/**
 * Requests go through `rateLimiter` as the real client's do (acquire, headers, release, a 429's wait), so follow's
 * pace is the client's; the limiter is steady() as `wait` and `watch` make it.
 */
export class FakeTaskServer implements TaskReader {
  readonly calls: Call[] = [];
  /** Every page of the listing answered, with the clock time of its answer. */
  readonly lists: Array<{ page: number; at: number }> = [];
  /** Clock time of every request the server answered or refused. */
  readonly times: number[] = [];
  /** 429 answers given. */
  limited = 0;
  readonly rateLimiter: RateLimiter;
  private readonly tasks = new Map<number, SimTask>();
  /** Every task in listing order (the order is by id alone), sorted once after each `add`, not at each list read. */
  private listed: SimTask[] | undefined;
  /** Called before each request with its index (0-based); return an error to fail that request. */
  failWith: (index: number, call: Call) => Error | undefined = () => undefined;

  constructor(
    private readonly clock: FakeClock,
    private readonly options: FakeServerOptions = {},
  ) {
    this.rateLimiter = new RateLimiter({ clock });
    this.rateLimiter.steady();
  }

  add(...tasks: SimTask[]): this {
    for (const task of tasks) this.tasks.set(task.id, task);
    this.listed = undefined;
    return this;
  }

  count(kind?: Call['kind']): number {
    return kind ? this.calls.filter((c) => c.kind === kind).length : this.calls.length;
  }

  async listTasks(q: { page?: number; perPage?: number }): Promise<{ tasks: Task[]; meta: PageMeta }> {
    const page = q.page ?? 1;
    const perPage = Math.min(q.perPage ?? 25, 100);
    const answer = await this.exchange({ kind: 'list', page, perPage }, () => this.list(page, perPage));
    if (this.options.listMs !== undefined) this.clock.advance(this.options.listMs);
    return answer;
  }

  private list(page: number, perPage: number): { tasks: Task[]; meta: PageMeta } {
    const key = listingKey(this.options.order);
    this.listed ??= [...this.tasks.values()].sort((a, b) => key(a.id) - key(b.id));
    const elapsed = this.elapsed();
    const visible = this.listed.filter((t) => elapsed >= (t.createdAfter ?? 0));
    this.lists.push({ page, at: this.clock.now() });
    const tasks = visible.slice((page - 1) * perPage, page * perPage).map((t) => this.view(t, false));
    const meta = {
      current_page: page,
      per_page: perPage,
      total_count: visible.length + (this.options.unlisted ?? 0),
      total_pages: Math.ceil(visible.length / perPage),
    };
    return { tasks, meta };
  }

  async getTask(id: number): Promise<Task> {
    return this.exchange({ kind: 'get', id }, () => this.get(id));
  }

  private get(id: number): Task {
    const task = this.tasks.get(id);
    if (!task || this.elapsed() < (task.createdAfter ?? 0)) throw new NotFoundError(`task ${id} not found`);
    return this.view(task, true);
  }

  /** One request as the client makes it: the limiter's turn, the server's limit and headers, the answer. */
  private async exchange<T>(call: Call, answer: () => T): Promise<T> {
    await this.rateLimiter.acquire();
    try {
      const now = this.clock.now();
      this.times.push(now);
      const limit = this.options.rateLimit;
      if (limit) {
        const windowStart = now - ((now - T0) % MINUTE);
        const used = this.times.filter((t) => t >= windowStart).length;
        const resetAtMs = windowStart + MINUTE;
        if (used > limit.limit) {
          this.limited++;
          this.rateLimiter.limited(resetAtMs);
          throw new RateLimitError('429 Too Many Requests');
        }
        if (limit.headers) this.rateLimiter.update({ limit: limit.limit, remaining: limit.limit - used, resetAtMs });
      }
      this.record(call);
      return answer();
    } finally {
      this.rateLimiter.release();
    }
  }

  private record(call: Call): void {
    const index = this.calls.length;
    this.calls.push(call);
    const error = this.failWith(index, call);
    if (error) throw error;
  }

  private elapsed(): number {
    return this.clock.now() - T0;
  }

  /** Items finished at the current virtual time (work tasks). */
  doneOf(task: SimTask): number {
    if (!task.work) return 0;
    let at = task.work.startAt;
    let done = 0;
    for (const d of task.work.durations) {
      at += d;
      if (this.elapsed() < at) break;
      done++;
    }
    return done;
  }

  statusOf(task: SimTask): string {
    if (task.work) {
      const end = workEnd(task) ?? 0;
      return this.elapsed() >= end ? 'completed' : this.elapsed() >= task.work.startAt ? 'processing' : 'pending';
    }
    let status = 'pending';
    for (const [at, next] of task.timeline ?? []) if (this.elapsed() >= at) status = next;
    return status;
  }

  private view(sim: SimTask, withItems: boolean): Task {
    const status = this.statusOf(sim);
    const total = sim.work ? sim.work.durations.length : (sim.totalItems ?? 3);
    const finished = status === 'completed' || status === 'failed';
    const failed = finished ? (sim.failedItems ?? 0) : 0;
    const completed = sim.work ? this.doneOf(sim) - failed : finished ? total - failed : 0;
    const task: Task = {
      id: sim.id,
      service: sim.service ?? 'domain_check_availability',
      status,
      total_items: total,
      cost: total,
      created_at: iso((sim.createdAfter ?? 0) + ((sim.id * 7) % ((this.options.stampJitterMs ?? 0) + 1))),
      completed_at: finished ? iso(workEnd(sim) ?? this.elapsed()) : null,
    };
    if (this.options.listCounts || withItems) {
      task.completed_items = completed;
      task.failed_items = failed;
    }
    if (withItems && sim.noItems) {
      delete task.completed_items;
      delete task.failed_items;
    } else if (withItems) {
      const items: TaskItem[] = [];
      for (let i = 0; i < total; i++) {
        const itemStatus = i < failed ? 'failed' : i < failed + completed ? 'completed' : 'pending';
        items.push({ target: `d${i}.com`, status: itemStatus, data: null });
      }
      task.items = items;
      // GET /tasks/:id in docs/openapi.json has no counts of its own: the engine must count items.
      delete task.completed_items;
      delete task.failed_items;
    }
    return task;
  }
}

/** A limiter for readers whose requests no limiter sees (they fail, hang or loop): it never holds a round back. */
export const UNPACED: TaskReader['rateLimiter'] = { readyAt: () => 0 };

/** `count` tasks with ids from `firstId`, each finishing at its own time. */
export function simTasks(count: number, firstId: number, finish: (index: number) => SimTask['timeline']): SimTask[] {
  return Array.from({ length: count }, (_, i) => ({ id: firstId + i, timeline: finish(i) }));
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function seededRandom(seed = 42): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Most requests in any 60 s (half-open), from sorted request times. */
export function busiestMinute(times: readonly number[]): number {
  let worst = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] ?? 0) - (times[j] ?? 0) >= 60_000) j++;
    worst = Math.max(worst, i - j + 1);
  }
  return worst;
}

/**
 * 300 tasks of 1–10 items × 300 ms, started within 2 s, followed to the end against a `FakeTaskServer` with `options`:
 * more requests than 100/min can serve at once. The result, the server (its request times), the time taken and each
 * round's request count.
 */
export async function followManyTasks(
  options: FakeServerOptions,
  deadline?: number,
): Promise<{ result: FollowResult; server: FakeTaskServer; tookMs: number; rounds: number[] }> {
  const clock = new FakeClock();
  const random = seededRandom(3);
  const tasks: SimTask[] = Array.from({ length: 300 }, (_, i) => ({
    id: i + 1,
    work: steadyWork(1 + Math.floor(random() * 10), 300, Math.floor(random() * 2000)),
  }));
  const server = new FakeTaskServer(clock, options).add(...tasks);
  const rounds: number[] = [];
  const result = await followTasks({
    reader: server,
    ids: tasks.map((t) => t.id),
    clock,
    random,
    intervalMs: 2000,
    until: 'terminal',
    ...(deadline !== undefined && { deadline }),
    onChange: () => undefined,
    onRound: ({ requests }) => rounds.push(requests),
  });
  return { result, server, tookMs: clock.now() - T0, rounds };
}
