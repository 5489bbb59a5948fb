/**
 * `retry`: the items of finished tasks that did not complete, through the same pipeline. One that may send is a job,
 * like every create (docs/behaviour.md#jobs): a job holds one service, so tasks of several services are retried one
 * service at a time; `--dry-run` prices every service's batch.
 */
import type { Task } from '../../api/schemas.js';
import type { Output } from '../capabilities.js';
import { CliError, InputError, readInterrupted, UnavailableError, UsageError } from '../../errors.js';
import { unsendableItem } from '../items/clean.js';
import { DEFAULT_LIMITS } from '../items/types.js';
import { formatCount } from '../../output/numbers.js';
import { isTerminal, taskSucceeded } from '../../lib/task-state.js';
import { InputCopy } from '../../store/journal-file.js';
import { errorMatch, noErrorMatched, toRetry, type ErrorMatch } from '../job/error-match.js';
import type { JobPlace } from './journaled-run.js';
import type { Job } from './journal-records.js';
import { runPipeline } from './pipeline.js';
import { type Batch, type SubmitOptions, type Submitter } from './types.js';
import { counted } from '../../output/plural.js';
import { resumeCommand } from './resume-command.js';
import { dryRunOfNothing } from './dry-run.js';

export interface RetryOptions extends SubmitOptions {
  /** Commander's `--no-reuse`: false pays again even for a retry made moments ago. */
  reuse?: boolean;
  keepDuplicates?: boolean;
  /** `--error TEXT`: only the items whose error (else their task's) contains one of these, case-insensitively. */
  error?: string[];
  /** `--job FILE`: the tasks of this journaled job instead of ids (core/job/retry-job.ts). */
  job?: string;
  /** Keep the retry's journal (it is a new job) in this file instead of the state directory. */
  journal?: string;
}

/** A re-run of the same retry (a re-run CI job) reuses the task it created within this window, by default. */
const RETRY_REUSE_WINDOW_MS = 60 * 60_000;

/**
 * The items of `task` that did not complete (and match --error), as the server listed them (`target`), in order. One
 * that is no item (core/items/clean.ts `unsendableItem`) is exit 3 before anything is priced: sent through the job's
 * copy of its input it would be refused there, or a blank one left out unsaid.
 */
export function itemsToRetry(task: Task, pick: ErrorMatch = toRetry(undefined)): string[] {
  const targets: string[] = [];
  for (const [index, item] of (task.items ?? []).entries()) {
    if (!pick(item, task)) continue;
    const why = unsendableItem(item.target);
    if (why !== undefined)
      throw new InputError(
        `item ${formatCount(index + 1)} of task ${task.id} cannot be sent again: its target ${why}; nothing was created`,
        `An item is plain text of up to ${formatCount(DEFAULT_LIMITS.maxLineLength)} characters. See the items: taskctl show ${task.id} --items-status failed`,
      );
    targets.push(item.target);
  }
  return targets;
}

/** A task that lists fewer items than it has: the others cannot be retried (warned; true when so). */
export function warnUnlisted(ctx: Pick<Output, 'printer'>, task: Task): boolean {
  const listed = task.items?.length ?? 0;
  if (listed >= task.total_items) return false;
  ctx.printer.warn(
    `task ${task.id} lists ${listed} of its ${counted(task.total_items, 'item')}; ` +
      `the ${task.total_items - listed} not listed cannot be retried`,
  );
  return true;
}

function taskList(ids: readonly number[]): string {
  return `${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}`;
}

/**
 * The reads of the tasks a retry retries, before anything is priced or sent: stopped by Ctrl-C or SIGTERM, said as
 * every read's stop is (nothing was changed; the same command again), not as a bare `interrupted`.
 */
export async function readingSources<T>(ctx: Pick<Submitter, 'signal'>, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (ctx.signal.aborted && !(error instanceof CliError)) throw readInterrupted();
    throw error;
  }
}

/** `retry <id...>`: the items of these finished tasks that did not complete, one batch per service. */
export async function retryTasks(ctx: Submitter, ids: number[], options: RetryOptions): Promise<void> {
  const pick = toRetry(errorMatch(options.error));
  const unique = [...new Set(ids)];
  const api = await ctx.api();
  // Every task is read before anything is priced or sent: a missing one is exit 5 with nothing created.
  const tasks: Task[] = [];
  await readingSources(ctx, async () => {
    for (const id of unique) tasks.push(await api.getTask(id));
  });
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
    if (warnUnlisted(ctx, task)) unlisted = true;
    const items = itemsToRetry(task, pick);
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
      options.error?.length
        ? `nothing to retry: ${noErrorMatched(taskList(unique), options.error)}`
        : unlisted
          ? `nothing to retry: every item listed for ${taskList(unique)} completed`
          : `nothing to retry: every item of ${taskList(unique)} completed`,
    );
    if (options.dryRun === true) dryRunOfNothing(ctx);
    return;
  }

  // The tasks retried are never the retry's task: with --allow-item-failures one whose every item failed would match.
  const submit = { ...options, reuseWindow: retryReuseWindow(options), notReusable: new Set(unique) };
  if (options.dryRun !== true) {
    if (batches.size > 1) throw severalServices(tasks, batches);
    const { journaledOr, placeJob } = await import('./journaled-run.js');
    const place = ctx.ephemeralSandbox ? undefined : placeJob(ctx, options.journal);
    const [batch] = batches;
    if (place && batch) {
      const [service, items] = batch;
      const retryOf = { tasks: unique, error: options.error ?? [] };
      if (await journaledOr(ctx, place, () => journaledRetry(ctx, place, { service, items }, submit, retryOf))) return;
    }
  }
  const planned: Batch[] = [];
  for (const [service, items] of batches)
    planned.push({ service, items: await onceEach(ctx, service, items, options) });
  await runPipeline(ctx, { batches: planned, verb: 'Retry' }, submit);
}

/**
 * A job holds one service: a retry that would send the items of several is refused before anything is priced, with
 * one command per service, each a job of its own (run one after the other, none sends what another does).
 */
function severalServices(tasks: readonly Task[], batches: ReadonlyMap<string, string[]>): UsageError {
  const byService = [...batches.keys()].map((service) => ({
    service,
    ids: [...new Set(tasks.filter((task) => task.service === service).map((task) => task.id))],
  }));
  const named = byService.map(({ service, ids }) => `${taskList(ids)} (${service})`);
  return new UsageError(
    `${named.slice(0, -1).join(', ')} and ${named.at(-1) ?? ''} leave items of ${byService.length} services to ` +
      'retry; a retry is one job, of one service: nothing was created',
    `Retry each service's tasks on its own, with the same options: ${byService
      .map(({ ids }) => `taskctl retry ${ids.join(' ')}`)
      .join('; ')}`,
  );
}

/**
 * A retry that may send is a new job (`--journal FILE`, else in the state directory), as every create is: its items go
 * to `FILE.input` (NDJSON, fsynced), which the job reads as its input (its digest recorded), with what it retries
 * (`retry_of`), so that `taskctl resume ID` continues it like any other job. Shared by `retry <id...>` and `retry --job`.
 * The copy is written only under the job's locks, into a journal that holds no job or one that sent nothing: a run
 * holding FILE (a create still copying its stdin there) keeps its copy whole, and this retry is refused as the job in use.
 */
export async function journaledRetry(
  ctx: Submitter,
  place: JobPlace,
  batch: { service: string; items: readonly string[] },
  options: RetryOptions,
  retryOf: NonNullable<Job['retry_of']>,
): Promise<void> {
  const input = `${place.path}.input`;
  const { runJournaledCreate } = await import('./journaled-run.js');
  // Sent as the server listed them (no validation).
  const submit = { ...options, file: [input], format: 'ndjson' as const, validate: false, retryOf };
  await runJournaledCreate(ctx, place, batch.service, [], submit, (state) => {
    // Its input would be replaced by this run's choice: the job there goes on with its own. One that sent nothing
    // (refused by --max-cost, declined, stopped before its first chunk) is started again as given, as a create's is.
    // An unfinished one has one next step: a new path would be another job sending the items it may have paid for.
    if (state?.sent === true) {
      if (state.done)
        throw new UsageError(
          `${place.name} already holds a job`,
          `That job is finished; give this retry a new --journal path (\`taskctl show --job ${place.name}\` reads it).`,
        );
      const refused = [...state.chunks.values()].some((chunk) => chunk.refused !== undefined);
      throw new UsageError(
        `${place.name} already holds a job`,
        `Continue it: ${resumeCommand({ id: place.name, refused })}`,
      );
    }
    writeItems(input, batch.items);
  });
}

/** The items as NDJSON in `path`, fsynced; the copy is closed whatever fails. */
function writeItems(path: string, items: readonly string[]): void {
  const copy = new InputCopy(path);
  try {
    for (let start = 0; start < items.length; start += 10_000) {
      const lines = items.slice(start, start + 10_000).map((target) => `${JSON.stringify(target)}\n`);
      copy.write(Buffer.from(lines.join('')));
    }
    copy.finish();
  } finally {
    copy.close();
  }
}

/** The items of `service` to send: each once unless --keep-duplicates (the repeats removed are counted on stderr). */
export async function onceEach(
  ctx: Pick<Output, 'printer'>,
  service: string,
  items: string[],
  options: RetryOptions,
): Promise<string[]> {
  if (options.keepDuplicates) return items;
  const { dedupeItems } = await import('../items/index.js');
  const { unique, duplicates } = dedupeItems(items);
  if (duplicates > 0) {
    ctx.printer.info(`${service}: removed ${counted(duplicates, 'duplicate item')} (--keep-duplicates sends them)`);
  }
  return unique;
}

/** --reuse-window, 1h by default, none with --no-reuse: shared with `retry --job`. */
export function retryReuseWindow(options: RetryOptions): number | undefined {
  return options.reuse === false ? undefined : (options.reuseWindow ?? RETRY_REUSE_WINDOW_MS);
}
