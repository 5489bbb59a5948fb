/**
 * A busy account's task list, as the `--reuse-window` walk of create, retry and resume meets it: `pages` pages of 100
 * one-item tasks, newest first, one every 2 s back from T0 (the task at position n, 0 the newest, has id 5000 - n and
 * was created at T0 - 1 s - n × 2 s; `busyTask` gives both). With `items`, each task of the service asked for is
 * readable with GET /tasks/:id (four-digit ids only: a test's own task, such as retry's source 42, is its own reply).
 */
import { T0, type MockApi } from './run-in-process.js';

export interface BusyList {
  /** Pages the list says it has (default 12: more than the walk's bound of 10). */
  pages?: number;
  /** The service of the task at position n (default: another service than any a test creates). */
  service?: (n: number) => string;
  /** The first `quietFirst` list reads answer an empty list (the account was quiet when the job began). */
  quietFirst?: number;
  /** The items GET /tasks/:id lists for the task at position n; without it no task is readable. */
  items?: (n: number) => string[];
  /** More fields of the task at position n as the list shows it (its item counts, say). */
  listed?: (n: number) => Record<string, unknown>;
  /** Called at each read of a task (a test moves its clock on there: reads that take their time). */
  onRead?: (n: number) => void;
  /** How many list reads and task reads are answered (defaults: 200 and 2,000). */
  times?: { lists?: number; reads?: number };
}

/** The id and creation time of the task at position n (0 the newest). */
export function busyTask(n: number): { id: number; at: string } {
  return { id: 5000 - n, at: new Date(T0 - 1000 - n * 2000).toISOString() };
}

/** Registers the busy list (and, with `items`, its tasks' reads) on `api`. */
export function replyBusyList(api: MockApi, list: BusyList = {}): void {
  const { pages = 12, quietFirst = 0, service = () => 'email_validation', items, onRead } = list;
  const row = (n: number) => {
    const { id, at } = busyTask(n);
    return { id, service: service(n), status: 'completed', total_items: 1, cost: 1, created_at: at, completed_at: at };
  };
  const listedRow = (n: number) => ({ ...row(n), ...list.listed?.(n) });
  if (items)
    api.reply(
      'GET',
      /^\/tasks\/\d{4}$/,
      200,
      (path: string) => {
        const n = 5000 - Number(/(\d+)$/.exec(path)?.[1]);
        onRead?.(n);
        const targets = items(n);
        return {
          success: true,
          data: {
            ...row(n),
            processed_items: targets.length,
            total_items: targets.length,
            items: targets.map((target) => ({ target, status: 'completed' })),
          },
        };
      },
      { times: list.times?.reads ?? 2000 },
    );
  let lists = 0;
  api.reply(
    'GET',
    /^\/tasks\?/,
    200,
    (path: string) => {
      if (lists++ < quietFirst)
        return { success: true, data: [], meta: { current_page: 1, total_pages: 1, total_count: 0, per_page: 100 } };
      const page = Number(/page=(\d+)/.exec(path)?.[1] ?? '1');
      const data = Array.from({ length: 100 }, (_, i) => listedRow((page - 1) * 100 + i));
      return {
        success: true,
        data,
        meta: { current_page: page, total_pages: pages, total_count: pages * 100, per_page: 100 },
      };
    },
    { times: list.times?.lists ?? 200 },
  );
}

/**
 * POST /tasks answered `times` times, each a new one-item task of `service` (ids `firstId`, then on: 7001, 7002, … by
 * default) created at T0.
 */
export function replyCreates(api: MockApi, service: string, times = 5, firstId = 7001): void {
  let id = firstId - 1;
  api.reply(
    'POST',
    '/tasks',
    201,
    () => ({
      success: true,
      data: {
        id: ++id,
        service,
        status: 'pending',
        total_items: 1,
        cost: 1,
        created_at: new Date(T0).toISOString(),
      },
      message: 'created',
    }),
    { times },
  );
}
