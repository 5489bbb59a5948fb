import { Option, type Command } from 'commander';
import type { RetryOptions } from '../core/submit/retry-tasks.js';
import { examples, type RunAction } from './help-text.js';
import { absolutePath, positiveDuration, jobArgument } from './parsers.js';
import { addSpendOptions, addWaitOptions, errorOption } from './shared-flags.js';
import { parseTaskId } from '../lib/task-id.js';

export function registerRetry(program: Command, run: RunAction): void {
  const command = program
    .command('retry')
    .description('create a new task from the items of tasks that did not complete')
    .argument('[id...]', 'ids of finished tasks (or --job)')
    .option(
      '--job <job>',
      'the tasks of a job (its id, see taskctl jobs, or its journal file): re-run what did not complete',
      jobArgument,
    )
    .option('--journal <file>', "keep the retry's journal (a new job) in FILE, its items in FILE.input", absolutePath)
    .addOption(errorOption("only items whose error (else their task's) contains TEXT, case-insensitively"))
    .option('--dry-run', 'price the items to retry, show the balance after; create nothing')
    .addOption(
      new Option(
        '--reuse-window <duration>',
        'reuse a retry task with the same service and items created within this window',
      )
        .argParser(positiveDuration('--reuse-window'))
        .default(undefined, '1h'),
    )
    .option('--no-reuse', 'always create a new task, even when the same retry was made within the window')
    .option('--keep-duplicates', 'send an item as often as it failed across the tasks (removed by default)')
    .option('--wait', 'then wait for the new task(s) like `taskctl wait`');
  addSpendOptions(command);
  addWaitOptions(command);
  command
    .addHelpText(
      'after',
      examples([
        'taskctl retry 42',
        'taskctl retry 42 43 --dry-run',
        'taskctl retry 42 --wait --timeout 30m',
        'taskctl retry 42 -q -y | taskctl wait -',
        'taskctl retry 42 --no-reuse --yes   # pay again, even for a retry just made',
        'taskctl retry 42 --error timeout --error "rate limited"',
        'taskctl retry --job job.jsonl --journal retry.jsonl --wait',
        'taskctl resume j-mi3k2x1a7f3q   # a retry stopped part-way: what it printed',
      ]) +
        '\nRetried: the items of finished tasks that did not complete (what makes wait exit 11), sent as the server ' +
        'listed them. A task still pending or processing is refused (exit 2): its items may still complete.\nA retry ' +
        'that sends is a job, like every create (taskctl jobs; stopped part-way, it prints taskctl resume ID): tasks of ' +
        'several services are refused (exit 2) with one command per service; --dry-run prices them together ' +
        '(-q: the estimate alone, in coins).\n' +
        'Nothing to retry: exit 0. Running the same retry again within --reuse-window reuses its task ' +
        '(no coins spent) while it runs or once every item completed; a retry task that did not succeed is not reused, ' +
        'so a re-run retries again.\n--job: the failed items of every task of a finished job, as one new job (chunks of the ' +
        "job's --chunk-size unless given); an unfinished job is exit 2 (taskctl resume FILE --wait).\n",
    )
    .action((ids: string[], options: RetryOptions, cmd: Command) =>
      run(cmd, async (ctx) => {
        const taskIds = ids.map(parseTaskId);
        const { runRetry } = await import('../core/retry.js');
        await runRetry(ctx, taskIds, options);
      }),
    );
}
