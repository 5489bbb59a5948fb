import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { WaitOptions } from '../core/follow/wait.js';
import { checkReportTargets } from '../report/write.js';
import { examples, type RunAction } from './help-text.js';
import { addWaitOptions } from './shared-flags.js';
import { parseTaskId } from '../lib/task-id.js';

export function registerWait(program: Command, run: RunAction): void {
  const command = program
    .command('wait')
    .description('block until tasks finish; the exit code tells how they ended')
    .argument('<id...>', 'task ids, or - to read them from stdin (one per line; first column of tsv)');
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
      ]) +
        '\nExit: 0 every task completed with every item; 10 a task ended without completing (failed, cancelled, ...);' +
        ' 11 completed, but some items did not; 8 (7 after 429s) the service gave no good answer for' +
        ' --outage-tolerance (or was failing at --timeout); 124 timed out while the service answered; 130 Ctrl-C.' +
        ' --report paths are checked before waiting.\n',
    )
    .action((ids: string[], options: WaitOptions, cmd: Command) =>
      run(cmd, async (ctx) => {
        checkReportTargets(options.report);
        const { waitForTasks } = await import('../core/follow/wait.js');
        await waitForTasks(ctx, await resolveIds(ctx, ids), options);
      }),
    );
}

/** Ids from arguments, or from stdin with `-`: whitespace-separated, first field of each line (so tsv pipes work). */
async function resolveIds(ctx: Context, args: string[]): Promise<number[]> {
  if (!args.includes('-')) return [...new Set(args.map(parseTaskId))];
  if (args.length > 1) throw new UsageError('give task ids as arguments or - for stdin, not both');
  if (ctx.io.stdin.isTTY)
    throw new UsageError(
      '- reads task ids from stdin, but stdin is a terminal',
      'Pipe them in: `taskctl create ... -q | taskctl wait -`.',
    );
  const ids = (await (await import('node:stream/consumers')).text(ctx.io.stdin))
    .split(/\r?\n/)
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((field) => field !== '' && !field.startsWith('#'))
    .map(parseTaskId);
  if (ids.length === 0) throw new UsageError('no task ids on stdin', 'Pipe ids in, one per line.');
  return [...new Set(ids)];
}
