import type { Command } from 'commander';
import type { WaitOptions } from '../core/follow/wait-loop.js';
import { examples, type RunAction } from './help-text.js';
import { jobArgument } from './parsers.js';
import { addWaitOptions, journalMisnamed } from './shared-flags.js';

export function registerWait(program: Command, run: RunAction): void {
  const command = program
    .command('wait')
    .description('block until tasks finish; the exit code tells how they ended')
    .argument(
      '[id...]',
      'task ids, or - to read them from stdin (words of a line, or the first column of tsv); or --job',
    )
    .option('--job <job>', 'every task of a job (its id, see taskctl jobs, or its journal file)', jobArgument)
    .addOption(journalMisnamed());
  addWaitOptions(command)
    .addHelpText(
      'after',
      examples([
        'taskctl wait 42',
        'taskctl wait 42 43 --timeout 10m && echo all good',
        'taskctl create domain_check_availability -f domains.txt -q -y | taskctl wait -',
        'taskctl wait 42 --until processing',
        'taskctl wait 42 --report junit=reports/taskctl.xml',
        'taskctl wait 42 -o json | jq ".[0].status"',
        'taskctl wait --job j-mi3k2x1a7f3q --timeout 2h',
      ]) +
        '\nExit: 0 every task completed with every item; 10 a task ended without completing (failed, cancelled, ...);' +
        ' 11 completed, but some items did not; 8 (7 after 429s) the service gave no good answer for' +
        ' --outage-tolerance (or was failing at --timeout); 124 timed out while the service answered; 130 Ctrl-C.' +
        ' --report paths are checked before waiting.\n',
    )
    .action((ids: string[], options: WaitOptions, cmd: Command) =>
      run(cmd, async (ctx) => (await import('../core/wait.js')).runWait(ctx, ids, options)),
    );
}
