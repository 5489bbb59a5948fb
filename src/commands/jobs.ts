import type { Command } from 'commander';
import type { JobsOptions } from '../core/jobs.js';
import { columnsOption, wideOption } from '../output/columns.js';
import { examples, type RunAction } from './help-text.js';
import { positiveInt } from './parsers.js';

/** The column names of `jobs` (kept here so --help does not load core/). */
const JOB_COLUMN_NAMES = ['id', 'started', 'service', 'items', 'chunks', 'in_doubt', 'state', 'base_url', 'journal'];

export function registerJobs(program: Command, run: RunAction): void {
  program
    .command('jobs')
    .description("this machine's jobs (every create that may send is one), newest first, and the disk they use")
    .option('--limit <n>', 'print at most this many jobs', positiveInt())
    .option('--all', "every job on this machine, not only the current profile's and base URL's")
    .option(
      '--prune',
      "remove finished and superseded jobs' journals, and those of creates killed before they recorded their job, from the state directory now (never an unfinished job's, nor one a running taskctl holds: next time)",
    )
    .addOption(columnsOption(JOB_COLUMN_NAMES))
    .addOption(wideOption())
    .addHelpText(
      'after',
      examples([
        'taskctl jobs',
        'taskctl jobs --all --limit 5',
        'taskctl jobs -o json | jq -r \'.[] | select(.state == "interrupted") | .id\'',
        'taskctl jobs --prune',
        'taskctl resume j-mi3k2x1a7f3q',
      ]) +
        '\nStates: running (a taskctl is sending it now), interrupted (`taskctl resume ID` continues it), superseded (a re-run of the same items took it over: `taskctl resume ID` continues that one), finished, lost (finished, but the service no longer has some of its tasks, as a `taskctl resume` found and recorded: its task ids started again; which, on stderr), ended-elsewhere (a copy of its state directory ended it and was pruned since: its resume here is refused, its tasks are on the service; where, on stderr; pruned as a finished job), unreadable (its journal cannot be read; why, on stderr; kept, never pruned).\n' +
        "Journals live in the state directory (TASKCTL_STATE_DIR, else $XDG_STATE_HOME/taskctl, else ~/.local/state/taskctl); a finished job's is removed after the job-retention setting (default: 720h).\n" +
        '-q prints the ids, one a line.\n',
    )
    .action((options: JobsOptions, command: Command) =>
      run(command, async (ctx) => (await import('../core/jobs.js')).runJobs(ctx, options)),
    );
}
