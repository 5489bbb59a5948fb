/**
 * A walk over GET /tasks pages that a hostile or broken server cannot make endless (docs/behaviour.md#http): `list --all`,
 * `wait` and `watch` stop with exit 8 when a page brings nothing new, when `total_pages` grows far beyond its first
 * answer, or past MAX_PAGES. Ids repeated across pages are reported once (a task created during the walk shifts a
 * newest-first list by one, so a few repeats are normal); the caller prints only `fresh`.
 *
 * Its memory is bounded, never the walk's length: a search (`list --status`) has no page cap, and a server may answer
 * a billion pages of ids never seen. It remembers the last REMEMBERED_IDS ids read (a set and a ring of them: under
 * a megabyte), 100 pages of the API's largest (100). That is far more than a shift by tasks created during a walk
 * repeats, and a server that ignores `page` (page 1 again) or cycles over up to 100 pages is still stopped at its
 * first repeated page. What it gives up (docs/behaviour.md#http): an id last seen more than REMEMBERED_IDS ids ago
 * counts as new again (listed twice if over 10,000 tasks were created during one walk), and a server that cycles over
 * more pages than that is stopped only by MAX_PAGES (`list --all`, `wait`, `watch`, the webhook catch-up) or not at
 * all (a search reads on, in constant memory, until Ctrl-C). `total_pages` growing is still exit 8.
 */
import { UnavailableError } from '../errors.js';

/** The most pages one walk reads: 1,000 pages of 100 tasks is 100,000 tasks. Documented in docs/behaviour.md#http. */
const MAX_PAGES = 1000;
/** Ids one walk remembers at most: 100 pages of 100. Documented in docs/behaviour.md#http. */
export const REMEMBERED_IDS = 10_000;
/** How far `total_pages` may grow during one walk (tasks created meanwhile) before the walk is judged endless. */
function pageGrowthAllowance(firstTotalPages: number): number {
  return Math.max(5, Math.ceil(firstTotalPages / 2));
}

export class PageWalkGuard<T extends { id: number }> {
  /** The ids in `ring`, for lookup: never more than REMEMBERED_IDS. */
  private readonly seen = new Set<number>();
  /** The last ids remembered, oldest at `next` once full: the next to be forgotten. */
  private readonly ring: number[] = [];
  private next = 0;
  private firstTotalPages: number | undefined;
  private pages = 0;

  /**
   * `what` names the walk in errors, e.g. "GET /tasks"; `hint` is the error's next step (a command with flags that
   * narrow the walk names them). A guard lives for one walk: a listing read again later may have moved
   * (docs/behaviour.md#http).
   */
  constructor(
    private readonly what: string,
    private readonly maxPages = MAX_PAGES,
    private readonly hint = 'The service is answering inconsistently; try again later.',
  ) {}

  /** Checks one page; returns its items not seen before. Throws UnavailableError (exit 8) when the walk must stop. */
  accept(page: number, totalPages: number, items: readonly T[]): T[] {
    this.pages++;
    this.firstTotalPages ??= totalPages;
    if (this.pages > this.maxPages) {
      throw this.endless(`more than ${this.maxPages} pages`);
    }
    if (totalPages > this.firstTotalPages + pageGrowthAllowance(this.firstTotalPages)) {
      throw this.endless(`total_pages grew from ${this.firstTotalPages} to ${totalPages} during one walk`);
    }
    const fresh = items.filter((item) => !this.seen.has(item.id));
    if (items.length > 0 && fresh.length === 0) {
      throw this.endless(`page ${page} repeats tasks already listed`);
    }
    for (const item of fresh) this.remember(item.id);
    return fresh;
  }

  /** How many ids the guard holds now (at most REMEMBERED_IDS). */
  get remembered(): number {
    return this.seen.size;
  }

  /** Adds `id` (once: an id twice on one page is one entry), forgetting the oldest when full. */
  private remember(id: number): void {
    if (this.seen.has(id)) return;
    if (this.ring.length < REMEMBERED_IDS) {
      this.ring.push(id);
    } else {
      const oldest = this.ring[this.next];
      if (oldest !== undefined) this.seen.delete(oldest);
      this.ring[this.next] = id;
      this.next = (this.next + 1) % REMEMBERED_IDS;
    }
    this.seen.add(id);
  }

  private endless(why: string): UnavailableError {
    return new UnavailableError(`${this.what}: the server's pages do not end (${why})`, this.hint);
  }
}

/**
 * The ids one page lists more than once (in the order first seen): an answer that contradicts itself when the entries
 * differ. `list` prints them as sent with a warning (`repeatWarning`); the follow engine takes neither entry and reads
 * the task by its own GET, so no exit code is decided by such a page (docs/behaviour.md#http).
 */
export function listedTwice(items: ReadonlyArray<{ id: number }>): number[] {
  const once = new Set<number>();
  const twice = new Set<number>();
  for (const { id } of items) {
    if (once.has(id)) twice.add(id);
    else once.add(id);
  }
  return [...twice];
}

/** The warning for one id a page lists twice: the states it was listed in, and the task's own read. */
export function repeatWarning(page: number, id: number, items: ReadonlyArray<{ id: number; status: string }>): string {
  const states = items.filter((item) => item.id === id).map((item) => item.status);
  return `page ${page} of the task list names task ${id} ${states.length === 2 ? 'twice' : `${states.length} times`} (${states.join(', ')}): the answer contradicts itself; its own read: taskctl show ${id}`;
}
