/**
 * `webhook listen --catch-up DURATION` / `--catch-up-task ID`: the events a receiver that was down missed, rebuilt from
 * the task list, one per task for its current state (`processing`, `completed` or `failed`; a pending task has none).
 * Built like the service's events (docs/behaviour.md#webhook-receiver), but a field the API did not give is left out rather than guessed,
 * and the envelope says `"synthesised": true`.
 */
import type { Task } from '../api/schemas.js';
import { toWebhookEvent } from '../api/task-event.js';
import { PageWalkGuard } from '../lib/page-guard.js';
import { stateEnteredAt } from '../lib/task-state.js';

export interface CatchUpSource {
  listTasks: (q: { page: number; perPage: number }) => Promise<{ tasks: Task[]; meta: { total_pages: number } }>;
  getTask: (id: number) => Promise<Task>;
}

const PER_PAGE = 100;
/** Task ids a message names at most; the rest are counted. */
const IDS_SHOWN = 20;

interface CatchUpRequest {
  /** Tasks created within this of `now`. */
  withinMs?: number | undefined;
  /**
   * Where that window starts on the service's clock, asked once the first page is answered (its `Date` read: the
   * caller's core/server-time.ts `serviceNow`); without it, `now - withinMs`.
   */
  windowStart?: (() => number) | undefined;
  /** Tasks named (`--catch-up-task`). */
  ids: readonly number[];
  now: number;
  /** Ctrl-C: stops at the next event (its place in the queue not yet taken). */
  signal: AbortSignal;
}

/** What a catch-up did. Ids only, never whole tasks: the memory it holds stays small whatever the window. */
interface CatchUpResult {
  /** Tasks in the window or named. */
  tasks: number;
  handedOn: number;
  /** Events the listener had handled already (the same task and event: acknowledged, not handed on again). */
  duplicates: number;
  /** Tasks with no event yet (pending). */
  pending: number;
  /** Tasks whose event was refused (the app did not accept it), in the order handed. */
  refused: number[];
  /** Why the first of them was refused (the listener's note). */
  refusal: string | undefined;
  /** Tasks not reached before Ctrl-C: id → created_at in ms (NaN for a task only named). */
  left: ReadonlyMap<number, number>;
}

/**
 * Hands on one event per task, oldest first, each waiting for room (`inject` waits; status 0 = stopped). The list is
 * newest first, so it is walked twice: down to the window's end keeping only ids, then back up a page at a time,
 * each page's tasks handed on before the next is read; a task shifted off its page meanwhile (tasks created during
 * the walk) is read alone at the end, as are named tasks outside the window.
 */
export async function runCatchUp(
  api: CatchUpSource,
  inject: (raw: string) => Promise<{ status: number; note: string; duplicate?: boolean }>,
  request: CatchUpRequest,
): Promise<CatchUpResult> {
  const wanted = new Map<number, number>();
  let walk: { lastPage: number; lastTasks: Task[] } | undefined;
  const { withinMs, windowStart } = request;
  if (withinMs !== undefined) walk = await windowIds(api, windowStart ?? (() => request.now - withinMs), wanted);
  for (const id of request.ids) if (!wanted.has(id)) wanted.set(id, Number.NaN);
  const result: CatchUpResult = {
    tasks: wanted.size,
    handedOn: 0,
    duplicates: 0,
    pending: 0,
    refused: [],
    refusal: undefined,
    left: wanted,
  };
  const handOne = async (task: Task): Promise<boolean> => {
    if (!wanted.delete(task.id)) return true;
    const event = synthesiseEvent(task, request.now);
    if (!event) {
      result.pending++;
      return true;
    }
    const { status, note, duplicate } = await inject(JSON.stringify(event));
    if (status === 0) {
      // Stopped while waiting for room: not handed on, so still left.
      wanted.set(task.id, Date.parse(task.created_at));
      return false;
    }
    if (status === 200 && duplicate === true) result.duplicates++;
    else if (status === 200) result.handedOn++;
    else {
      result.refused.push(task.id);
      // Nobody sends a synthesised event again: the note's "the service will send it again" is not true of it.
      result.refusal ??= note.replace(/; the service will send it again$/, '');
    }
    return true;
  };
  try {
    if (walk) {
      for (let page = walk.lastPage; page >= 1 && wanted.size > 0 && !request.signal.aborted; page--) {
        const tasks =
          page === walk.lastPage ? walk.lastTasks : (await api.listTasks({ page, perPage: PER_PAGE })).tasks;
        if (
          !(await handAll(
            tasks.filter((task) => wanted.has(task.id)),
            handOne,
          ))
        )
          break;
      }
    }
    for (const id of [...wanted.keys()].sort((a, b) => a - b)) {
      if (request.signal.aborted || !(await handOne(await api.getTask(id)))) break;
    }
  } catch (error) {
    // Ctrl-C cut a request short: what is left is reported, not the error.
    if (!request.signal.aborted) throw error;
  }
  return result;
}

async function handAll(tasks: Task[], handOne: (task: Task) => Promise<boolean>): Promise<boolean> {
  for (const task of tasks.sort((a, b) => a.id - b.id)) if (!(await handOne(task))) return false;
  return true;
}

/**
 * The ids (and created_at) of the tasks created since `start()`, asked once after the first page's answer: the list is
 * newest first, so it stops at the first older.
 */
async function windowIds(
  api: CatchUpSource,
  start: () => number,
  wanted: Map<number, number>,
): Promise<{ lastPage: number; lastTasks: Task[] }> {
  const guard = new PageWalkGuard<Task>('GET /tasks');
  let since: number | undefined;
  for (let page = 1; ; page++) {
    const { tasks, meta } = await api.listTasks({ page, perPage: PER_PAGE });
    since ??= start();
    const fresh = guard.accept(page, meta.total_pages, tasks);
    let older = false;
    for (const task of fresh) {
      const created = Date.parse(task.created_at);
      if (created >= since) wanted.set(task.id, created);
      else older = true;
    }
    if (older || page >= meta.total_pages || tasks.length === 0) return { lastPage: page, lastTasks: tasks };
  }
}

/** `tasks 6, 7, 8` or `tasks 6, 7, … (the first 20) and 9,882 more`: one short line whatever the count. */
export function taskIdList(ids: readonly number[]): string {
  const shown = ids.slice(0, IDS_SHOWN).join(', ');
  return ids.length > IDS_SHOWN
    ? `tasks ${shown} (the first ${IDS_SHOWN}) and ${ids.length - IDS_SHOWN} more`
    : `tasks ${shown}`;
}

/**
 * The flags that catch up the tasks left: `--catch-up-task` for a few (or for tasks only named), else a `--catch-up`
 * window, in whole minutes, reaching back to the oldest left (it takes in the tasks created since, too).
 */
export function restFlags(left: ReadonlyMap<number, number>, now: number): string {
  const named = [...left].filter(([, created]) => Number.isNaN(created)).map(([id]) => id);
  const listed = [...left.values()].filter((created) => !Number.isNaN(created));
  const byId = (ids: number[]): string =>
    ids
      .sort((a, b) => a - b)
      .map((id) => `--catch-up-task ${id}`)
      .join(' ');
  if (left.size <= 5) return byId([...left.keys()]);
  const oldest = listed.reduce((a, b) => Math.min(a, b), Infinity);
  const window = listed.length > 0 ? `--catch-up ${Math.max(1, Math.ceil((now - oldest) / 60_000))}m` : '';
  return [window, byId(named.slice(0, IDS_SHOWN))].filter(Boolean).join(' ');
}

/** Task fields that the API may leave out, and the event field each one stands for. */
const OPTIONAL_FIELDS = ['platform', 'completed_items', 'failed_items', 'started_at', 'failed_at', 'error_message'];

/**
 * The synthesised event for the task's current state, or undefined when that state has no event. Its timestamp is
 * the task's own time for that state (lib/task-state.ts stateEnteredAt), not this machine's clock.
 */
export function synthesiseEvent(task: Task, now: number): Record<string, unknown> | undefined {
  const event = toWebhookEvent(task, stateEnteredAt(task, now));
  if (!event) return undefined;
  const given = task as Record<string, unknown>;
  const missing = new Set(OPTIONAL_FIELDS.filter((field) => given[field] === undefined || given[field] === null));
  if (task.completed_at === null || task.completed_at === undefined) missing.add('completed_at');
  const shaped = Object.fromEntries(Object.entries(event.task).filter(([field]) => !missing.has(field)));
  return { event: event.event, timestamp: event.timestamp, task: shaped, synthesised: true };
}
