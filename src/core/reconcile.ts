/**
 * Finding "our" task without an idempotency key: after an ambiguous POST /tasks (reconcile) and before paying again for
 * the same list (`--reuse-window`). A candidate has the same service, the same item count and a creation time inside a
 * window; its items are then compared (as a multiset) with GET /tasks/:id. Never guesses: two matches are no proof.
 */
import type { PageMeta, Task } from '../api/schemas.js';
import type { Clock } from './time.js';

export interface TaskReader {
  listTasks(query: { page?: number; perPage?: number }): Promise<{ tasks: Task[]; meta: PageMeta }>;
  getTask(id: number): Promise<Task>;
  /** Server clock minus local clock (a lower bound, from Date headers), when known: see `ApiClient`. */
  serverClockOffset?(): number | undefined;
}

export interface MatchQuery {
  service: string;
  items: ReadonlyArray<string>;
  /** Epoch ms: candidates created at or after this instant (minus clock-skew tolerance). */
  createdAfter: number;
  /** Ids that must not match (tasks this invocation already created or reused). */
  exclude?: ReadonlySet<number>;
}

/** Client and server clocks differ; with the difference unknown, a creation time this far outside the window still counts. */
export const CLOCK_SKEW_TOLERANCE_MS = 120_000;
/**
 * With the server's clock known from its Date headers (a lower bound of the offset), the window starts this close to
 * the instant asked for. Without it, an identical task created up to two minutes *before* an ambiguous create was
 * "recovered" as if it were the new one (found by the hardening matrix, W30).
 */
export const KNOWN_CLOCK_TOLERANCE_MS = 1000;

/** Start of the creation window on the server's clock. */
function windowStart(reader: TaskReader, createdAfter: number): number {
  const offset = reader.serverClockOffset?.();
  return offset === undefined
    ? createdAfter - CLOCK_SKEW_TOLERANCE_MS
    : createdAfter + offset - KNOWN_CLOCK_TOLERANCE_MS;
}
/** Pages of 100 scanned for candidates: the list's sort order is not specified, so stop early only on old pages. */
const MAX_PAGES = 3;

export type MatchResult = { kind: 'found'; task: Task } | { kind: 'none' } | { kind: 'ambiguous'; ids: number[] };

function sameItems(a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const item of a) counts.set(item, (counts.get(item) ?? 0) + 1);
  for (const item of b) {
    const left = counts.get(item);
    if (!left) return false;
    counts.set(item, left - 1);
  }
  return true;
}

async function candidates(reader: TaskReader, query: MatchQuery): Promise<Task[]> {
  const found: Task[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { tasks, meta } = await reader.listTasks({ page, perPage: 100 });
    // After the listing, the server's clock is usually known (its Date header).
    const since = windowStart(reader, query.createdAfter);
    let anyRecent = false;
    for (const task of tasks) {
      const created = Date.parse(task.created_at);
      const recent = Number.isNaN(created) || created >= since;
      anyRecent ||= recent;
      if (
        recent &&
        task.service === query.service &&
        task.total_items === query.items.length &&
        !query.exclude?.has(task.id)
      ) {
        found.push(task);
      }
    }
    if (!anyRecent || page >= meta.total_pages) break;
  }
  return found;
}

/** One scan: candidates by service, count and time, then confirmed by their items. */
export async function findMatchingTask(reader: TaskReader, query: MatchQuery): Promise<MatchResult> {
  const matches: Task[] = [];
  for (const candidate of await candidates(reader, query)) {
    const full = await reader.getTask(candidate.id);
    if (
      sameItems(
        (full.items ?? []).map((item) => item.target),
        query.items,
      )
    )
      matches.push(full);
  }
  if (matches.length === 1) return { kind: 'found', task: matches[0]! };
  if (matches.length === 0) return { kind: 'none' };
  return { kind: 'ambiguous', ids: matches.map((task) => task.id) };
}

export interface ReconcileOptions extends MatchQuery {
  clock: Clock;
  signal?: AbortSignal;
  /** Delays before each scan; the first is immediate. About 10 s in all (DESIGN.md section 5). */
  scheduleMs?: ReadonlyArray<number>;
}

export const RECONCILE_SCHEDULE_MS = [0, 2000, 3000, 5000] as const;

/**
 * After an ambiguous create: scans a few times (a task the server was still committing may appear late). Stops at the
 * first scan with exactly one match; two or more matches are never resolved by guessing.
 */
export async function reconcileCreate(reader: TaskReader, options: ReconcileOptions): Promise<MatchResult> {
  let last: MatchResult = { kind: 'none' };
  for (const delay of options.scheduleMs ?? RECONCILE_SCHEDULE_MS) {
    if (delay > 0) await options.clock.sleep(delay, options.signal);
    try {
      last = await findMatchingTask(reader, options);
    } catch {
      // The service may still be failing; keep trying until the schedule runs out.
      continue;
    }
    if (last.kind !== 'none') return last;
  }
  return last;
}
