/** Answers that will not change end a follow, and pages that never end stop it. */
import { describe, expect, it } from 'vitest';
import type { PageMeta, Task } from '../../../../src/api/schemas.js';
import { MalformedResponseError, UnavailableError } from '../../../../src/errors.js';
import { followTasks } from '../../../../src/core/follow/follow.js';
import type { FollowOptions } from '../../../../src/core/follow/follow.js';
import type { TaskReader } from '../../../../src/core/follow/reader.js';
import { FakeClock, FakeTaskServer, T0, UNPACED, seededRandom } from './fakes.js';

function options(reader: TaskReader, clock: FakeClock, overrides: Partial<FollowOptions> = {}): FollowOptions {
  return {
    reader,
    ids: [1],
    clock,
    random: seededRandom(),
    intervalMs: 2000,
    until: 'terminal',
    deadline: T0 + 30 * 60_000,
    onChange: () => undefined,
    ...overrides,
  };
}

function task(id: number, status: string, extra: Partial<Task> = {}): Task {
  return { id, service: 's', status, total_items: 1, cost: 1, created_at: new Date(T0).toISOString(), ...extra };
}

describe('followTasks: answers that will not change', () => {
  it('a malformed body (after the client resends it) ends the follow at once, not at the timeout', async () => {
    const clock = new FakeClock();
    const server = new FakeTaskServer(clock).add({ id: 1, timeline: [[60_000, 'completed']] });
    server.failWith = (index) =>
      index === 1 ? new MalformedResponseError('GET /tasks/1: unexpected response from the server') : undefined;
    await expect(followTasks(options(server, clock))).rejects.toBeInstanceOf(MalformedResponseError);
    expect(server.count()).toBe(2);
    expect(clock.now() - T0).toBeLessThan(2000);
  });

  it('a network error is still polled again', async () => {
    const clock = new FakeClock();
    const server = new FakeTaskServer(clock).add({ id: 1, timeline: [[5_000, 'completed']] });
    server.failWith = (index) => (index === 1 ? new UnavailableError('network error') : undefined);
    const result = await followTasks(options(server, clock));
    expect(result.reason).toBe('done');
  });

  it('an unknown status keeps the wait going; a status that ends (cancelled) ends it', async () => {
    const clock = new FakeClock();
    const server = new FakeTaskServer(clock).add({
      id: 1,
      timeline: [
        [0, 'on_hold'],
        [20_000, 'cancelled'],
      ],
    });
    const seen: string[] = [];
    const result = await followTasks(options(server, clock, { onChange: (c) => seen.push(c.task.status) }));
    expect(result.reason).toBe('done');
    expect(seen).toEqual(['on_hold', 'cancelled']);
    expect(result.unfinished).toEqual([]);
  });
});

/** A listing whose total_pages grows by one on every read, each page showing new ids: it never ends. */
class EndlessPages implements TaskReader {
  readonly rateLimiter = UNPACED;
  reads = 0;
  async listTasks(q: { page?: number }): Promise<{ tasks: Task[]; meta: PageMeta }> {
    this.reads++;
    const page = q.page ?? 1;
    const tasks = Array.from({ length: 100 }, (_, i) => task(page * 1000 + i, 'processing'));
    return { tasks, meta: { current_page: page, per_page: 100, total_pages: page + 1, total_count: 100 * (page + 1) } };
  }
  async getTask(id: number): Promise<Task> {
    return task(id, 'processing');
  }
}

/** A listing that repeats the same page whatever page is asked for. */
class RepeatingPages extends EndlessPages {
  override async listTasks(): Promise<{ tasks: Task[]; meta: PageMeta }> {
    this.reads++;
    const tasks = Array.from({ length: 100 }, (_, i) => task(i + 1, 'processing'));
    return { tasks, meta: { current_page: 1, per_page: 100, total_pages: 50, total_count: 5000 } };
  }
}

describe('followTasks: pages that never end', () => {
  for (const [name, make] of [
    ['total_pages growing on every read', () => new EndlessPages()],
    ['every page repeating the same ids', () => new RepeatingPages()],
  ] as const) {
    it(`watch (every unfinished task): ${name} stops with exit 8, not polled again`, async () => {
      const clock = new FakeClock();
      const reader = make();
      const follow = followTasks(options(reader, clock, { ids: 'all-unfinished' }));
      await expect(follow).rejects.toThrow(/pages do not end/);
      await expect(follow).rejects.toMatchObject({ exitCode: 8 });
      expect(reader.reads).toBeLessThan(20);
    });
  }

  it('wait on many tasks searching a listing that repeats itself stops with exit 8', async () => {
    const clock = new FakeClock();
    const reader = new RepeatingPages();
    const ids = Array.from({ length: 300 }, (_, i) => 5000 + i);
    const follow = followTasks(options(reader, clock, { ids }));
    await expect(follow).rejects.toThrow(/pages do not end/);
    expect(reader.reads).toBeLessThan(20);
  });
});

/** Task 1 read as one task, then as another under the same id (a service whose ids restarted). */
class ReplacedTask implements TaskReader {
  readonly rateLimiter = UNPACED;
  reads = 0;
  constructor(
    private readonly clock: FakeClock,
    private readonly replacedAt: number,
  ) {}
  private current(id: number): Task {
    if (this.clock.now() - T0 < this.replacedAt)
      return task(id, 'processing', { service: 'domain_check_availability', total_items: 40, completed_items: 5 });
    const created_at = new Date(T0 + this.replacedAt).toISOString();
    return task(id, 'completed', { service: 'email_verify', total_items: 1, completed_items: 1, created_at });
  }
  async listTasks(): Promise<{ tasks: Task[]; meta: PageMeta }> {
    this.reads++;
    const tasks = [this.current(1)];
    return { tasks, meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: 1 } };
  }
  async getTask(id: number): Promise<Task> {
    this.reads++;
    return this.current(id);
  }
}

describe('followTasks: a followed id that names another task', () => {
  it("ends the follow (exit 8) naming both, never reporting the other task's outcome", async () => {
    const clock = new FakeClock();
    const reader = new ReplacedTask(clock, 5_000);
    const seen: string[] = [];
    const follow = followTasks(options(reader, clock, { onChange: (c) => seen.push(c.task.status) }));
    const error = await follow.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as MalformedResponseError).exitCode).toBe(8);
    expect((error as Error).message).toMatch(/task 1 .*domain_check_availability, 40 items.*email_verify, 1 item/);
    expect(seen).toEqual(['processing']);
  });

  it('watch with no ids follows the new task under a reused id afresh', async () => {
    const clock = new FakeClock();
    const reader = new ReplacedTask(clock, 5_000);
    const seen: string[] = [];
    const result = await followTasks(
      options(reader, clock, {
        ids: 'all-unfinished',
        onChange: (c) => seen.push(`${c.task.service} ${c.task.status}`),
      }),
    );
    expect(result.reason).toBe('done');
    expect(seen).toEqual(['domain_check_availability processing', 'email_verify completed']);
  });
});

/** A listing that names task 3 twice on one page (processing, and again as failed); its own read says otherwise. */
class PageListingOneIdTwice implements TaskReader {
  readonly rateLimiter = UNPACED;
  gets = 0;
  constructor(private readonly clock: FakeClock) {}
  private status(): string {
    return this.clock.now() - T0 < 5_000 ? 'processing' : 'completed';
  }
  async listTasks(): Promise<{ tasks: Task[]; meta: PageMeta }> {
    const tasks = [task(3, this.status()), task(3, 'failed', { failed_at: new Date(T0).toISOString() })];
    return { tasks, meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: 2 } };
  }
  async getTask(id: number): Promise<Task> {
    this.gets++;
    return task(id, this.status(), this.status() === 'completed' ? { completed_items: 1, failed_items: 0 } : {});
  }
}

describe('followTasks: a page that lists one id twice', () => {
  it('takes neither entry: the task is read by its own GET, and the repeat is reported', async () => {
    const clock = new FakeClock();
    const reader = new PageListingOneIdTwice(clock);
    const seen: string[] = [];
    const repeats: string[] = [];
    const result = await followTasks(
      options(reader, clock, {
        ids: 'all-unfinished',
        onChange: (c) => seen.push(c.task.status),
        onPageRepeats: (page, ids) => repeats.push(`${page}:${ids.join(',')}`),
      }),
    );
    expect(result.reason).toBe('done');
    expect(seen).not.toContain('failed');
    expect(seen.at(-1)).toBe('completed');
    expect(reader.gets).toBeGreaterThan(0);
    expect(repeats[0]).toBe('1:3');
  });
});

/** Task 3, finished before the watch began, listed twice on every page read; task 5 running, then completed. */
class FinishedListedTwice implements TaskReader {
  readonly rateLimiter = UNPACED;
  constructor(private readonly clock: FakeClock) {}
  private five(): Task {
    return this.clock.now() - T0 < 5_000
      ? task(5, 'processing')
      : task(5, 'completed', { completed_items: 1, failed_items: 0 });
  }
  async listTasks(): Promise<{ tasks: Task[]; meta: PageMeta }> {
    const done = task(3, 'completed', { completed_items: 1, failed_items: 0 });
    return {
      tasks: [this.five(), done, done],
      meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: 3 },
    };
  }
  async getTask(id: number): Promise<Task> {
    return id === 5 ? this.five() : task(3, 'completed', { completed_items: 1, failed_items: 0 });
  }
}

describe('followTasks --follow: a task finished before it began, listed twice', () => {
  it('is let go once its own read shows it finished, as the first scan lets a finished task go: no line of it', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const result = await followTasks(
      options(new FinishedListedTwice(clock), clock, {
        ids: 'all-unfinished',
        follow: true,
        deadline: T0 + 60_000,
        onChange: (c) => seen.push(`${c.task.id} ${c.task.status}`),
      }),
    );
    expect(result.reason).toBe('timeout');
    expect(seen).toEqual(['5 processing', '5 completed']);
  });
});

/** Task 1 read as processing 3/4, then pending 0/4 every third read (a service going back), then completed. */
class GoingBack implements TaskReader {
  readonly rateLimiter = UNPACED;
  reads = 0;
  async listTasks(): Promise<{ tasks: Task[]; meta: PageMeta }> {
    return { tasks: [], meta: { current_page: 1, per_page: 100, total_pages: 1, total_count: 0 } };
  }
  async getTask(id: number): Promise<Task> {
    this.reads++;
    if (this.reads >= 7) return task(id, 'completed', { total_items: 4, completed_items: 4, failed_items: 0 });
    if (this.reads % 3 === 2) return task(id, 'pending', { total_items: 4, completed_items: 0, failed_items: 0 });
    return task(id, 'processing', { total_items: 4, completed_items: 3, failed_items: 0 });
  }
}

describe('followTasks: a task that goes back', () => {
  it('is reported once (processing to pending, counts falling), and the follow goes on to its end', async () => {
    const clock = new FakeClock();
    const back: string[] = [];
    const result = await followTasks(
      options(new GoingBack(), clock, { onBackwards: (_previous, _task, words) => back.push(words) }),
    );
    expect(result.reason).toBe('done');
    expect(back).toEqual(['task 1 went back: processing 3/4, then pending 0/4']);
  });
});
