import type { Command } from 'commander';
import type { WatchOptions } from '../core/watch.js';
import { examples, type RunAction } from './help-text.js';
import { duration, jobArgument, positiveDuration } from './parsers.js';
import { parseTaskId } from '../lib/task-id.js';

export function registerWatch(program: Command, run: RunAction): void {
  program
    .command('watch')
    .description('stream task status changes as they happen (human lines, or NDJSON shaped like webhook events)')
    .argument('[id...]', 'task ids (or --job); none = every unfinished task and any new one')
    .option('--job <job>', 'every task of a job (its id, see taskctl jobs, or its journal file)', jobArgument)
    .option('--follow', 'with no ids: keep going after the current tasks finish, picking up new ones')
    .option(
      '--interval <duration>',
      "poll interval while a task's end cannot be predicted; grows x1.5 to 30s while nothing changes",
      duration,
      2000,
    )
    .option('--timeout <duration>', 'stop after this long (exit 124); 0 = never', duration, 0)
    .option(
      '--outage-tolerance <duration>',
      'give up when reads keep failing this long from the first that failed: exit 8, or 7 after 429s (default: 2m)',
      positiveDuration('--outage-tolerance'),
    )
    .addHelpText(
      'after',
      examples([
        'taskctl watch 42 43',
        'taskctl watch --job j-mi3k2x1a7f3q -o ndjson',
        'taskctl watch --follow -o ndjson | jq -c "select(.event == \\"failed\\")"',
        'taskctl watch -o ndjson > events.ndjson',
      ]) +
        '\n-o ndjson (and -o json) print one {event, timestamp, task} object per change, exactly like a webhook body.\n' +
        "tsv columns: timestamp (ISO UTC: a new status at the task's own time for it; moved counts, and the first" +
        " record of an unfinished task, when seen; never before the task's record above it), id, service, status," +
        ' completed_items, failed_items, total_items\n' +
        'Exit codes as `taskctl wait` once the watched tasks finish: 0 all completed; 10 a task ended without' +
        ' completing; 11 some items did not complete; 8 (7 after 429s) the service failed every read for' +
        ' --outage-tolerance; 124 timed out (--timeout) while the service answered; 130 Ctrl-C.\n',
    )
    .action((ids: string[], options: WatchOptions, cmd: Command) =>
      run(cmd, async (ctx) => (await import('../core/watch.js')).runWatch(ctx, ids.map(parseTaskId), options)),
    );
}
