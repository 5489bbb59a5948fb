/** `taskctl list`: one page or a walk (--all, --since/--until), filtered, streamed in the chosen format. */
import type { Task } from '../api/schemas.js';
import type { Context } from './context.js';
import { PageWalkGuard } from '../lib/page-guard.js';
import { UsageError } from '../errors.js';
import { pickColumns } from '../output/columns.js';
import { CreatedWindow, type TimeBound } from './list-window.js';
import { taskColumns } from '../output/task-columns.js';

export interface ListOptions {
  /** First page to read (default 1). */
  page: number;
  /** Tasks per page, 1..100. Default: 25 for one page; 100 when walking pages (--all, --since, --until). */
  perPage?: number;
  /** Read every page from `page` on, streaming rows as pages arrive. */
  all: boolean;
  /** Client-side filters over the pages read. */
  status?: string[];
  service?: string[];
  /** Stop after this many rows (after filtering). */
  limit?: number;
  /** Only tasks created in this window; either one reads every page from `page` on, like `all`. */
  since?: TimeBound;
  until?: TimeBound;
  columns?: string[];
  wide?: boolean;
}

export async function runList(ctx: Context, options: ListOptions): Promise<void> {
  const allColumns = taskColumns((status) => ctx.printer.paintStatus(status), ctx.printer.chalk);
  const columns = ctx.globals.quiet ? allColumns.slice(0, 1) : pickColumns(allColumns, options.columns);
  const now = ctx.clock.now();
  const window = new CreatedWindow(options.since?.(now), options.until?.(now));
  if (window.from !== undefined && window.to !== undefined && window.from > window.to) {
    throw new UsageError('--since is later than --until: no task can match', 'For example: --since 24h --until 1h.');
  }
  const walkAll = options.all || window.active;
  // A walk reads every page: the largest page the spec allows takes a quarter of the requests.
  const perPage = options.perPage ?? (walkAll ? 100 : 25);
  const api = await ctx.api();
  const matches = (task: Task) =>
    (!options.status?.length || options.status.includes(task.status)) &&
    (!options.service?.length || options.service.includes(task.service)) &&
    window.contains(task);
  const out = ctx.printer.stream(columns, (task: Task) => task, {
    wide: options.wide === true,
    chosen: (options.columns?.length ?? 0) > 0,
  });
  let printed = 0;
  let page = options.page;
  let lastMeta = { total_pages: 1, current_page: 1 };
  // A server whose pages never end (total_pages growing, ids repeating) stops the walk with exit 8.
  const guard = new PageWalkGuard<Task>('listing tasks');
  // A table is drawn once every page is read: a spinner counts the pages meanwhile (other formats stream).
  const walk = async (say: (text: string) => void) => {
    for (;;) {
      if (walkAll && page > options.page) say(`reading tasks: page ${page} of ${lastMeta.total_pages}`);
      const { tasks, meta } = await api.listTasks({ page, perPage });
      lastMeta = meta;
      if (page === options.page) ctx.cache.rememberTasks(tasks);
      const fresh = walkAll ? guard.accept(page, meta.total_pages, tasks) : tasks;
      let rows = fresh.filter(matches);
      if (options.limit !== undefined) rows = rows.slice(0, options.limit - printed);
      out.write(rows);
      printed += rows.length;
      const more = page < meta.total_pages && tasks.length > 0;
      if (!walkAll || !more || (options.limit !== undefined && printed >= options.limit)) break;
      if (window.exhausted(tasks)) break;
      page += 1;
    }
  };
  try {
    await (ctx.printer.format === 'table' ? ctx.spin('reading tasks', walk) : walk(() => undefined));
  } catch (error) {
    // No `[]` for a command that failed, and an array cut short stays unterminated (issue 25).
    await out.abort();
    throw error;
  }
  await out.end();
  // For a person only: a script's stderr stays quiet, and a --limit that was reached needs no more pages.
  const limited = options.limit !== undefined && printed >= options.limit;
  if (!walkAll && !limited && ctx.printer.format === 'table' && lastMeta.total_pages > lastMeta.current_page) {
    ctx.printer.info(
      `page ${lastMeta.current_page} of ${lastMeta.total_pages}; use --page ${lastMeta.current_page + 1} or --all for more`,
    );
  }
}
