/** Catch-up: the tasks it takes, the events it builds, and that it hands every one on, waiting for room in the queue. */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../../src/api/schemas.js';
import { restFlags, runCatchUp, synthesiseEvent, taskIdList } from '../../../src/webhook/catch-up.js';
import { startWebhookListener, type WebhookListener } from '../../../src/webhook/listener.js';
import { FakeClock, T0 } from '../../clock.js';
import { waitFor } from '../../wait-for.js';

const KEY = 'sk_test_catchup_71c2';
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function task(id: number, minutesAgo: number, extra: Partial<Task> = {}): Task {
  return {
    id,
    service: 'domain_check_availability',
    status: 'completed',
    total_items: 2,
    cost: 2,
    created_at: new Date(T0 - minutesAgo * 60_000).toISOString(),
    completed_at: new Date(T0 - minutesAgo * 60_000 + 1000).toISOString(),
    ...extra,
  };
}

describe('catch-up', () => {
  it('takes the tasks created within the window (newest first, stopping at the first older one) and the named ones, oldest first', async () => {
    const all = [task(5, 1), task(4, 10), task(3, 50), task(2, 70), task(1, 90)];
    const pages: number[] = [];
    const api = {
      listTasks: async ({ page, perPage }: { page: number; perPage: number }) => {
        pages.push(page);
        const slice = all.slice((page - 1) * 2, page * 2);
        expect(perPage).toBe(100);
        return { tasks: slice, meta: { total_pages: 3 } };
      },
      getTask: async (id: number) => all.find((t) => t.id === id) ?? Promise.reject(new Error('404')),
    };
    const handed: number[] = [];
    const inject = async (raw: string) => {
      handed.push((JSON.parse(raw) as { task: { id: number } }).task.id);
      return { status: 200, note: '' };
    };
    const signal = new AbortController().signal;
    const result = await runCatchUp(api, inject, { withinMs: 60 * 60_000, ids: [1, 4], now: T0, signal });
    expect(handed).toEqual([3, 4, 5, 1]);
    expect(result).toMatchObject({ tasks: 4, handedOn: 4, pending: 0, refused: [] });
    expect(result.left.size).toBe(0);
    // Down to the window's end keeping ids, then back up; the last page read is not read again.
    expect(pages).toEqual([1, 2, 1]);
  });

  it("counts the window back from the start its caller reads after the first page (the service's clock), not from now", async () => {
    // This machine's clock is 10 minutes ahead of the service's: the task made 55 minutes ago on the service's clock
    // is within --catch-up 1h.
    const all = [task(3, 55), task(2, 65)];
    let asked = 0;
    const api = {
      listTasks: async () => ({ tasks: all, meta: { total_pages: 1 } }),
      getTask: async (id: number) => all.find((t) => t.id === id) ?? Promise.reject(new Error('404')),
    };
    const handed: number[] = [];
    const inject = async (raw: string) => {
      handed.push((JSON.parse(raw) as { task: { id: number } }).task.id);
      return { status: 200, note: '' };
    };
    const windowStart = () => {
      asked += 1;
      return T0 - 60 * 60_000;
    };
    const signal = new AbortController().signal;
    const now = T0 + 600_000;
    await runCatchUp(api, inject, { withinMs: 60 * 60_000, windowStart, ids: [], now, signal });
    expect(handed).toEqual([3]);
    expect(asked).toBe(1);
  });

  it('builds one event per task for its state, marked synthesised, leaving out fields the API did not give', () => {
    const bare = synthesiseEvent(task(7, 5), T0);
    expect(bare).toEqual({
      event: 'completed',
      timestamp: '2025-01-15T11:55:01.000Z',
      synthesised: true,
      task: {
        id: 7,
        service: 'domain_check_availability',
        status: 'completed',
        total_items: 2,
        cost: 2,
        created_at: '2025-01-15T11:55:00.000Z',
        completed_at: '2025-01-15T11:55:01.000Z',
      },
    });
    const full = synthesiseEvent(
      task(8, 5, {
        status: 'failed',
        platform: 'domain',
        completed_items: 1,
        failed_items: 1,
        completed_at: null,
        failed_at: '2025-01-15T11:56:00.000Z',
        error_message: 'boom',
      }),
      T0,
    );
    expect(full?.task).toMatchObject({ platform: 'domain', failed_items: 1, error_message: 'boom', status: 'failed' });
    expect(synthesiseEvent(task(9, 1, { status: 'pending', completed_at: null }), T0)).toBeUndefined();
  });

  it("stamps each event with the task's own time for its state (the service's clock), this machine's only when it has none", () => {
    // This machine two hours ahead of the service: its clock must not date an event before the task's own times.
    const ahead = T0 + 2 * 60 * 60_000;
    const at = (t: Task) => synthesiseEvent(t, ahead)?.timestamp;
    expect(at(task(7, 5))).toBe('2025-01-15T11:55:01.000Z');
    const failedAt = '2025-01-15T11:56:00.000Z';
    expect(at(task(8, 5, { status: 'failed', completed_at: null, failed_at: failedAt }))).toBe(failedAt);
    const startedAt = '2025-01-15T11:55:30.000Z';
    expect(at(task(9, 5, { status: 'processing', completed_at: null, started_at: startedAt }))).toBe(startedAt);
    expect(at(task(10, 5, { status: 'processing', completed_at: null }))).toBe(new Date(ahead).toISOString());
  });

  it('an event the app refused is counted apart, with why, and catch-up goes on', async () => {
    const all = [task(3, 1), task(2, 2), task(1, 3)];
    const api = {
      listTasks: async () => ({ tasks: all, meta: { total_pages: 1 } }),
      getTask: async () => Promise.reject(new Error('not read')),
    };
    const inject = async (raw: string) =>
      raw.includes('"id":2')
        ? { status: 502, note: 'completed task 2: the app did not accept it; the service will send it again' }
        : { status: 200, note: '' };
    const signal = new AbortController().signal;
    const result = await runCatchUp(api, inject, { withinMs: 3_600_000, ids: [], now: T0, signal });
    expect(result).toMatchObject({ tasks: 3, handedOn: 2, refused: [2] });
    expect(result.refusal).toBe('completed task 2: the app did not accept it');
  });

  it('an event the listener had already handled is counted apart as a duplicate, not as handed on', async () => {
    const all = [task(3, 1), task(2, 2), task(1, 3)];
    const api = {
      listTasks: async () => ({ tasks: all, meta: { total_pages: 1 } }),
      getTask: async () => Promise.reject(new Error('not read')),
    };
    const printed: string[] = [];
    const listener = await startWebhookListener({
      port: 0,
      apiKey: KEY,
      clock: new FakeClock(),
      onEvent: (e, note) => {
        if (!note.duplicate) printed.push(e.taskId ?? '?');
      },
    });
    cleanups.push(() => listener.close());
    // Task 2's event as the service delivered it before the listener stopped: the same (task, event) pair.
    expect((await listener.inject(JSON.stringify(synthesiseEvent(task(2, 2), T0)))).status).toBe(200);
    const signal = new AbortController().signal;
    const result = await runCatchUp(api, (raw) => listener.inject(raw, signal), {
      withinMs: 3_600_000,
      ids: [],
      now: T0,
      signal,
    });
    expect(result).toMatchObject({ tasks: 3, handedOn: 2, duplicates: 1, refused: [] });
    expect(printed).toEqual(['2', '1', '3']);
  });

  it('cuts a long id list, and names the flags that catch up what Ctrl-C left', () => {
    expect(taskIdList([6, 7, 8])).toBe('tasks 6, 7, 8');
    const many = Array.from({ length: 9902 }, (_, i) => i + 6);
    const line = taskIdList(many);
    expect(line).toMatch(/^tasks 6, 7, .*, 25 \(the first 20\) and 9882 more$/);
    expect(line.length).toBeLessThan(200);
    expect(
      restFlags(
        new Map([
          [9, T0],
          [4, Number.NaN],
        ]),
        T0,
      ),
    ).toBe('--catch-up-task 4 --catch-up-task 9');
    const left = new Map(Array.from({ length: 10 }, (_, i) => [i + 1, T0 - (30 - i) * 60_000] as const));
    left.set(77, Number.NaN);
    expect(restFlags(left, T0 + 30_000)).toBe('--catch-up 31m --catch-up-task 77');
  });
});

/** Twenty completed tasks, created a minute apart, listed newest first eight to a page. */
function twentyTasks() {
  const all = Array.from({ length: 20 }, (_, i) => task(20 - i, i + 1));
  const api = {
    listTasks: async ({ page }: { page: number }) => ({
      tasks: all.slice((page - 1) * 8, page * 8),
      meta: { total_pages: 3 },
    }),
    getTask: async (id: number) => all.find((t) => t.id === id) ?? Promise.reject(new Error('404')),
  };
  return api;
}

/**
 * A listener with `--queue 5` whose command for task 1 waits until `release()`, so the queue stays full: catch-up
 * must wait for room. `ran()` is the order the commands ran in.
 */
async function gatedListener() {
  const dir = await mkdtemp(join(tmpdir(), 'taskctl-catchup-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const gate = join(dir, 'gate');
  const out = join(dir, 'ran');
  expect(spawnSync('mkfifo', [gate]).status).toBe(0);
  const printed: string[] = [];
  const listener: WebhookListener = await startWebhookListener({
    port: 0,
    apiKey: KEY,
    queue: 5,
    clock: new FakeClock(),
    exec: `echo $TASKCTL_TASK_ID >> ${out}; [ "$TASKCTL_TASK_ID" != 1 ] || read x < ${gate}`,
    onEvent: (e) => {
      printed.push(e.taskId ?? '?');
    },
  });
  cleanups.push(() => listener.abandon());
  const ran = async () => (await readFile(out, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  const blocked = () =>
    waitFor(async () => (await ran()).includes('1') && printed.length === 3, {
      describe: async () => `printed ${printed.join(',')}; ran ${(await ran()).join(',')}`,
    });
  return { listener, printed, ran, blocked, release: () => writeFile(gate, 'go\n') };
}

function liveEvent(id: number): string {
  const live = synthesiseEvent(task(id, 0), T0)!;
  delete live.synthesised;
  return JSON.stringify(live);
}

describe('catch-up through a small queue', () => {
  it('with --queue 5 and 20 tasks hands on all 20 in order, none refused, and a live delivery meanwhile is handled', async () => {
    const { listener, printed, ran, blocked, release } = await gatedListener();
    const signal = new AbortController().signal;
    const running = catchUpTwenty(listener, signal);
    await blocked();
    // Task 1's command runs, 2 and 3 wait: catch-up holds half the queue (3 of 5) and waits; nothing refused.
    expect(listener.counts()).toMatchObject({ acknowledged: 3, refused: 0 });
    const live = await fetch(listener.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': KEY },
      body: liveEvent(99),
    });
    expect(live.status).toBe(200);
    await release();
    const result = await running;
    expect(result).toMatchObject({ tasks: 20, handedOn: 20, refused: [] });
    await listener.close();
    const order = Array.from({ length: 20 }, (_, i) => String(i + 1));
    expect(printed).toEqual([...order.slice(0, 3), '99', ...order.slice(3)]);
    expect(await ran()).toEqual([...order.slice(0, 3), '99', ...order.slice(3)]);
    expect(listener.counts()).toMatchObject({ acknowledged: 21, refused: 0, executed: 21 });
  });

  it('Ctrl-C while it waits for room: what was handed on runs, the rest is left with the flags to catch it up', async () => {
    const { listener, ran, blocked, release } = await gatedListener();
    const stop = new AbortController();
    const { signal } = stop;
    const running = catchUpTwenty(listener, signal);
    await blocked();
    stop.abort();
    const result = await running;
    expect(result).toMatchObject({ tasks: 20, handedOn: 3, refused: [] });
    expect([...result.left.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i + 4));
    // Task 4 was created 17 minutes before T0: the window reaches back to it.
    expect(restFlags(result.left, T0)).toBe('--catch-up 17m');
    await release();
    await listener.close();
    expect(await ran()).toEqual(['1', '2', '3']);
  });
});

/** Catch-up of the twenty tasks of the last hour through `listener`, stopped by `signal`. */
function catchUpTwenty(listener: WebhookListener, signal: AbortSignal): ReturnType<typeof runCatchUp> {
  return runCatchUp(twentyTasks(), (raw) => listener.inject(raw, signal), {
    withinMs: 3_600_000,
    ids: [],
    now: T0,
    signal,
  });
}
