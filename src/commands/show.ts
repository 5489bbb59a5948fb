import { Option, type Command } from 'commander';
import type { ShowOptions } from '../core/show.js';
import { columnsOption, wideOption } from '../output/columns.js';
import { examples, type RunAction } from './help-text.js';
import { jobArgument } from './parsers.js';
import { errorOption, journalMisnamed } from './shared-flags.js';
import { reportOption } from '../report/write.js';
import { parseTaskId } from '../lib/task-id.js';

export function registerShow(program: Command, run: RunAction): void {
  program
    .command('show')
    .alias('get')
    .description('show tasks with their item results')
    .argument('[id...]', 'task ids (or --job)')
    .option(
      '--job <job>',
      'every task of a job (its id, see taskctl jobs, or its journal file), in chunk order, streamed',
      jobArgument,
    )
    .addOption(errorOption('only items that did not complete whose error contains TEXT (what `retry --error` sends)'))
    .addOption(journalMisnamed())
    .addOption(
      new Option(
        '--items-status <status>',
        'only completed items, or (failed) only those that did not complete',
      ).choices(['completed', 'failed']),
    )
    .addOption(columnsOption())
    .addOption(wideOption())
    .addOption(reportOption())
    .addHelpText(
      'after',
      examples([
        'taskctl show 42',
        'taskctl show 42 43 44 -o csv > results.csv',
        'taskctl show 42 --items-status failed',
        'taskctl show 42 --columns target,available -o tsv',
        'taskctl show 42 -o ndjson | jq -r "select(.available) | .target"',
        'taskctl show 42 -o json | jq ".items[] | select(.data.available)"',
        'taskctl show --job j-mi3k2x1a7f3q -o csv > results.csv',
        'taskctl show --job job.jsonl --error timeout   # what a retry re-runs',
      ]) +
        '\n-o csv|tsv: one record per item: task, target, status, the result fields flattened, error (always last).' +
        '\n-o ndjson: one object per item, the result fields with their JSON types. "failed" = did not complete.' +
        '\nSeveral ids: one export (the result columns are the union over all the tasks); -o json is then a list.' +
        '\nA task that does not exist is exit 5 before anything is printed.' +
        '\n--job: every item once, in chunk order, streamed task by task, the next few read while one is printed ' +
        '(within the rate limit; -o json is an array of the ndjson ' +
        'records; csv/tsv take their columns from the first task); a task failing mid-way stops the output.\n',
    )
    .action((ids: string[], options: ShowOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/show.js')).runShow(ctx, ids.map(parseTaskId), options)),
    );
}
