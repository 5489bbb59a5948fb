/**
 * `taskctl list`: one page, or a walk over the pages from `--page` on, streamed in the chosen format. GET /tasks
 * (docs/openapi.json) has no server-side filter, so the filters (`--status`, `--service`, `--since`, `--until`)
 * search: pages are read until `--limit` tasks match (by default one page's worth) or the list ends, paced by the
 * client's rate limiter.
 */
import type { Task } from '../api/schemas.js';
import type { GlobalOptions, Output, Process, Prompts, Runtime, Service, Store } from './capabilities.js';
import { shellWord } from '../lib/shell-word.js';
import { listedTwice, PageWalkGuard, repeatWarning } from '../lib/page-guard.js';
import { disagreeingCountsWarner, statusFilter } from '../lib/task-state.js';
import { InterruptedError, MalformedResponseError, UsageError } from '../errors.js';
import { pickColumns } from '../output/columns.js';
import type { ListOptions as TableView } from '../output/printer-types.js';
import { formatCount } from '../output/numbers.js';
import { counted } from '../output/plural.js';
import { CreatedWindow, type TimeBound } from './list-window.js';
import { serviceNow, type ServiceNow } from './server-time.js';
import { idLines, idsOnly } from './quiet.js';
import { taskColumns } from '../output/task-columns.js';

export interface ListOptions {
  /** First page to read (default 1). */
  page: number;
  /** Tasks per page, 1..100. Default: 25 for one page; 100 when walking pages (--all, or a filter). */
  perPage?: number;
  /** Read every page from `page` on, streaming rows as pages arrive; no default limit. */
  all: boolean;
  /** Filters: any of them searches the pages from `page` on. */
  status?: string[];
  service?: string[];
  /** Stop after this many rows (after filtering). A search's default: `perPage` if given, else 25. */
  limit?: number;
  /** Only tasks created in this window (either one also lets the walk stop at the window's far edge). */
  since?: TimeBound;
  until?: TimeBound;
  columns?: string[];
  wide?: boolean;
}

/** Tasks a page when one page is read; a walk asks for the largest page (WALK_PAGE). */
const ONE_PAGE = 25;
const WALK_PAGE = 100;
/** A search without --limit or --all stops at this many matches, or `--per-page` when given: one page's worth. */
const SEARCH_LIMIT = ONE_PAGE;

/** What one `list` reads and prints: decided from the flags before any request. */
interface ListPlan {
  matches: (task: Task) => boolean;
  window: CreatedWindow;
  /** Pages after the first are read (--all, or a filter searching). */
  walk: boolean;
  /** A filter is given: the walk is a search (no page cap; the spinner counts matches). */
  search: boolean;
  perPage: number;
  limit: number | undefined;
  /** The limit is the search's default, not one the user set. */
  defaultLimit: boolean;
}

/** `now`: this machine's clock before the first answer, then the service's as its `Date` reads it (`serviceNow`). */
function listPlan(options: ListOptions, now: ServiceNow): ListPlan {
  const window = new CreatedWindow(options.since?.(now.start), options.until?.(now.end));
  if (window.from !== undefined && window.to !== undefined && window.from > window.to) {
    throw new UsageError('--since is later than --until: no task can match', 'For example: --since 24h --until 1h.');
  }
  const search = Boolean(options.status?.length) || Boolean(options.service?.length) || window.active;
  // A --limit past one page is met by reading on (`--limit 60` prints 60, not the 25 of a first page).
  const beyondPage = options.limit !== undefined && options.limit > (options.perPage ?? ONE_PAGE);
  const walk = options.all || search || beyondPage;
  const defaultLimit = search && !options.all && options.limit === undefined;
  const status = options.status?.length ? statusFilter(options.status) : () => true;
  return {
    matches: (task) =>
      status(task) && (!options.service?.length || options.service.includes(task.service)) && window.contains(task),
    window,
    walk,
    search,
    // A walk reads many pages: the largest page docs/openapi.json allows (100) takes a quarter of the requests.
    perPage: options.perPage ?? (walk ? WALK_PAGE : ONE_PAGE),
    limit: defaultLimit ? (options.perPage ?? SEARCH_LIMIT) : options.limit,
    defaultLimit,
  };
}

/** Where a walk ended: the last page read, and whether the limit stopped it before the list's end. */
interface WalkEnd {
  first: number;
  page: number;
  totalPages: number;
  printed: number;
  cut: boolean;
  /** The last page whose answer was read and printed (`first - 1` before any). */
  done: number;
}

export async function runList(
  ctx: Output & Process & Prompts & Runtime & Store & Service,
  options: ListOptions,
): Promise<void> {
  const allColumns = taskColumns(ctx.printer.paintStatus, ctx.printer.chalk);
  const columns = pickColumns(allColumns, options.columns);
  const local = ctx.clock.now();
  // Checked before any request (a window that ends before it starts is a usage error), then counted again from the
  // service's clock once the first page's answer has given a reading of it.
  let plan = listPlan(options, { start: local, end: local });
  const api = await ctx.api();
  const view: TableView = { wide: options.wide === true, chosen: (options.columns?.length ?? 0) > 0 };
  const out = idsOnly(ctx.globals)
    ? idLines(ctx.printer, (task: Task) => task.id)
    : ctx.printer.stream(columns, (task: Task) => task, view);
  // Counts that contradict each other, of a task listed, are warned about as a wait warns them, on stderr: a table's
  // once its spinner is gone (the table is drawn at the end), the formats that stream as their rows go.
  const table = ctx.printer.format === 'table';
  const held: string[] = [];
  const warnCounts = disagreeingCountsWarner((text) => (table ? held.push(text) : ctx.printer.warn(text)));
  // A server whose pages never end (total_pages growing, ids repeating) stops the walk with exit 8; a search has no
  // page cap of its own (a failed task on page 2,000 is still found), and the guard's memory stays bounded however
  // long it reads (lib/page-guard.ts).
  const guard = new PageWalkGuard<Task>(
    'listing tasks',
    plan.search ? Number.POSITIVE_INFINITY : undefined,
    'The service is answering inconsistently; try again later, or narrow the listing (--limit, --page).',
  );
  const end: WalkEnd = {
    first: options.page,
    page: options.page,
    totalPages: 1,
    printed: 0,
    cut: false,
    done: options.page - 1,
  };
  const walk = async (say: (text: string) => void) => {
    for (;;) {
      if (plan.walk && end.page > options.page) say(progressText(plan, end));
      const { tasks, meta } = await api.listTasks({ page: end.page, perPage: plan.perPage });
      if (end.page === options.page) plan = listPlan(options, serviceNow(api.serverClockBounds(), ctx.clock.now()));
      end.totalPages = meta.total_pages;
      if (end.page === options.page) ctx.cache.rememberTasks(tasks);
      const fresh = plan.walk ? guard.accept(end.page, meta.total_pages, tasks) : tasks;
      // One id twice on a page: both rows as sent, and a warning that the answer contradicts itself.
      for (const id of listedTwice(tasks))
        (table ? held.push.bind(held) : ctx.printer.warn.bind(ctx.printer))(repeatWarning(end.page, id, tasks));
      let rows = fresh.filter(plan.matches);
      if (plan.limit !== undefined) rows = rows.slice(0, plan.limit - end.printed);
      out.write(rows);
      for (const task of rows) warnCounts(task);
      end.printed += rows.length;
      end.done = end.page;
      // An empty page before the last the service itself counts: what follows it is not known, never a short list.
      if (plan.walk && tasks.length === 0 && end.page < meta.total_pages) throw emptyPage(end, meta.total_pages);
      const more = end.page < meta.total_pages && tasks.length > 0;
      const full = plan.limit !== undefined && end.printed >= plan.limit;
      end.cut = more && full;
      const windowDone = plan.window.exhausted(tasks);
      // The walk's end by the pages, with more tasks counted than they hold: what was not sent is not known either.
      if (plan.walk && !more && !full && !windowDone && meta.total_count > meta.total_pages * meta.per_page)
        throw countBeyondPages(end, meta);
      if (!plan.walk || !more || full || windowDone) break;
      end.page += 1;
    }
  };
  try {
    // A table is drawn once every page is read: a spinner counts the pages meanwhile (other formats stream).
    await (table ? ctx.spin(plan.search ? 'searching tasks' : 'reading tasks', walk) : walk(() => undefined));
  } catch (error) {
    // No `[]` for a command that failed, and an array cut short stays unterminated.
    await out.abort();
    if (ctx.signal.aborted && plan.walk && end.done >= end.first)
      throw interruptedWalk(plan, end, goOnCommand(options, ctx.globals, plan, end));
    throw error;
  }
  // A page past the end says how many there are, instead of a bare "No results.".
  if (end.printed === 0 && end.totalPages > 0 && end.page > end.totalPages)
    view.emptyMessage =
      `No results: page ${formatCount(end.page)} is past the end (the list has ${counted(end.totalPages, 'page')}); ` +
      `use --page ${formatCount(end.totalPages)} or --all.`;
  for (const text of held) ctx.printer.warn(text);
  await out.end();
  afterList(ctx, plan, end);
}

/** A walk's page that came back empty while the service's meta says more follow (exit 8). */
function emptyPage(end: WalkEnd, totalPages: number): MalformedResponseError {
  const read = `${counted(end.printed, 'task')} printed`;
  return new MalformedResponseError(
    `listing tasks: page ${formatCount(end.page)} of ${formatCount(totalPages)} came back empty, though the service says ${counted(totalPages, 'page')}: the list is incomplete (${read})`,
    'The service is answering inconsistently; try again later, or narrow the listing (--limit, --page).',
  );
}

/** A walk's last page whose meta counts more tasks than `total_pages` pages of `per_page` hold (exit 8). */
function countBeyondPages(
  end: WalkEnd,
  meta: { total_count: number; total_pages: number; per_page: number },
): MalformedResponseError {
  return new MalformedResponseError(
    `listing tasks: the service counts ${counted(meta.total_count, 'task')} but ${counted(meta.total_pages, 'page')} of ${formatCount(meta.per_page)}: the list is incomplete (${counted(end.printed, 'task')} printed)`,
    'The service is answering inconsistently; try again later, or narrow the listing (--limit, --page).',
  );
}

/** The spinner's text during a walk: pages read, and the matches found so far when searching. */
function progressText(plan: ListPlan, end: WalkEnd): string {
  const pages = `page ${formatCount(end.page)} of ${formatCount(end.totalPages)}`;
  return plan.search ? `searching tasks: ${pages}, ${formatCount(end.printed)} found` : `reading tasks: ${pages}`;
}

/**
 * The command that goes on from where an interrupted walk stopped: the user's own `list` again, its filters, paging and
 * output flags, from the page after the last one read. A window is given as its instants (`--since 1h` typed an hour
 * ago is another window now), a `--limit` as what is left of it. The flags that chose the account are added to it as to
 * every hint (output/hint-globals.ts).
 */
function goOnCommand(options: ListOptions, globals: GlobalOptions, plan: ListPlan, end: WalkEnd): string {
  const words = ['taskctl', 'list'];
  const flag = (name: string, value?: string) => words.push(name, ...(value === undefined ? [] : [shellWord(value)]));
  if (options.all) flag('--all');
  if (options.status?.length) flag('--status', options.status.join(','));
  if (options.service?.length) flag('--service', options.service.join(','));
  if (plan.window.from !== undefined) flag('--since', new Date(plan.window.from).toISOString());
  if (plan.window.to !== undefined) flag('--until', new Date(plan.window.to).toISOString());
  if (options.limit !== undefined) flag('--limit', String(Math.max(1, options.limit - end.printed)));
  flag('--page', String(end.done + 1));
  if (options.perPage !== undefined) flag('--per-page', String(options.perPage));
  if (options.columns?.length) flag('--columns', options.columns.join(','));
  if (options.wide === true) flag('--wide');
  if (globals.output !== undefined) flag('-o', globals.output);
  if (globals.json === true) flag('--json');
  if (globals.quiet === true) flag('-q');
  return words.join(' ');
}

/** Ctrl-C during a walk: how far it got, and the command that goes on from there. */
function interruptedWalk(plan: ListPlan, end: WalkEnd, goOn: string): InterruptedError {
  const pages =
    end.done === end.first
      ? `page ${formatCount(end.done)}`
      : `pages ${formatCount(end.first)}-${formatCount(end.done)}`;
  const what = plan.search
    ? `searched, ${counted(end.printed, 'matching task')} found`
    : `read, ${counted(end.printed, 'task')} listed`;
  return new InterruptedError(
    `interrupted: ${pages} of ${formatCount(end.totalPages)} ${what}`,
    `Go on from there: ${goOn}`,
  );
}

/** What stderr says after the rows: how to read on, when there is more to read. */
function afterList(ctx: Output & Service, plan: ListPlan, end: WalkEnd): void {
  const human = ctx.printer.format === 'table';
  if (plan.search && end.cut && (human || plan.defaultLimit)) {
    // A search stopped at its limit: said to scripts too when they did not set it (the list may hold more matches).
    const read = end.page === end.first ? `page ${end.page}` : `pages ${end.first}-${end.page}`;
    ctx.printer.info(
      `stopped at ${counted(end.printed, 'matching task')} (${read} of ${formatCount(end.totalPages)} searched); ` +
        'use --limit N for more, or --all for every match',
    );
    return;
  }
  // For a person only: a script's stderr stays quiet, and a --limit that was reached needs no more pages.
  const limited = plan.limit !== undefined && end.printed >= plan.limit;
  if (!plan.walk && !limited && human && end.totalPages > end.page) {
    ctx.printer.info(`page ${end.page} of ${end.totalPages}; use --page ${end.page + 1} or --all for more`);
  }
}
