/**
 * A walk over GET /tasks pages that a hostile or broken server cannot make endless (docs/behaviour.md#http): `list --all`,
 * `wait` and `watch` stop with exit 8 when a page brings nothing new, when `total_pages` grows far beyond its first
 * answer, or past MAX_PAGES. Ids repeated across pages are reported once (a task created during the walk shifts a
 * newest-first list by one, so a few repeats are normal); the caller prints only `fresh`.
 */
import { UnavailableError } from '../errors.js';

/** The most pages one walk reads: 1,000 pages of 100 tasks is 100,000 tasks. Documented in docs/behaviour.md#http. */
const MAX_PAGES = 1000;
/** How far `total_pages` may grow during one walk (tasks created meanwhile) before the walk is judged endless. */
function pageGrowthAllowance(firstTotalPages: number): number {
  return Math.max(5, Math.ceil(firstTotalPages / 2));
}

export class PageWalkGuard<T extends { id: number }> {
  private readonly seen = new Set<number>();
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
    for (const item of fresh) this.seen.add(item.id);
    return fresh;
  }

  private endless(why: string): UnavailableError {
    return new UnavailableError(`${this.what}: the server's pages do not end (${why})`, this.hint);
  }
}
