/** API representations of a task, derived from its record at a moment in time. */
import type { Task, TaskItem } from '../api/schemas.js';
import { findService, itemResult } from './simulated-services.js';
import { itemState, snapshotTask } from './timeline.js';
import type { TaskRecord, TaskSnapshot } from './timeline.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The creation response's task: exactly the fields of docs/openapi.json's `Task`, always `pending`. */
export function createdTaskView(task: TaskRecord): Task {
  return {
    id: task.id,
    service: task.service,
    status: 'pending',
    total_items: task.itemCount,
    cost: task.cost,
    created_at: iso(task.createdAt),
    completed_at: null,
  };
}

/** A task as listed (no items): docs/openapi.json's `Task` fields plus the webhook fields that are known at `now`. */
export function taskView(task: TaskRecord, now: number, snap: TaskSnapshot = snapshotTask(task, now)): Task {
  const view: Task = {
    id: task.id,
    service: task.service,
    platform: task.platform,
    status: snap.status,
    total_items: task.itemCount,
    completed_items: snap.completedItems,
    failed_items: snap.failedItems,
    cost: task.cost,
    created_at: iso(task.createdAt),
    completed_at: snap.completedAt === null ? null : iso(snap.completedAt),
  };
  if (snap.startedAt !== null) view.started_at = iso(snap.startedAt);
  if (snap.failedAt !== null) view.failed_at = iso(snap.failedAt);
  if (snap.errorMessage !== null) view.error_message = snap.errorMessage;
  return view;
}

/** GET /tasks/:id: the task with one entry per item; results only for items already processed. */
export function taskDetailView(task: TaskRecord, now: number, seed: string): Task {
  const snap = snapshotTask(task, now);
  const service = findService(task.service);
  const items: TaskItem[] = task.items.map((target, index) => {
    const state = itemState(task, snap, index);
    if (state.status === 'completed') {
      return { target, status: 'completed', data: service ? itemResult(seed, service, target) : {} };
    }
    if (state.status === 'failed') return { target, status: 'failed', data: null, error: state.error };
    return { target, status: state.status, data: null };
  });
  return { ...taskView(task, now, snap), items };
}
