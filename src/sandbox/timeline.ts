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

/** Where a task's magic items are: sorted indices of `slow-` and `fail-` items, the first `taskfail-` item or -1. */
interface Magic {
  readonly slowIdx: readonly number[];
  readonly failIdx: readonly number[];
  readonly taskFailIdx: number;
}

/** Shared by every task without magic items (nearly all): no arrays per task. */
const NO_MAGIC: Magic = Object.freeze({ slowIdx: Object.freeze([]), failIdx: Object.freeze([]), taskFailIdx: -1 });

function magicOf(items: readonly string[]): Magic {
  const slowIdx: number[] = [];
  const failIdx: number[] = [];
  let taskFailIdx = -1;
  items.forEach((item, i) => {
    if (item.startsWith(MAGIC.slow)) slowIdx.push(i);
    else if (item.startsWith(MAGIC.fail)) failIdx.push(i);
    else if (taskFailIdx < 0 && item.startsWith(MAGIC.taskFail)) taskFailIdx = i;
  });
  return slowIdx.length || failIdx.length || taskFailIdx >= 0 ? { slowIdx, failIdx, taskFailIdx } : NO_MAGIC;
}

/**
 * A stored task, kept small because the sandbox may hold hundreds of thousands (≤ 1 KB each, docs/sandbox.md): one
 * object of one shape, a one-item task's item kept as its string (no array), the start and end as small offsets
 * from `createdAt` (one boxed number instead of three), the magic items' positions shared by every plain task, and
 * no per-task index (ids are in creation order: `SandboxState.getTask` searches). Read like the plain record it was.
 */
export class TaskRecord implements StoredTask {
  readonly id: number;
  readonly service: string;
  readonly platform: string;
  readonly cost: number;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly itemMs: number;
  /** `startAt - createdAt`. */
  private readonly queueMs: number;
  /** `finishAt - startAt`: when the last item processed ends (the `taskfail-` one, if any). */
  private readonly runMs: number;
  private readonly item: string | readonly string[];
  private readonly magic: Magic;

  constructor(stored: StoredTask, platform: string) {
    this.id = stored.id;
    this.service = stored.service;
    this.platform = platform;
    this.cost = stored.cost;
    this.createdAt = stored.createdAt;
    this.itemMs = stored.itemMs;
    this.queueMs = stored.startAt - stored.createdAt;
    this.item = stored.items.length === 1 ? (stored.items[0] ?? '') : stored.items;
    this.magic = magicOf(stored.items);
    const lastItem = this.magic.taskFailIdx >= 0 ? this.magic.taskFailIdx + 1 : stored.items.length;
    this.runMs = offsetAfter(this, lastItem);
  }

  /** The items in order (a fresh one-element array for a one-item task). */
  get items(): string[] {
    return typeof this.item === 'string' ? [this.item] : (this.item as string[]);
  }
  /** How many items: what most reads need, without building an array. */
  get itemCount(): number {
    return typeof this.item === 'string' ? 1 : this.item.length;
  }
  /** Epoch ms at which processing starts. */
  get startAt(): number {
    return this.createdAt + this.queueMs;
  }
  /** Epoch ms of the terminal transition (completed or failed). */
  get finishAt(): number {
    return this.createdAt + this.queueMs + this.runMs;
  }
  get slowIdx(): readonly number[] {
    return this.magic.slowIdx;
  }
  get failIdx(): readonly number[] {
    return this.magic.failIdx;
  }
  get taskFailIdx(): number {
    return this.magic.taskFailIdx;
  }
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
function offsetAfter(task: Pick<TaskRecord, 'slowIdx' | 'itemMs'>, count: number): number {
  return (count + (SLOW_FACTOR - 1) * countBelow(task.slowIdx, count)) * task.itemMs;
}

/** How many items are finished `elapsed` ms after the start (binary search over the monotone offsets). */
function itemsDoneAfter(task: TaskRecord, elapsed: number): number {
  const total = task.itemCount;
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
  const total = task.itemCount;
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
  return `Processing failed at item ${task.taskFailIdx + 1} of ${task.itemCount} ("${shown}"): simulated task failure`;
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
