/**
 * What a task's status and its items' statuses mean (docs/behaviour.md#success-is-only-what-was-seen). The spec
 * shows task states pending, processing, completed, failed and the item state completed; a real server may send others.
 * Every command that judges, counts or filters tasks and items uses these rules and no other: `wait`'s exit code,
 * progress counts, `show --items-status`, `list`'s items column and the reports.
 */

/** The task states the spec shows. */
export const KNOWN_TASK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

/** Words a server may use for a task that ended without completing; they end a wait like `failed` (exit 10). */
export const ENDED_TASK_STATUSES: ReadonlySet<string> = new Set([
  'failed',
  'cancelled',
  'canceled',
  'expired',
  'aborted',
  'error',
  'errored',
  'rejected',
  'timeout',
  'timed_out',
]);

/** Item states that mean "not done yet" while the task is still running. */
const ACTIVE_ITEM_STATUSES: ReadonlySet<string> = new Set([
  'pending',
  'queued',
  'processing',
  'running',
  'in_progress',
  'waiting',
  'scheduled',
]);

/** The fields of a task these rules read: the API's task object, or a webhook's. */
export interface TaskStateFields {
  status: string;
  total_items: number;
  completed_at?: string | null | undefined;
  failed_at?: string | null | undefined;
  completed_items?: number | null | undefined;
  failed_items?: number | null | undefined;
  items?: ReadonlyArray<{ status: string }> | undefined;
}

/**
 * - `active`: still going (pending, processing, or an unknown status with no finish timestamp);
 * - `completed`: status `completed` (its items decide whether it *succeeded*: see `taskSucceeded`);
 * - `ended`: finished without completing: `failed`, a word in ENDED_TASK_STATUSES, or an unknown status that carries a
 *   finish timestamp (`completed_at` or `failed_at`).
 */
export type TaskPhase = 'active' | 'completed' | 'ended';

export function taskPhase(task: TaskStateFields): TaskPhase {
  const status = task.status.toLowerCase();
  if (status === 'completed') return 'completed';
  if (ENDED_TASK_STATUSES.has(status)) return 'ended';
  if (status === 'pending' || status === 'processing') return 'active';
  // Unknown status: a finish timestamp is evidence that the task will not change any more.
  return hasValue(task.completed_at) || hasValue(task.failed_at) ? 'ended' : 'active';
}

export function isTerminal(task: TaskStateFields): boolean {
  return taskPhase(task) !== 'active';
}

/** A status outside the spec's four (shown as it came, warned about once per run). */
export function isKnownTaskStatus(status: string): boolean {
  return (KNOWN_TASK_STATUSES as readonly string[]).includes(status);
}

/**
 * One item's outcome: `completed` only when its status is `completed`. Any other status is `failed` ("did not
 * complete") once the task has ended, or when it is not a known "still going" word; otherwise `active`.
 */
export type ItemOutcome = 'completed' | 'failed' | 'active';

export function itemOutcome(item: { status: string }, taskTerminal: boolean): ItemOutcome {
  const status = item.status.toLowerCase();
  if (status === 'completed') return 'completed';
  if (!taskTerminal && ACTIVE_ITEM_STATUSES.has(status)) return 'active';
  return 'failed';
}

export interface ItemCounts {
  total: number;
  /** Items seen completed; undefined when the server gave neither counts nor items. */
  completed: number | undefined;
  /** Items that did not complete (failed, error, skipped, unknown...); undefined when unknown. */
  failed: number | undefined;
}

/**
 * Counts from whatever the server gave: the items' statuses when present (they are the evidence), else the counts
 * fields. Once the task is terminal, every item not seen completed counts as failed, so a server that leaves skipped
 * items out of `failed_items` cannot make a partial result look whole.
 */
export function itemCounts(task: TaskStateFields): ItemCounts {
  const terminal = isTerminal(task);
  const total = task.total_items;
  if (task.items) {
    let completed = 0;
    let failed = 0;
    for (const item of task.items) {
      const outcome = itemOutcome(item, terminal);
      if (outcome === 'completed') completed++;
      else if (outcome === 'failed') failed++;
    }
    if (terminal) failed = Math.max(failed, total - completed);
    return { total, completed, failed };
  }
  const completed = numberOrUndefined(task.completed_items);
  let failed = numberOrUndefined(task.failed_items);
  if (terminal && completed !== undefined) failed = Math.max(failed ?? 0, total - completed);
  return { total, completed, failed };
}

/**
 * A task succeeded only when its status is `completed` and every item was seen completed: with neither items nor
 * counts there is no evidence, and no success.
 */
export function taskSucceeded(task: TaskStateFields): boolean {
  if (taskPhase(task) !== 'completed') return false;
  const { completed, total } = itemCounts(task);
  return completed !== undefined && completed >= total;
}

function hasValue(value: string | null | undefined): boolean {
  return value !== undefined && value !== null && value !== '';
}

function numberOrUndefined(value: number | null | undefined): number | undefined {
  return value ?? undefined;
}

/**
 * A per-run memo that warns once about each task status outside the spec's four (shown as it came), saying how
 * taskctl reads it. Create one per command run and call it with every task seen:
 * `const noteStatus = unknownStatusWarner((m) => printer.warn(m)); ... noteStatus(task);`
 */
export function unknownStatusWarner(warn: (message: string) => void): (task: TaskStateFields & { id: number }) => void {
  const seen = new Set<string>();
  return (task) => {
    if (isKnownTaskStatus(task.status) || seen.has(task.status)) return;
    seen.add(task.status);
    const phase = taskPhase(task);
    const meaning =
      phase === 'ended'
        ? 'taskctl reads it as ended without completing (wait exits 10)'
        : phase === 'completed'
          ? 'taskctl reads it as completed'
          : 'taskctl reads it as still running (no finish time yet)';
    warn(`task ${task.id} has status "${task.status}", which the API spec does not list; ${meaning}`);
  };
}
