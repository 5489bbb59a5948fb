/**
 * Task progress is derived from the clock, never stepped: a task stores when it starts and how long each item takes,
 * and every read computes where it is now. A 10,000-item task costs a few index arrays, not a timer per item.
 */

/** Magic item prefixes, like a payment sandbox's test cards. */
const MAGIC = { fail: 'fail-', taskFail: 'taskfail-', slow: 'slow-' } as const;
/** `slow-` items take this many times `itemMs`. */
const SLOW_FACTOR = 10;
/** Time a new task waits in the queue before processing starts: min(itemMs, this). */
export const MAX_QUEUE_DELAY_MS = 50;

type TaskStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** What is stored (and persisted) per task. */
export interface StoredTask {
  id: number;
  service: string;
  items: string[];
  cost: number;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms at which processing starts. */
  startAt: number;
  /** Work per item, fixed at creation so a restart with another --item-ms does not rewrite history. */
  itemMs: number;
}

export interface TaskRecord extends StoredTask {
  platform: string;
  /** Sorted indices of `slow-` items. */
  slowIdx: number[];
  /** Sorted indices of `fail-` items. */
  failIdx: number[];
  /** Index of the first `taskfail-` item, or -1. */
  taskFailIdx: number;
  /** Epoch ms of the terminal transition (completed or failed). */
  finishAt: number;
}

export interface TaskSnapshot {
  status: TaskStatus;
  /** Items whose processing has finished (for a failed task: all of them, skipped ones included). */
  done: number;
  completedItems: number;
  failedItems: number;
  startedAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  errorMessage: string | null;
}

/** Shared by every task without magic items (nearly all): no array per task. */
const NONE: number[] = Object.freeze([]) as unknown as number[];

/**
 * The record is built as one literal with every field in a fixed order (one hidden class, fields in the object):
 * a spread of `stored` made a dictionary-mode object, ~750 bytes for a one-item task instead of ~270.
 */
export function buildTaskRecord(stored: StoredTask, platform: string): TaskRecord {
  let slowIdx = NONE;
  let failIdx = NONE;
  let taskFailIdx = -1;
  stored.items.forEach((item, i) => {
    if (item.startsWith(MAGIC.slow)) (slowIdx === NONE ? (slowIdx = []) : slowIdx).push(i);
    else if (item.startsWith(MAGIC.fail)) (failIdx === NONE ? (failIdx = []) : failIdx).push(i);
    else if (taskFailIdx < 0 && item.startsWith(MAGIC.taskFail)) taskFailIdx = i;
  });
  const { id, service, items, cost, createdAt, startAt, itemMs } = stored;
  const record: TaskRecord = {
    id,
    service,
    items,
    cost,
    createdAt,
    startAt,
    itemMs,
    platform,
    slowIdx,
    failIdx,
    taskFailIdx,
    finishAt: 0,
  };
  const lastItem = taskFailIdx >= 0 ? taskFailIdx + 1 : stored.items.length;
  record.finishAt = stored.startAt + offsetAfter(record, lastItem);
  return record;
}

/** Number of entries of a sorted index list below `limit`. */
function countBelow(sorted: readonly number[], limit: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const value = sorted[mid];
    if (value !== undefined && value < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Ms after the start at which the first `count` items are finished. */
function offsetAfter(task: TaskRecord, count: number): number {
  return (count + (SLOW_FACTOR - 1) * countBelow(task.slowIdx, count)) * task.itemMs;
}

/** How many items are finished `elapsed` ms after the start (binary search over the monotone offsets). */
function itemsDoneAfter(task: TaskRecord, elapsed: number): number {
  const total = task.items.length;
  if (task.itemMs <= 0) return total;
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsetAfter(task, mid) <= elapsed) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function snapshotTask(task: TaskRecord, now: number): TaskSnapshot {
  const total = task.items.length;
  const base = { startedAt: null, completedAt: null, failedAt: null, errorMessage: null };
  if (now < task.startAt) return { ...base, status: 'pending', done: 0, completedItems: 0, failedItems: 0 };
  const startedAt = task.startAt;
  if (now >= task.finishAt) {
    if (task.taskFailIdx >= 0) {
      const k = task.taskFailIdx;
      const completedItems = k - countBelow(task.failIdx, k);
      return {
        ...base,
        status: 'failed',
        done: total,
        completedItems,
        failedItems: total - completedItems,
        startedAt,
        failedAt: task.finishAt,
        errorMessage: taskErrorMessage(task),
      };
    }
    const failedItems = task.failIdx.length;
    return {
      ...base,
      status: 'completed',
      done: total,
      completedItems: total - failedItems,
      failedItems,
      startedAt,
      completedAt: task.finishAt,
    };
  }
  const done = itemsDoneAfter(task, now - task.startAt);
  const failedItems = countBelow(task.failIdx, done);
  return { ...base, status: 'processing', done, completedItems: done - failedItems, failedItems, startedAt };
}

function taskErrorMessage(task: TaskRecord): string {
  const item = task.items[task.taskFailIdx] ?? '';
  const shown = item.length > 80 ? `${item.slice(0, 80)}…` : item;
  return `Processing failed at item ${task.taskFailIdx + 1} of ${task.items.length} ("${shown}"): simulated task failure`;
}

export type ItemState =
  { status: 'pending' | 'processing' } | { status: 'completed' } | { status: 'failed'; error: string };

const ITEM_ERRORS = {
  fail: 'Simulated item failure (item starts with "fail-")',
  taskFail: 'Simulated task failure (item starts with "taskfail-")',
  skipped: 'Not processed: the task failed before reaching this item',
} as const;

/** State of item `index` within a snapshot. */
export function itemState(task: TaskRecord, snap: TaskSnapshot, index: number): ItemState {
  if (snap.status === 'pending') return { status: 'pending' };
  if (snap.status === 'processing' && index >= snap.done)
    return { status: index === snap.done ? 'processing' : 'pending' };
  if (snap.status === 'failed' && index >= task.taskFailIdx) {
    return { status: 'failed', error: index === task.taskFailIdx ? ITEM_ERRORS.taskFail : ITEM_ERRORS.skipped };
  }
  const item = task.items[index] ?? '';
  return item.startsWith(MAGIC.fail) ? { status: 'failed', error: ITEM_ERRORS.fail } : { status: 'completed' };
}
