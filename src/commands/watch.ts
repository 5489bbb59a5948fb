import type { Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Column } from '../output/printer.js';
import type { Context } from '../context.js';
import { ExitCode } from '../errors.js';
import { examples, type RunAction } from './help-text.js';
import { duration } from './parsers.js';
import { parseTaskId } from './task-id.js';

export interface WatchOptions {
  /** With no ids: keep following new tasks after the current ones finish (until Ctrl-C). */
  follow?: boolean;
  interval: number;
  /** 0 (default) = no limit; else exit 124 when reached with tasks unfinished. */
  timeout: number;
}

interface Change {
  at: number;
  task: Task;
}

/** tsv/csv columns of `watch` (documented in its help). */
const CHANGE_COLUMNS: Column<Change>[] = [
  { header: 'timestamp', value: (c) => new Date(c.at).toISOString() },
  { header: 'id', value: (c) => c.task.id },
  { header: 'service', value: (c) => c.task.service },
  { header: 'status', value: (c) => c.task.status },
  { header: 'completed_items', value: (c) => c.task.completed_items },
  { header: 'failed_items', value: (c) => c.task.failed_items },
  { header: 'total_items', value: (c) => c.task.total_items },
];

export function registerWatch(program: Command, run: RunAction): void {
  program
    .command('watch')
    .description('stream task status changes as they happen (human lines, or NDJSON shaped like webhook events)')
    .argument('[id...]', 'task ids; none = every unfinished task and any new one')
    .option('--follow', 'with no ids: keep going after the current tasks finish, picking up new ones')
    .option('--interval <duration>', 'first poll interval; grows x1.5 to 30s while nothing changes', duration, 2000)
    .option('--timeout <duration>', 'stop after this long (exit 124); 0 = never', duration, 0)
    .addHelpText(
      'after',
      examples([
        'taskctl watch 42 43',
        'taskctl watch --follow -o ndjson | jq -c "select(.event == \\"failed\\")"',
        'taskctl watch -o ndjson > events.ndjson',
      ]) +
        '\n-o ndjson (and -o json) print one {event, timestamp, task} object per change, exactly like a webhook body.\n' +
        'tsv columns: timestamp, id, service, status, completed_items, failed_items, total_items\n' +
        'Exit codes as `taskctl wait` once the watched tasks finish: 0, 10 failed, 11 failed items, 124, 130.\n',
    )
    .action((ids: string[], options: WatchOptions, cmd: Command) =>
      run(cmd, (ctx) => runWatch(ctx, ids.map(parseTaskId), options)),
    );
}

export async function runWatch(ctx: Context, ids: number[], options: WatchOptions): Promise<void> {
  const deadline = options.timeout > 0 ? ctx.clock.now() + options.timeout : undefined;
  const api = await ctx.api({ deadline });
  const { followTasks } = await import('../core/follow/follow.js');
  const { toWebhookEvent } = await import('../core/follow/events.js');
  const { waitExitCode, stillRunningMessage } = await import('../core/follow/outcome.js');
  const printer = ctx.printer;
  const asEvents = printer.format === 'json' || printer.format === 'ndjson';
  // tsv/csv rows go through the printer's row stream (it prints each write at once); table gets human lines.
  const rows = printer.format === 'tsv' || printer.format === 'csv' ? printer.stream(CHANGE_COLUMNS) : undefined;
  const result = await followTasks({
    reader: api,
    ids: ids.length > 0 ? ids : 'all-unfinished',
    clock: ctx.clock,
    random: ctx.random,
    intervalMs: options.interval,
    until: 'terminal',
    follow: options.follow,
    deadline,
    signal: ctx.signal,
    onChange: ({ task, at }) => {
      if (asEvents) {
        const event = toWebhookEvent(task, at);
        if (event) printer.line(JSON.stringify(event));
      } else if (rows) {
        rows.write([{ at, task }]);
      } else {
        const counts =
          task.completed_items != null ? ` ${task.completed_items + (task.failed_items ?? 0)}/${task.total_items}` : '';
        const failed = task.failed_items ? ` (${task.failed_items} failed)` : '';
        printer.line(
          `${new Date(at).toISOString()}  task ${task.id} ${task.service} ${printer.paintStatus(task.status)}${counts}${failed}`,
        );
      }
    },
    onTransientError: (error) => printer.warn(`${error.message}; retrying`),
  });
  await rows?.end();
  ctx.cache.rememberTasks(result.tasks);
  if (result.reason === 'interrupted') {
    if (result.unfinished.length > 0 && ids.length > 0)
      printer.error('interrupted', stillRunningMessage(result.unfinished));
    ctx.exitCode = ExitCode.interrupted;
    return;
  }
  if (result.reason === 'timeout') printer.error('timed out', stillRunningMessage(result.unfinished));
  ctx.exitCode = waitExitCode(result.tasks, { reason: result.reason });
}
