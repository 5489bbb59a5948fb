/**
 * The one status vocabulary: what a task's status and its items' statuses mean, and the colour role of each (success
 * is only what was seen: docs/behaviour.md#success-is-only-what-was-seen). docs/openapi.json shows task states pending,
 * processing, completed, failed and the item state completed; a real server may send others. Every place that judges,
 * counts, filters or colours tasks and items uses these rules and no other: `wait`'s exit code and live block,
 * progress counts, `list`, `show`, `watch`, the reports and the sandbox dashboard.
 */
import { parseTimestamp, parseTimestampWithResolution } from './timestamp.js';

/** The task states docs/openapi.json shows (`Task.status`). */
export const KNOWN_TASK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

/**
 * The colour role of a status, for every place that shows one (terminal, reports, the sandbox dashboard):
 * `success` green, `partial` yellow (completed with items that did not), `failure` red, `working` yellow,
 * `waiting` dim, `plain` uncoloured (a word nobody defined, or a completed task whose service gave no counts).
 */
export type StatusTone = 'success' | 'partial' | 'failure' | 'working' | 'waiting' | 'plain';

/** What a status word says by itself: whether it has ended, whether it succeeded, and its tone. */
export interface StatusWord {
  readonly ended: boolean;
  readonly succeeded: boolean;
  readonly tone: StatusTone;
}

const WAITING: StatusWord = { ended: false, succeeded: false, tone: 'waiting' };
const WORKING: StatusWord = { ended: false, succeeded: false, tone: 'working' };
const DONE: StatusWord = { ended: true, succeeded: true, tone: 'success' };
const FAILED: StatusWord = { ended: true, succeeded: false, tone: 'failure' };
const UNKNOWN: StatusWord = { ended: false, succeeded: false, tone: 'plain' };

/** Every status word taskctl knows, task's or item's: docs/openapi.json's and those a real server may send. */
const WORDS: ReadonlyMap<string, StatusWord> = new Map([
  ['pending', WAITING],
  ['queued', WAITING],
  ['waiting', WAITING],
  ['scheduled', WAITING],
  ['processing', WORKING],
  ['running', WORKING],
  ['in_progress', WORKING],
  ['completed', DONE],
  ...[
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
  ].map((word) => [word, FAILED] as const),
]);

/** What `status` says by itself (an item's status, a webhook's event name); an unknown word has not ended, plain. */
export function statusWord(status: string): StatusWord {
  return WORDS.get(status.toLowerCase()) ?? UNKNOWN;
}

/**
 * Every status word and its tone, for the sandbox dashboard's script: its copy of this vocabulary is generated from this
 * table (a word not in it is `plain` there too).
 */
export function statusToneTable(): Record<string, StatusTone> {
  return Object.fromEntries([...WORDS].map(([word, meaning]) => [word, meaning.tone]));
}

/** Words a server may use for a task that ended without completing; they end a wait like `failed` (exit 10). */
export const ENDED_TASK_STATUSES: ReadonlySet<string> = new Set(
  [...WORDS].filter(([, word]) => word.ended && !word.succeeded).map(([name]) => name),
);

/**
 * Items an ended task counts in `total_items` but its answer did not list, kept on a task whose items were dropped
 * (follow/item-counts.ts): a symbol key, so no output format ever shows it, and a spread copy keeps it.
 */
export const UNLISTED_ITEMS: unique symbol = Symbol('items not listed');

/**
 * Set on a task whose items were replaced by their counts (core/follow/item-counts.ts) when its counts fields had said
 * worse than those items: what each said, so `disagreeingCountsWarner` warns about the task without its items too.
 */
export const ITEMS_CONTRADICTED: unique symbol = Symbol('counts that contradict the items');

/** An ended task's counts fields and its items' own reading, when the fields say worse (`itemsContradicted`). */
export interface ItemsContradiction {
  said: { completed: number | undefined; failed: number | undefined };
  seen: { completed: number; failed: number };
}

/** The fields of a task these rules read: the API's task object, or a webhook's. */
export interface TaskStateFields {
  [UNLISTED_ITEMS]?: number | undefined;
  [ITEMS_CONTRADICTED]?: ItemsContradiction | undefined;
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
  const word = statusWord(status);
  if (word.succeeded) return 'completed';
  if (word.ended) return 'ended';
  if (isKnownTaskStatus(status)) return 'active';
  // Unknown status: a finish timestamp is evidence that the task will not change any more.
  return hasValue(task.completed_at) || hasValue(task.failed_at) ? 'ended' : 'active';
}

export function isTerminal(task: TaskStateFields): boolean {
  return taskPhase(task) !== 'active';
}

/**
 * A task at work: not ended, and its status is a working word (`processing`, `running`, `in_progress`). What
 * `--until processing` waits for (or the end), and the `--status working` (`running`) group.
 */
export function isWorking(task: TaskStateFields): boolean {
  return taskPhase(task) === 'active' && statusWord(task.status).tone === 'working';
}

/** A task not started yet: not ended, and its status is a waiting word (`pending`, `queued`, …). */
function isWaiting(task: TaskStateFields): boolean {
  return taskPhase(task) === 'active' && statusWord(task.status).tone === 'waiting';
}

/** The status's plain word `failed` (messages say "failed" for it and name any other ending word as it came). */
export function isPlainFailure(status: string): boolean {
  return status.toLowerCase() === 'failed';
}

/** The webhook event a task's state stands for: working → `processing`, completed, ended → `failed`; else none. */
export function taskEventName(task: TaskStateFields): 'processing' | 'completed' | 'failed' | undefined {
  const phase = taskPhase(task);
  if (phase === 'completed') return 'completed';
  if (phase === 'ended') return 'failed';
  return isWorking(task) ? 'processing' : undefined;
}

/**
 * When the task entered its state, on the service's clock, by its own fields: `completed_at` once completed,
 * `failed_at` (else `completed_at`) once ended otherwise, `started_at` while working, `created_at` while waiting;
 * `otherwise` when that field is missing or not a timestamp. `watch` stamps a change of status with it, and
 * `webhook listen --catch-up` the event it rebuilds, so the two say the same time for the same change.
 */
export function stateEnteredAt(
  task: TaskStateFields & { started_at?: string | null | undefined; created_at?: string | null | undefined },
  otherwise: number,
): number {
  const phase = taskPhase(task);
  const field =
    phase === 'completed'
      ? task.completed_at
      : phase === 'ended'
        ? (task.failed_at ?? task.completed_at)
        : isWorking(task)
          ? task.started_at
          : isWaiting(task)
            ? task.created_at
            : (task.failed_at ?? task.completed_at);
  return parseTimestamp(field) ?? otherwise;
}

/** Groups of statuses `--status` accepts besides the words themselves; each is a test on the task. */
const STATUS_GROUPS: Readonly<Record<string, (task: TaskStateFields) => boolean>> = {
  working: isWorking,
  running: isWorking,
  waiting: isWaiting,
  unfinished: (task) => taskPhase(task) === 'active',
  active: (task) => taskPhase(task) === 'active',
  ended: isTerminal,
  finished: isTerminal,
  done: isTerminal,
};

/** The group names `--status` accepts (`running` = `working`). */
export const STATUS_GROUP_NAMES: readonly string[] = Object.keys(STATUS_GROUPS);

/** `--status` values as one test: a group matches by its meaning, any other word by the status as the server wrote it. */
export function statusFilter(wanted: readonly string[]): (task: TaskStateFields) => boolean {
  const tests = wanted.map(
    (word) => STATUS_GROUPS[word.toLowerCase()] ?? ((task: TaskStateFields) => task.status === word),
  );
  return (task) => tests.some((test) => test(task));
}

/** A status outside docs/openapi.json's four (shown as it came, warned about once per run). */
export function isKnownTaskStatus(status: string): boolean {
  return (KNOWN_TASK_STATUSES as readonly string[]).includes(status);
}

/**
 * One item's outcome: `completed` only when its status is `completed`. Any other status is `failed` ("did not
 * complete") once the task has ended, or when it is not a known "still going" word; otherwise `active`.
 */
export type ItemOutcome = 'completed' | 'failed' | 'active';

export function itemOutcome(item: { status: string }, taskTerminal: boolean): ItemOutcome {
  const word = statusWord(item.status);
  if (word.succeeded) return 'completed';
  if (!taskTerminal && (word.tone === 'working' || word.tone === 'waiting')) return 'active';
  return 'failed';
}

export interface ItemCounts {
  total: number;
  /** Items seen completed; undefined when the server gave neither counts nor items. */
  completed: number | undefined;
  /** Items that did not complete (failed, error, skipped, unknown...); undefined when unknown. */
  failed: number | undefined;
  /**
   * Items of an ended task its answer did not list (fewer items than `total_items`): not seen, so not a success, but
   * nothing says they failed. Undefined when none.
   */
  unlisted?: number;
}

/**
 * Counts from whatever the server gave: the items' statuses when present (they are the evidence), else the counts
 * fields. Once the task is terminal, every item not seen completed is failed or not listed, never a success, so a
 * server that leaves skipped items out of `failed_items` cannot make a partial result look whole.
 */
export function itemCounts(task: TaskStateFields): ItemCounts {
  const terminal = isTerminal(task);
  const total = task.total_items;
  if (task.items) {
    const seen = itemsSeen(task.items, terminal);
    if (!terminal) return { total, completed: seen.completed, failed: seen.failed };
    // An ended task's counts fields may say worse than its items (`failed_items: 3` beside four completed items):
    // success is only what both say, so the worse reading is taken (disagreeingCountsWarner says so).
    const fieldCompleted = numberOrUndefined(task.completed_items);
    const fieldFailed = numberOrUndefined(task.failed_items) ?? 0;
    // Failures said beyond those seen leave room for fewer completed items (never fewer than none).
    const room = fieldFailed > seen.failed ? total - fieldFailed : seen.completed;
    const completed = Math.max(0, Math.min(seen.completed, fieldCompleted ?? seen.completed, room));
    const failedSaid = Math.max(seen.failed, fieldFailed);
    const unlisted = Math.max(0, Math.min(total - task.items.length, total - completed - failedSaid));
    const failed = Math.max(failedSaid, total - completed - unlisted);
    return { total, completed, failed, ...(unlisted > 0 && { unlisted }) };
  }
  const completed = numberOrUndefined(task.completed_items);
  let failed = numberOrUndefined(task.failed_items);
  let unlisted = terminal ? (task[UNLISTED_ITEMS] ?? 0) : 0;
  // Items an ended task's two counts leave out (`1` completed, `0` failed of `5`) are not listed by them: nothing says
  // they failed. Without a failed count, every item not completed did not complete.
  if (terminal && completed !== undefined && failed !== undefined)
    unlisted = Math.max(unlisted, total - completed - failed);
  if (terminal && completed !== undefined) failed = Math.max(failed ?? 0, total - completed - unlisted);
  return { total, completed, failed, ...(unlisted > 0 && { unlisted }) };
}

/**
 * Whether the items `itemCounts` calls unlisted are those a list of the task's items left out (present, or kept aside
 * by follow/item-counts.ts), rather than those its two counts leave out.
 */
export function listedShort(task: TaskStateFields): boolean {
  return task.items !== undefined || task[UNLISTED_ITEMS] !== undefined;
}

/**
 * The failed count for formats with no "not listed" field (webhook events, JUnit, the GitHub summary): failed plus
 * unlisted, since an item nobody saw is not a success. Undefined when neither is known.
 */
export function failedOrUnlisted(counts: ItemCounts): number | undefined {
  if (counts.failed === undefined && counts.unlisted === undefined) return undefined;
  return (counts.failed ?? 0) + (counts.unlisted ?? 0);
}

/**
 * What a task's answer leaves out of its items, in the words every command uses (`show`'s note, `diff` and
 * `show --job`'s exit 8): none sent, or fewer than `total_items`; undefined when it lists as many or more.
 */
export function unlistedItemsNote(task: { id: number; total_items: number; items?: { length: number } | undefined }) {
  const listed = task.items?.length;
  if (listed === undefined) return `the service sent no item results for task ${task.id}`;
  if (listed >= task.total_items) return undefined;
  return `task ${task.id} lists ${listed.toLocaleString('en-US')} of its ${task.total_items.toLocaleString('en-US')} ${task.total_items === 1 ? 'item' : 'items'}`;
}

/**
 * The items an ended task does not list, for the reports (JUnit's `items_not_listed` testcase, the GitHub annotation):
 * how many, and what the task lists in `unlistedItemsNote`'s words, from that count, so a task whose items were not
 * kept (as a wait last saw it: follow/item-counts.ts) reads the same. Undefined when it lists them all, or is running.
 */
export function unlistedItems(task: TaskStateFields & { id: number }): { count: number; note: string } | undefined {
  const count = itemCounts(task).unlisted;
  if (count === undefined) return undefined;
  const listed = { length: task.total_items - count };
  return { count, note: unlistedItemsNote({ id: task.id, total_items: task.total_items, items: listed }) ?? '' };
}

/** The items' own statuses, counted: completed, and failed (ended ones, or any once the task is terminal). */
function itemsSeen(items: ReadonlyArray<{ status: string }>, terminal: boolean): { completed: number; failed: number } {
  let completed = 0;
  let failed = 0;
  for (const item of items) {
    const outcome = itemOutcome(item, terminal);
    if (outcome === 'completed') completed++;
    else if (outcome === 'failed') failed++;
  }
  return { completed, failed };
}

/** More items counted (completed and failed) than `total_items`: the service's counts contradict each other. */
function countsDisagree(counts: ItemCounts): boolean {
  return (counts.completed ?? 0) + (counts.failed ?? 0) > counts.total;
}

/**
 * An ended task whose counts fields say worse than its items (fewer completed, or more failed than its items and
 * those it does not list could hold): what each says, for the warning; undefined when they agree.
 */
export function itemsContradicted(task: TaskStateFields): ItemsContradiction | undefined {
  if (task[ITEMS_CONTRADICTED] !== undefined) return task[ITEMS_CONTRADICTED];
  if (!task.items || !isTerminal(task)) return undefined;
  const seen = itemsSeen(task.items, true);
  const unlisted = Math.max(0, task.total_items - task.items.length);
  const completed = numberOrUndefined(task.completed_items);
  const failed = numberOrUndefined(task.failed_items);
  const worse =
    (completed !== undefined && completed < seen.completed) ||
    (failed !== undefined && failed > seen.failed + unlisted);
  return worse ? { said: { completed, failed }, seen } : undefined;
}

/**
 * What an ended task whose counts say worse than its items is taken as, in the words of the warning, the JUnit
 * failure and the GitHub summary; undefined when they agree.
 */
export function itemsContradictionNote(task: TaskStateFields & { id: number }): string | undefined {
  const byItems = itemsContradicted(task);
  if (byItems === undefined) return undefined;
  const counts = itemCounts(task);
  return `task ${task.id}: the service's counts disagree with its items: completed_items ${String(byItems.said.completed)}, failed_items ${String(byItems.said.failed)}, but its items show ${byItems.seen.completed} completed, ${byItems.seen.failed} failed; taken as ${counts.completed ?? 0}/${counts.total}, ${counts.failed ?? 0} failed (a success only if both say so)`;
}

/**
 * A per-run memo that warns once about each task whose counts disagree (`countsDisagree`), for `wait` and every
 * `--wait`, `show`, `list` and `watch`: only its status says it finished. `shown`: what the command shows of the counts
 * beyond them (a wait's progress: at most 100%). `remember`: at most this many task ids kept (a watch that follows
 * thousands of tasks for hours), the one seen least recently forgotten first, so a task forgotten is warned about again
 * when its counts are seen next; unbounded by default (a command's tasks are the ids it was given).
 */
export function disagreeingCountsWarner(
  warn: (message: string) => void,
  shown?: string,
  remember = Number.POSITIVE_INFINITY,
): (task: TaskStateFields & { id: number }) => void {
  // In order of last sight (a Map keeps insertion order): the first key is the one to forget.
  const seen = new Map<number, true>();
  return (task) => {
    if (seen.delete(task.id)) {
      seen.set(task.id, true);
      return;
    }
    const counts = itemCounts(task);
    const byItems = itemsContradictionNote(task);
    if (byItems === undefined && !countsDisagree(counts)) return;
    seen.set(task.id, true);
    const oldest = seen.size > remember ? seen.keys().next() : undefined;
    if (oldest?.done === false) seen.delete(oldest.value);
    if (byItems !== undefined) {
      warn(byItems);
      return;
    }
    const counted = (counts.completed ?? 0) + (counts.failed ?? 0);
    warn(
      `task ${task.id}: the service's counts disagree: ${counted} items counted, but total_items is ${counts.total}; ${shown === undefined ? '' : `${shown}, and `}only its status says when it is finished`,
    );
  };
}

/**
 * A task's tone: `completed` is green only when the counts are known and show no failure, yellow when an item did
 * not complete, uncoloured when the service gave no counts; an ended task is red; a running one takes its word's.
 */
export function taskTone(task: TaskStateFields): StatusTone {
  const phase = taskPhase(task);
  if (phase === 'ended') return 'failure';
  if (phase === 'active') return statusWord(task.status).tone;
  const { completed, failed, total } = itemCounts(task);
  if (completed === undefined) return 'plain';
  return completed >= total && !(failed !== undefined && failed > 0) ? 'success' : 'partial';
}

/** What a task's status means, its counts and timestamps considered: the task's own `StatusWord`. */
export function taskVerdict(task: TaskStateFields): StatusWord {
  const tone = taskTone(task);
  return { ended: isTerminal(task), succeeded: tone === 'success', tone };
}

/**
 * A task succeeded only when its status is `completed`, every item was seen completed and none failed: with neither
 * items nor counts there is no evidence, and no success.
 */
export function taskSucceeded(task: TaskStateFields): boolean {
  return taskTone(task) === 'success';
}

/**
 * The targets of all of a task's items, or undefined when the service did not list them all (no items, or not as many as
 * `total_items`): then they prove nothing either way about which items the task holds
 * (docs/behaviour.md#exactly-once).
 */
export function listedTargets(task: {
  total_items: number;
  items?: ReadonlyArray<{ target: string }> | undefined;
}): string[] | undefined {
  if (task.items?.length !== task.total_items) return undefined;
  return task.items.map((item) => item.target);
}

function hasValue(value: string | null | undefined): boolean {
  return value !== undefined && value !== null && value !== '';
}

function numberOrUndefined(value: number | null | undefined): number | undefined {
  return value ?? undefined;
}

/**
 * A per-run memo that warns once about each task status outside docs/openapi.json's four (shown as it came), saying how
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
    warn(`task ${task.id} has status "${task.status}", which the API does not document; ${meaning}`);
  };
}

/**
 * Beyond the two times' resolutions, how far apart two writings of one creation may still read: a service may write
 * `created_at` in one answer (a create's POST) and read it back in another (its show, its list) through another path
 * that rounds where the first truncated, or stamps it a moment later (docs/behaviour.md#the-jobs-own-claims). Two
 * whole-second times are another creation only more than 2 s apart; millisecond ones more than 1.001 s.
 */
const CREATION_MARGIN_MS = 1000;

/**
 * Whether two `created_at` values name the same creation (docs/behaviour.md#the-jobs-own-claims). They are another
 * creation only on proof: both parse with an explicit zone (`Z` or a numeric offset; a zoneless time would be read in
 * the local zone, hours off) and lie more than their coarser resolution plus CREATION_MARGIN_MS apart (a time is
 * truncated or rounded to its resolution: `08:00:00Z` and `08:00:01Z` may be one instant written twice). A task whose
 * id is read again with another creation time is another task: the service gave its id out again (its ids restarted),
 * and a job records its chunk `lost` for good, so anything short of that proof (a time that does not parse, one
 * without a zone, a gap that rounding explains) is no evidence of another task: taken as the same.
 */
export function sameCreation(a: string, b: string): boolean {
  if (a === b) return true;
  const x = parseTimestampWithResolution(a);
  const y = parseTimestampWithResolution(b);
  if (x === undefined || y === undefined) return true;
  return Math.abs(x.ms - y.ms) <= Math.max(x.resolutionMs, y.resolutionMs) + CREATION_MARGIN_MS;
}

/** How far along a status is: waiting (pending), working, ended. */
function statusRank(task: TaskStateFields): number {
  if (isTerminal(task)) return 2;
  return isWorking(task) ? 1 : 0;
}

/**
 * A task read again that went back (from processing to pending, or fewer items finished): the two readings in words
 * (`task 1 went back: processing 3/4, then pending 0/4`), for a warning once per task; undefined when it did not.
 */
export function wentBackWords(previous: TaskStateFields & { id: number }, next: TaskStateFields): string | undefined {
  const done = (task: TaskStateFields): number | undefined => {
    const { completed, failed } = itemCounts(task);
    return completed === undefined ? undefined : completed + (failed ?? 0);
  };
  const before = done(previous);
  const after = done(next);
  const fell = before !== undefined && after !== undefined && after < before;
  if (statusRank(next) >= statusRank(previous) && !fell) return undefined;
  const reading = (task: TaskStateFields, finished: number | undefined) =>
    `${task.status}${finished === undefined ? '' : ` ${finished}/${task.total_items}`}`;
  return `task ${previous.id} went back: ${reading(previous, before)}, then ${reading(next, after)}`;
}
