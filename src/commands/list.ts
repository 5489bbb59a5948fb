import type { Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { examples, type RunAction } from './help-text.js';
import { collect, positiveInt } from './parsers.js';
import { taskColumns } from './task-columns.js';

export interface ListOptions {
  /** First page to read (default 1). */
  page: number;
  /** Tasks per page, 1..100 (default 25). */
  perPage: number;
  /** Read every page from `page` on, streaming rows as pages arrive. */
  all: boolean;
  /** Client-side filters over the pages read. */
  status?: string[];
  service?: string[];
  /** Stop after this many rows (after filtering). */
  limit?: number;
}

export function registerList(program: Command, run: RunAction): void {
  program
    .command('list')
    .alias('ls')
    .description('list tasks, newest first as the service returns them, one page or --all')
    .option('--page <n>', 'page to read', positiveInt(), 1)
    .option('--per-page <n>', 'tasks per page, 1..100', positiveInt(100), 25)
    .option('--all', 'read every page (from --page on), streaming', false)
    .option('--status <status>', 'only tasks in this status (repeatable or comma-separated)', collect)
    .option('--service <service>', 'only tasks of this service (repeatable or comma-separated)', collect)
    .option('--limit <n>', 'print at most this many tasks', positiveInt())
    .addHelpText(
      'after',
      examples([
        'taskctl list',
        'taskctl list --all --status failed -o ndjson',
        'taskctl list --all --service domain_check_availability --limit 10 -q',
        'taskctl list -o tsv | cut -f1,3',
      ]) +
        '\nFilters apply to the pages read: without --all only --page is searched.\ntsv columns: id, service, status, total_items, cost, created_at, finished_at\n',
    )
    .action((options: ListOptions, command: Command) => run(command, (ctx) => runList(ctx, options)));
}

export async function runList(ctx: Context, options: ListOptions): Promise<void> {
  const api = await ctx.api();
  const matches = (task: Task) =>
    (!options.status?.length || options.status.includes(task.status)) &&
    (!options.service?.length || options.service.includes(task.service));
  const columns = ctx.globals.quiet
    ? taskColumns(ctx.printer.paintStatus).slice(0, 1)
    : taskColumns(ctx.printer.paintStatus);
  const out = ctx.printer.stream(columns, (task: Task) => task);
  let printed = 0;
  let page = options.page;
  let lastMeta: { total_pages: number; current_page: number } | undefined;
  try {
    for (;;) {
      const { tasks, meta } = await api.listTasks({ page, perPage: options.perPage });
      lastMeta = meta;
      if (page === options.page) ctx.cache.rememberTasks(tasks);
      let rows = tasks.filter(matches);
      if (options.limit !== undefined) rows = rows.slice(0, options.limit - printed);
      out.write(rows);
      printed += rows.length;
      const more = page < meta.total_pages && tasks.length > 0;
      if (!options.all || !more || (options.limit !== undefined && printed >= options.limit)) break;
      page += 1;
    }
  } finally {
    await out.end();
  }
  if (!options.all && lastMeta && lastMeta.total_pages > lastMeta.current_page) {
    ctx.printer.info(
      `page ${lastMeta.current_page} of ${lastMeta.total_pages}; use --page ${lastMeta.current_page + 1} or --all for more`,
    );
  }
}
