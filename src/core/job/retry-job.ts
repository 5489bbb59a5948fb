/**
 * `taskctl retry --job FILE [--journal NEW]`: the items of a finished journaled job that did not complete (failed
 * items, and the items of failed tasks), filtered by `--error`, re-run as a new job, as `retry <id...>` is
 * (`journaledRetry`: its items written to `NEW.input`, else beside its journal in the state directory).
 */
import { resolve } from 'node:path';
import type { Task } from '../../api/schemas.js';
import type { Output, Prompts, Service } from '../capabilities.js';
import { UnavailableError, UsageError } from '../../errors.js';
import { isTerminal, taskSucceeded } from '../../lib/task-state.js';
import { counted } from '../../output/plural.js';
import { runPipeline } from '../submit/pipeline.js';
import type { Submitter } from '../submit/types.js';
import { spending } from '../submit/resume-command.js';
import { dryRunOfNothing } from '../submit/dry-run.js';
import {
  itemsToRetry,
  journaledRetry,
  readingSources,
  onceEach,
  retryReuseWindow,
  warnUnlisted,
  type RetryOptions,
} from '../submit/retry-tasks.js';
import { errorMatch, noErrorMatched, toRetry } from './error-match.js';
import {
  endShortIfLost,
  jobTasks,
  lostItemsWords,
  readJob,
  requireComplete,
  requireTasks,
  warnIfRefused,
  type JournaledJob,
} from './journaled-job.js';
import type { CreatedChunk } from './job-chunks.js';

/** What the job's tasks leave to retry: the targets in chunk order, and whether some failed items were not listed. */
interface Chosen {
  targets: string[];
  hidden: number[];
}

export async function runRetryJob(ctx: Submitter, file: string, options: RetryOptions): Promise<void> {
  if (options.journal !== undefined && resolve(options.journal) === resolve(file)) {
    throw new UsageError(
      `--journal ${options.journal} is the --job file: the retry is a new job and needs a journal of its own`,
      `taskctl retry --job ${file} --journal ${file.replace(/(\.jsonl)?$/, '-retry.jsonl')}`,
    );
  }
  const job = await readJob(ctx, file);
  // Its spending flags: the resume that finishes the job confirms as this run would have.
  requireComplete(job, 'retry --job', spending(options));
  requireTasks(job);
  endShortIfLost(ctx, job);
  warnIfRefused(ctx, job);
  // Their items have no result, but they were paid for once: never bought again unasked (a create of their own).
  if (job.lost.length > 0)
    ctx.printer.warn(
      `${lostItemsWords(job)} are not retried: the job paid for them once, and buying them again is a create of their own`,
    );
  await retryJob(ctx, file, job, options);
}

async function retryJob(ctx: Submitter, file: string, job: JournaledJob, options: RetryOptions): Promise<void> {
  const chosen = await readingSources(ctx, () => chooseItems(ctx, job, options));
  if (chosen.targets.length === 0) {
    if (chosen.hidden.length > 0) {
      throw new UnavailableError(
        `${chosen.hidden.length === 1 ? 'task' : 'tasks'} ${chosen.hidden.join(', ')} of ${file} ${chosen.hidden.length === 1 ? 'reports' : 'report'} items that did not complete but ${chosen.hidden.length === 1 ? 'does' : 'do'} not list them: nothing can be retried`,
        `See what the server lists: taskctl show ${chosen.hidden.join(' ')}`,
      );
    }
    ctx.printer.info(`nothing to retry: ${nothingWords(file, job, options)}`);
    if (options.dryRun === true) dryRunOfNothing(ctx);
    return;
  }
  const chunkSize = options.chunkSize ?? job.chunkSize;
  // No task of the job retried is a retry's task (with --allow-item-failures a chunk whose every item failed matches).
  const notReusable = new Set(job.created.map((chunk) => chunk.task));
  const submit = { ...options, chunkSize, reuseWindow: retryReuseWindow(options), notReusable };
  if (options.dryRun !== true && !ctx.ephemeralSandbox) {
    const { journaledOr, placeJob } = await import('../submit/journaled-run.js');
    const place = placeJob(ctx, options.journal);
    const batch = { service: job.service, items: chosen.targets };
    const retryOf = { journal: job.path, error: options.error ?? [] };
    if (place && (await journaledOr(ctx, place, () => journaledRetry(ctx, place, batch, submit, retryOf)))) return;
  }
  const items = await onceEach(ctx, job.service, chosen.targets, options);
  await runPipeline(ctx, { batches: [{ service: job.service, items }], verb: 'Retry' }, submit);
}

/**
 * Why a retry of the job found nothing: no item matched --error, the job has no task at all (its chunks lost, some
 * perhaps refused: the warnings above said which), or every item of its tasks completed.
 */
function nothingWords(file: string, job: JournaledJob, options: Pick<RetryOptions, 'error'>): string {
  if (options.error?.length) return noErrorMatched(file, options.error);
  // No task at all, none lost, is exit 3 before (requireTasks): some are lost here.
  if (job.created.length === 0)
    return `${file} has no task: its tasks are recorded lost${job.refused.length > 0 ? ', and the service refused the others' : ''}`;
  const which = job.lost.length > 0 ? 'the other ' : job.refused.length > 0 ? 'the ' : '';
  return `every item of ${which === '' ? '' : `${which}${counted(job.created.length, 'task')} of `}${file} completed`;
}

/** Every task read once, in chunk order; a task still running is exit 2 before anything is priced or sent. */
async function chooseItems(
  ctx: Pick<Output, 'printer'> & Pick<Prompts, 'spin'> & Pick<Service, 'api'>,
  job: JournaledJob,
  options: RetryOptions,
): Promise<Chosen> {
  const api = await ctx.api();
  const pick = toRetry(errorMatch(options.error));
  const chosen: Chosen = { targets: [], hidden: [] };
  await ctx.spin(`reading ${counted(job.created.length, 'task')} of ${job.file}`, async () => {
    for await (const { chunk, task } of jobTasks(api, job)) {
      if (!isTerminal(task)) throw stillRunning(job, chunk, task);
      const items = itemsToRetry(task, pick);
      // The server's counts say items did not complete, but it lists none of them: nothing of it can be sent.
      if (warnUnlisted(ctx, task) && !taskSucceeded(task) && itemsToRetry(task).length === 0) {
        chosen.hidden.push(task.id);
      }
      for (const target of items) chosen.targets.push(target);
    }
  });
  return chosen;
}

function stillRunning(job: JournaledJob, chunk: CreatedChunk, task: Task): UsageError {
  return new UsageError(
    `task ${task.id} (chunk ${chunk.chunk} of ${job.file}) is still ${task.status}: its items may still complete; nothing was created`,
    `Wait for the job first: taskctl wait --job ${job.file}; taskctl retry --job ${job.file}`,
  );
}
