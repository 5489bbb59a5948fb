/**
 * The one submission pipeline of `create`, `create --journal`, `resume` and `retry`: price → --dry-run → the money
 * guard (--max-cost, confirmation) → [settle what an earlier run left in doubt] → chunks sent in order (send-chunks.ts,
 * send.ts) → summary → --wait. A journal takes part only as the observer of the chunks (types.ts `ChunkObserver`);
 * the stages are the same with and without one.
 */
import type { ApiClient } from '../../api/client.js';
import { CliError, interruptedBeforeSend } from '../../errors.js';
import type { Process, Prompts, Store } from '../capabilities.js';
import { checkReportTargets } from '../../report/write.js';
import { chunkCount, type ItemList } from '../items/chunks.js';
import { sendChunks } from './send-chunks.js';
import { balanceGuard, confirmCost } from './confirm.js';
import { dryRun } from './dry-run.js';
import { pricePerItem } from './price.js';
import { sendState } from './send.js';
import { finishSubmission } from './summary.js';
import { takenTasks } from './taken-tasks.js';
import { withResumeHint } from './resume-command.js';
import type { Batch, PipelineInput, PricedBatch, SendState, SubmitOptions, Submitter } from './types.js';

/** Runs every stage; the chunks in `done` (and those `settle` adds) are counted, never sent. */
export async function runPipeline(ctx: Submitter, input: PipelineInput, options: SubmitOptions): Promise<void> {
  checkReportTargets(options.report, { env: ctx.env });
  const api = await ctx.api();
  // Until the first chunk is sent, a Ctrl-C stops a run that sent nothing; a job says so itself (journaled-run.ts).
  const beforeSending = async <T>(stage: () => Promise<T>): Promise<T> => {
    try {
      return await stage();
    } catch (error) {
      throw input.job === undefined ? nothingSent(ctx, error) : error;
    }
  };
  const priced = await beforeSending(() => priceBatches(ctx, api, input, options));
  if (options.dryRun) return dryRun(ctx, api, priced, input.normalised);
  // The chunks in doubt settled first; a settlement by the user's word is recorded once the run goes on past the
  // balance (job-journal.ts `ended`), or when settling stops for another reason (an exit 9 of another chunk, Ctrl-C).
  const settle = async (state: SendState): Promise<void> => {
    try {
      await input.settle?.(api, state);
    } catch (error) {
      let failure = error;
      try {
        input.observer?.ended(false);
      } catch (ending) {
        failure = ending;
      }
      // A journal that could not be written (a full disk) is told with the resume that goes on once it can be.
      throw withResumeHint(failure, input.job);
    }
  };
  const balance = priced.some((batch) => batch.count > 0)
    ? await beforeSending(() =>
        confirmCost(ctx, api, priced, options, input.verb, input.verb === 'Resume' ? input.job : undefined),
      )
    : undefined;
  // Nothing left to send: a finished job (its summary, and --wait, only), or one whose chunks left are all given their
  // task by hand (`resume --adopt`). A chunk without a task given one is settled as when chunks are sent: against this
  // machine's ledger (another run's task refused, this job's own entry settled). A finished job reads none, a done
  // chunk given its right task included (that needs no ledger, which may be unusable).
  if (priced.every((batch) => batch.tasks === 0)) {
    const adopting = [...(input.adopted ?? [])].some((chunk) => input.done?.has(chunk) !== true);
    const state = input.settle ? await beforeSending(() => sendState(ctx, api, adopting)) : undefined;
    // A chunk of it given its right task by hand (`resume --adopt`, its recorded task holding other items) first,
    // printed as a create's task (`-q`: its id), as the chunks it settles before sending are.
    if (state) await settle(state);
    if (state) state.taken = takenTasks(ctx, input, state, options);
    const done = new Map(input.done);
    if (state?.settled?.length || state?.taken?.length)
      await sendChunks(ctx, api, { priced, done, state, input }, options);
    await finishSubmission(ctx, { done, outcomes: new Map(), input }, options);
    await state?.table?.();
    return;
  }
  const state = await beforeSending(() => sendState(ctx, api));
  await settle(state);
  state.taken = takenTasks(ctx, input, state, options);
  const { job, observer } = input;
  const kept = () => observer?.anyRecorded() === true;
  state.guard = balanceGuard(ctx, api, afterSettling(priced, input), balance, job && { ...job, kept });
  // What an earlier run (or the settling just now) gave a task, as of now: the chunks this run sends are the others.
  const done = new Map(input.done);
  const outcomes = await sendChunks(ctx, api, { priced, done, state, input }, options);
  await finishSubmission(ctx, { done, outcomes, input }, options);
  await state.table?.();
}

/**
 * The price of each service and what is left to send: every chunk without a task counts (an upper bound for a job
 * whose chunks in doubt may turn out to be created). A price that --max-cost or a confirmation relies on is read
 * from the server now, never from the cache.
 */
async function priceBatches(
  ctx: Pick<Prompts, 'interactive' | 'spin'> & Pick<Store, 'cache'>,
  api: ApiClient,
  input: PipelineInput,
  options: SubmitOptions,
): Promise<PricedBatch[]> {
  const { itemList } = await import('../items/index.js');
  const guardsMoney = options.maxCost !== undefined || (ctx.interactive && options.yes !== true);
  const sized = input.batches.map((batch) => {
    const list = isItemArray(batch.items) ? itemList(batch.items) : batch.items;
    return { service: batch.service, list, size: options.chunkSize ?? Math.max(1, list.count) };
  });
  const priced: PricedBatch[] = [];
  for (const batch of withLeftToSend(sized, input)) {
    const price =
      batch.count === 0
        ? 0
        : await ctx.spin('reading the price', () => pricePerItem(ctx, api, batch.service, guardsMoney));
    priced.push({ ...batch, price, estimate: price * batch.count });
  }
  return priced;
}

/**
 * Each batch with the items and chunks it has left to send (its chunks numbered on from the batch before it): the
 * job's chunks done (`input.done`, kept current as doubts are settled), skipped and adopted are not sent.
 */
function withLeftToSend<B extends { list: ItemList; size: number }>(
  batches: readonly B[],
  input: PipelineInput,
): Array<B & { count: number; tasks: number }> {
  let index = 0;
  return batches.map((batch) => {
    const total = batch.list.count;
    const chunks = chunkCount(total, batch.size);
    let count = total;
    let tasks = chunks;
    for (let chunk = index + 1; chunk <= index + chunks; chunk++) {
      const earlier = input.done?.get(chunk);
      if (earlier === undefined && input.skip?.has(chunk) !== true && input.adopted?.has(chunk) !== true) continue;
      count -= earlier?.items ?? Math.min(batch.size, total - (chunk - index - 1) * batch.size);
      tasks--;
    }
    index += chunks;
    return { ...batch, count, tasks };
  });
}

/**
 * The batches as they stand once the chunks in doubt are settled, at the prices read: a chunk found created is no
 * longer to pay for, so the balance before the first POST is held to what is really left (it was the upper bound).
 */
function afterSettling(priced: readonly PricedBatch[], input: PipelineInput): PricedBatch[] {
  return withLeftToSend(priced, input).map((batch) => ({ ...batch, estimate: batch.price * batch.count }));
}

/**
 * Ctrl-C (or SIGTERM) before the first request that could create a task, which no stage turned into words of its own:
 * nothing was created, and the same command creates the tasks (docs/behaviour.md#jobs).
 */
export function nothingSent(ctx: Pick<Process, 'signal'>, error: unknown): unknown {
  if (!ctx.signal.aborted || error instanceof CliError) return error;
  return interruptedBeforeSend('nothing was created', 'Re-run the same command to create the tasks.');
}

function isItemArray(items: Batch['items']): items is readonly string[] {
  return Array.isArray(items);
}
