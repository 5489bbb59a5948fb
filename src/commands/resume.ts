import type { Command } from 'commander';
import type { ResumeOptions } from '../core/submit/journaled-run.js';
import { examples, type RunAction } from './help-text.js';
import { collect, positiveDuration, jobArgument } from './parsers.js';
import { addWaitOptions } from './shared-flags.js';
import { nonNegativeInt } from './parsers.js';

export function registerResume(program: Command, run: RunAction): void {
  const command = program
    .command('resume')
    .description(
      'continue an interrupted job (a create or retry stopped by Ctrl-C, a kill, a refusal); never resends a chunk that has a task',
    )
    .argument('[job]', 'the job id (taskctl jobs) or its journal file; none: the only interrupted job', jobArgument)
    .option(
      '--adopt <chunk=id>',
      'settle a chunk the job stopped on (exit 9), or one whose task is not its own: it is task ID; repeatable',
      collect,
    )
    .option(
      '--resend <chunk>',
      'settle a chunk the job stopped on (exit 9): send it again, unless the task list shows a task of it not named before (exit 9); repeatable',
      collect,
    )
    .option(
      '--ignore-job <job>',
      'go on without waiting for a job that took over items of this one and has not finished (exit 9), unless its request in doubt may have made them; what it creates of them later is paid twice; kept in the journal; repeatable',
      collect,
    )
    .option(
      '--skip-refused',
      'leave the chunks whose items the service refused (exit 3) without a task, and send the rest',
    )
    .option(
      '--reuse-window <duration>',
      "look for a task of each chunk's items created within this window before sending it (default: the job's own)",
      positiveDuration('--reuse-window'),
    )
    .option('--no-reuse', "send without looking for a task of the items first, whatever the job's --reuse-window")
    .option(
      '--forget-gone-journal',
      'go on though the journal this job was last run from (a copy) is gone: what its run created may be bought again; kept once the run sends',
    )
    .option('--max-cost <coins>', 'refuse (exit 6) when the remaining estimate is above this', nonNegativeInt)
    .option('-y, --yes', 'do not ask for confirmation above the confirm-above setting')
    .option('--wait', 'then wait for every task of the job like `taskctl wait`');
  addWaitOptions(command);
  command
    .addHelpText(
      'after',
      examples([
        'taskctl resume',
        'taskctl resume j-mi3k2x1a7f3q',
        'taskctl resume big.journal --wait',
        'taskctl resume j-mi3k2x1a7f3q --adopt 7=1234',
        'taskctl resume j-mi3k2x1a7f3q --resend 7',
        'taskctl resume j-mi3k2x1a7f3q --skip-refused',
        'taskctl resume j-mi3k2x1a7f3q --ignore-job j-mi3k9q0b2c4d',
        'taskctl resume j-mi3k2x1a7f3q --reuse-window 30m',
      ]) +
        '\nWithout an argument: the only interrupted job of the current profile and base URL (several, or one whose journal cannot be read: listed, exit 2).\n' +
        'The job keeps its service, input and options; inputs are checked against their recorded size and digest (exit 2 if changed).\n' +
        'A chunk caught in flight is settled first: its task adopted, or sent again only when proven never created (else exit 9).\n' +
        'A chunk whose items the service refused is never sent again: exit 3 naming it, unless --skip-refused leaves it without a task.\n' +
        "A job made with --reuse-window (every retry) looks for a task of each chunk's items within it before sending, as its first run did.\n" +
        'A job another one took items of over waits (exit 9) while that one may still create them: settle it first, or --ignore-job it.\n',
    )
    .action((file: string | undefined, options: ResumeOptions, cmd: Command) =>
      run(cmd, async (ctx) => {
        const { runResume } = await import('../core/submit/journaled-run.js');
        await runResume(ctx, file, options);
      }),
    );
}
