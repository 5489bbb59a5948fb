import type { Command } from 'commander';
import type { ListOptions } from '../core/list.js';
import { columnsOption, wideOption } from '../output/columns.js';
import { examples, type RunAction } from './help-text.js';
import { collect, positiveInt, taskStatuses, timeBound } from './parsers.js';
import { taskColumnNames } from '../output/task-columns.js';

const COLUMN_NAMES = taskColumnNames();

export function registerList(program: Command, run: RunAction): void {
  program
    .command('list')
    .alias('ls')
    .description('list tasks, newest first as the service returns them: one page, --all, or a search with filters')
    .option('--page <n>', 'page to read', positiveInt(), 1)
    .option('--per-page <n>', 'tasks per page, 1..100 (default: 25; 100 with --all or a filter)', positiveInt(100))
    .option('--all', 'read every page (from --page on), streaming; with a filter, every match', false)
    .option(
      '--status <status>',
      'only tasks in this status, repeatable or comma-separated: pending, processing, completed, failed, a word for an ended task (cancelled, expired, ...), or a group: working (running), waiting, unfinished, ended',
      taskStatuses,
    )
    .option('--service <service>', 'only tasks of this service (repeatable or comma-separated)', collect)
    .option(
      '--limit <n>',
      'print at most this many tasks, reading on past one page when it is more; a search stops there (default for a search: --per-page, else 25)',
      positiveInt(),
    )
    .option('--since <duration>', 'only tasks created in the last DURATION (30m, 24h) or since an ISO time', timeBound)
    .option('--until <duration>', 'only tasks created at least DURATION ago, or until an ISO time', timeBound)
    .addOption(columnsOption(COLUMN_NAMES))
    .addOption(wideOption())
    .addHelpText(
      'after',
      examples([
        'taskctl list',
        'taskctl list --status failed',
        'taskctl list --all --status failed -o ndjson',
        'taskctl list --all --service domain_check_availability --limit 10 -q',
        'taskctl list --since 1h --status failed',
        'taskctl list --status running -q | taskctl wait -   # running = working',
        'taskctl list --since 24h --until 1h -o csv > yesterday.csv',
        'taskctl list --since 2025-01-15 --until 2025-01-16   # dates: midnight UTC',
        'taskctl list --columns id,status,created_at -o tsv',
        "taskctl list --columns id,failed_items -o tsv | awk '$2 > 0'  # failed items",
        'taskctl list --wide',
        'taskctl list -o tsv | cut -f1,3',
        `taskctl list -o tsv | awk -F'\\t' '$3 == "on_hold"'   # any status`,
      ]) +
        '\nFilters search the list: --status, --service, --since and --until read the pages from --page on until ' +
        '--limit tasks match (default: --per-page, else 25; --all: every match) or the list ends. Stopping at the limit ' +
        'says so on stderr.' +
        '\n--since/--until stop at the first page older than the window when the list is newest first; a DURATION ' +
        "counts back from the service's clock (the first page's Date header), this machine's without one." +
        '\nAn unknown --status is refused (exit 2) with the closest known one; filter a status outside the list with awk.' +
        `\ntsv columns: ${COLUMN_NAMES.join(', ')}\n`,
    )
    .action((options: ListOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/list.js')).runList(ctx, options)),
    );
}
