import { Option, type Command } from 'commander';
import type { Task } from '../api/schemas.js';
import type { Context } from '../context.js';
import { UnavailableError, UsageError } from '../errors.js';
import { counted } from '../core/items/clean.js';
import { isTerminal, itemOutcome, taskSucceeded } from '../core/task-state.js';
import { examples, type RunAction } from './help-text.js';
import { addSpendOptions, submitItems, type Batch, type SubmitOptions } from './create.js';
import { duration } from './parsers.js';
import { parseTaskId } from './task-id.js';
import { addWaitOptions } from './wait.js';

export interface RetryOptions extends SubmitOptions {
  /** Commander's `--no-reuse`: false pays again even for a retry made moments ago. */
  reuse?: boolean;
  keepDuplicates?: boolean;
}

/** A re-run of the same retry (a re-run CI job) reuses the task it created within this window, by default. */
const RETRY_REUSE_WINDOW_MS = 60 * 60_000;

export function registerRetry(program: Command, run: RunAction): void {
  const command = program
    .command('retry')
    .description('create a new task, per service, from the items of tasks that did not complete')
    .argument('<id...>', 'ids of finished tasks')
    .option('--dry-run', 'price the items to retry, show the balance after; create nothing')
    .addOption(
      new Option(
        '--reuse-window <duration>',
        'reuse a retry task with the same service and items created within this window',
      )
        .argParser(duration)
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
        'taskctl retry 42 -q | taskctl wait -',
        'taskctl retry 42 --no-reuse --yes   # pay again, even for a retry just made',
      ]) +
        '\nRetried: the items of finished tasks that did not complete (what makes wait\n' +
        'exit 11), sent as the server listed them, one new task per service. A task\n' +
        'still pending or processing is refused (exit 2): its items may still complete.\n' +
        'Nothing to retry: exit 0. Running the same retry again within --reuse-window\n' +
        'reuses its task (no coins spent) while it runs or once every item completed;\n' +
        'a retry task that did not succeed is not reused, so a re-run retries again.\n',
    )
    .action((ids: string[], options: RetryOptions, cmd: Command) =>
      run(cmd, (ctx) => runRetry(ctx, ids.map(parseTaskId), options)),
    );
}

/** The items of `task` that did not complete, as the server listed them (`target`), in the task's order. */
function itemsToRetry(task: Task): string[] {
  return (task.items ?? []).filter((item) => itemOutcome(item, true) !== 'completed').map((item) => item.target);
}

function taskList(ids: readonly number[]): string {
  return `${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}`;
}

export async function runRetry(ctx: Context, ids: number[], options: RetryOptions): Promise<void> {
  if (options.reuse === false && options.reuseWindow !== undefined) {
    throw new UsageError('--no-reuse and --reuse-window contradict each other', 'Pass one of them.');
  }
  const unique = [...new Set(ids)];
  const api = await ctx.api();
  // Every task is read before anything is priced or sent: a missing one is exit 5 with nothing created.
  const tasks: Task[] = [];
  for (const id of unique) tasks.push(await api.getTask(id));
  const running = tasks.filter((task) => !isTerminal(task));
  if (running.length > 0) {
    const runningIds = running.map((task) => task.id);
    throw new UsageError(
      `${taskList(runningIds)} ${running.length === 1 ? 'is' : 'are'} still ${running[0]?.status ?? 'running'}: ` +
        `${running.length === 1 ? 'its' : 'their'} items may still complete; nothing was created`,
      `Wait for it first: taskctl wait ${runningIds.join(' ')}; taskctl retry ${unique.join(' ')}`,
    );
  }

  const batches = new Map<string, string[]>();
  let unlisted = false;
  for (const task of tasks) {
    const listed = task.items?.length ?? 0;
    if (listed < task.total_items) {
      unlisted = true;
      ctx.printer.warn(
        `task ${task.id} lists ${listed} of its ${counted(task.total_items, 'item')}; ` +
          `the ${task.total_items - listed} not listed cannot be retried`,
      );
    }
    const items = itemsToRetry(task);
    if (items.length === 0) continue;
    batches.set(task.service, [...(batches.get(task.service) ?? []), ...items]);
  }
  // The server's counts say items did not complete, but it lists none of them: there is nothing to send, and saying
  // "nothing to retry" (exit 0) would call a failure done.
  const hidden = tasks.filter(
    (task) => (task.items?.length ?? 0) < task.total_items && !taskSucceeded(task) && itemsToRetry(task).length === 0,
  );
  if (batches.size === 0 && hidden.length > 0) {
    const hiddenIds = hidden.map((task) => task.id);
    throw new UnavailableError(
      `${taskList(hiddenIds)} ${hidden.length === 1 ? 'reports items that did not complete but does' : 'report items that did not complete but do'} not list them: nothing can be retried`,
      `See what the server lists: taskctl show ${hiddenIds.join(' ')}`,
    );
  }
  if (batches.size === 0) {
    ctx.printer.info(
      unlisted
        ? `nothing to retry: every item listed for ${taskList(unique)} completed`
        : `nothing to retry: every item of ${taskList(unique)} completed`,
    );
    return;
  }

  const { dedupeItems } = await import('../core/items/index.js');
  const planned: Batch[] = [];
  for (const [service, items] of batches) {
    if (options.keepDuplicates) {
      planned.push({ service, items });
      continue;
    }
    const { unique: once, duplicates } = dedupeItems(items);
    if (duplicates > 0) {
      ctx.printer.info(`${service}: removed ${counted(duplicates, 'duplicate item')} (--keep-duplicates sends them)`);
    }
    planned.push({ service, items: once });
  }
  const reuseWindow = options.reuse === false ? undefined : (options.reuseWindow ?? RETRY_REUSE_WINDOW_MS);
  await submitItems(ctx, planned, { ...options, reuseWindow }, { verb: 'Retry' });
}
