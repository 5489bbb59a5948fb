/**
 * Fires each task's transitions (processing, then completed or failed) at the times derived by timeline.ts.
 * One real timer for the earliest pending transition; the task state itself never depends on these timers.
 */
import type { WebhookEvent } from '../api/schemas.js';
import { snapshotTask } from './timeline.js';
import type { TaskRecord } from './timeline.js';
import type { TimerSet } from './timers.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The webhook envelope of docs/openapi.json (webhooks) for one transition, with exactly that event's task fields. */
function buildWebhookEvent(task: TaskRecord, event: 'processing' | 'terminal'): WebhookEvent {
  const base = {
    id: task.id,
    service: task.service,
    platform: task.platform,
    total_items: task.itemCount,
    cost: task.cost,
    created_at: iso(task.createdAt),
  };
  if (event === 'processing') {
    const at = iso(task.startAt);
    return {
      event: 'processing',
      timestamp: at,
      task: { ...base, status: 'processing', completed_items: 0, failed_items: 0, started_at: at },
    };
  }
  const snap = snapshotTask(task, task.finishAt);
  const at = iso(task.finishAt);
  const counts = { completed_items: snap.completedItems, failed_items: snap.failedItems };
  if (snap.status === 'failed') {
    return {
      event: 'failed',
      timestamp: at,
      task: { ...base, status: 'failed', ...counts, error_message: snap.errorMessage ?? 'task failed', failed_at: at },
    };
  }
  return { event: 'completed', timestamp: at, task: { ...base, status: 'completed', ...counts, completed_at: at } };
}

interface Tracked {
  task: TaskRecord;
  /** Whether the `processing` transition has fired. */
  started: boolean;
}

export class LifecycleScheduler {
  private readonly active = new Map<number, Tracked>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number,
    private readonly timers: TimerSet,
    private readonly emit: (event: WebhookEvent, task: TaskRecord) => void,
  ) {}

  /** Watches a task; transitions already in the past (a task reloaded from the state file) are not replayed. */
  track(task: TaskRecord, { replayPast }: { replayPast: boolean }): void {
    const now = this.now();
    if (!replayPast && now >= task.finishAt) return;
    this.active.set(task.id, { task, started: !replayPast && now >= task.startAt });
    this.arm(now);
  }

  private tick(): void {
    this.timer = undefined;
    const now = this.now();
    for (const [id, tracked] of this.active) {
      if (!tracked.started && now >= tracked.task.startAt) {
        tracked.started = true;
        this.emit(buildWebhookEvent(tracked.task, 'processing'), tracked.task);
      }
      if (tracked.started && now >= tracked.task.finishAt) {
        this.active.delete(id);
        this.emit(buildWebhookEvent(tracked.task, 'terminal'), tracked.task);
      }
    }
    this.arm(now);
  }

  private arm(now: number): void {
    this.timers.clear(this.timer);
    this.timer = undefined;
    let due = Infinity;
    for (const { task, started } of this.active.values()) due = Math.min(due, started ? task.finishAt : task.startAt);
    if (due !== Infinity) this.timer = this.timers.set(() => this.tick(), due - now);
  }
}
