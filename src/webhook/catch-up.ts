/**
 * `webhook listen --catch-up DURATION` / `--catch-up-task ID`: the events a receiver that was down missed, rebuilt from
 * the task list, one per task for its current state (`processing`, `completed` or `failed`; a pending task has none).
 * Built like the service's events (docs/behaviour.md#webhook-receiver), but a field the API did not give is left out rather than guessed,
 * and the envelope says `"synthesised": true`.
 */
import type { Task } from '../api/schemas.js';
import { toWebhookEvent } from '../api/task-event.js';
import { PageWalkGuard } from '../lib/page-guard.js';

export interface CatchUpSource {
  listTasks: (q: { page: number; perPage: number }) => Promise<{ tasks: Task[]; meta: { total_pages: number } }>;
  getTask: (id: number) => Promise<Task>;
}

const PER_PAGE = 100;

/** The tasks named, and those created within `sinceMs` of `now` (the list is newest first: it stops at the first older). */
export async function tasksToCatchUp(
  api: CatchUpSource,
  request: { withinMs?: number | undefined; ids: readonly number[]; now: number },
): Promise<Task[]> {
  const byId = new Map<number, Task>();
  if (request.withinMs !== undefined) {
    const since = request.now - request.withinMs;
    const guard = new PageWalkGuard<Task>('GET /tasks');
    for (let page = 1; ; page++) {
      const { tasks, meta } = await api.listTasks({ page, perPage: PER_PAGE });
      const fresh = guard.accept(page, meta.total_pages, tasks);
      let older = false;
      for (const task of fresh) {
        if (Date.parse(task.created_at) >= since) byId.set(task.id, task);
        else older = true;
      }
      if (older || page >= meta.total_pages || tasks.length === 0) break;
    }
  }
  for (const id of request.ids) if (!byId.has(id)) byId.set(id, await api.getTask(id));
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Task fields that the API may leave out, and the event field each one stands for. */
const OPTIONAL_FIELDS = ['platform', 'completed_items', 'failed_items', 'started_at', 'failed_at', 'error_message'];

/** The synthesised event for the task's current state, or undefined when that state has no event. */
export function synthesiseEvent(task: Task, now: number): Record<string, unknown> | undefined {
  const event = toWebhookEvent(task, now);
  if (!event) return undefined;
  const given = task as Record<string, unknown>;
  const missing = new Set(OPTIONAL_FIELDS.filter((field) => given[field] === undefined || given[field] === null));
  if (task.completed_at === null || task.completed_at === undefined) missing.add('completed_at');
  const shaped = Object.fromEntries(Object.entries(event.task).filter(([field]) => !missing.has(field)));
  return { event: event.event, timestamp: event.timestamp, task: shaped, synthesised: true };
}
