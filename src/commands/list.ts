import type { Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { PageWalkGuard } from '../lib/page-guard.js';
import { UsageError } from '../errors.js';
import { columnName, columnsOption, pickColumns, wideOption } from '../output/columns.js';
import { examples, type RunAction } from './help-text.js';
import { CreatedWindow, timeBound, type TimeBound } from './list-window.js';
import { collect, positiveInt, taskStatuses } from './parsers.js';
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

const COLUMN_NAMES = taskColumns((status) => status).map(columnName);

export function registerList(program: Command, run: RunAction): void {
  program
    .command('list')
    .alias('ls')
    .description('list tasks, newest first as the service returns them, one page or --all')
    .option('--page <n>', 'page to read', positiveInt(), 1)
    .option(
      '--per-page <n>',
      'tasks per page, 1..100 (default: 25; 100 with --all, --since or --until)',
      positiveInt(100),
    )
    .option('--all', 'read every page (from --page on), streaming', false)
    .option(
      '--status <status>',
      'only tasks in this status, repeatable or comma-separated: pending, processing, completed, failed, or a word for an ended task (cancelled, expired, ...)',
      taskStatuses,
    )
    .option('--service <service>', 'only tasks of this service (repeatable or comma-separated)', collect)
    .option('--limit <n>', 'print at most this many tasks', positiveInt())
    .option('--since <duration>', 'only tasks created in the last DURATION (30m, 24h) or since an ISO time', timeBound)
    .option('--until <duration>', 'only tasks created at least DURATION ago, or until an ISO time', timeBound)
    .addOption(columnsOption(COLUMN_NAMES))
    .addOption(wideOption())
    .addHelpText(
      'after',
      examples([
        'taskctl list',
        'taskctl list --all --status failed -o ndjson',
        'taskctl list --all --service domain_check_availability --limit 10 -q',
        'taskctl list --since 1h --status failed',
        'taskctl list --since 24h --until 1h -o csv > yesterday.csv',
        'taskctl list --columns id,status,created_at -o tsv',
        'taskctl list --wide',
        'taskctl list -o tsv | cut -f1,3',
        `taskctl list -o tsv | awk -F'\\t' '$3 == "on_hold"'   # any status`,
      ]) +
        '\nFilters apply to the pages read: without --all (or --since/--until) only --page is searched.' +
        '\n--since/--until read pages until the tasks are older than the window (newest first), else every page.' +
        '\nAn unknown --status is refused (exit 2) with the closest known one; filter a status outside the list with awk.' +
        `\ntsv columns: ${COLUMN_NAMES.join(', ')}\n`,
    )
    .action((options: ListOptions, command: Command) => run(command, (ctx) => runList(ctx, options)));
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
  const out = ctx.printer.stream(columns, (task: Task) => task, { wide: options.wide === true });
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
