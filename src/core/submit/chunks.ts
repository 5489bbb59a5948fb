/** Creates a plan's chunks in order, each through send.ts, printing each task as it is created. */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, InterruptedError } from '../../errors.js';
import { counted } from '../items/clean.js';
import { taskColumns } from '../../output/task-columns.js';
import { listHint, createOne, sendState } from './send.js';
import type { Chunk, Outcome, PricedBatch, SubmitOptions } from './types.js';

/**
 * Creates the chunks in order, printing each as it is created; a failure or Ctrl-C part-way names the tasks already
 * created. Stdout is held (see output/stdout-guard.ts): when it fails (a closed pipe, a full disk), the create in
 * flight finishes, no further chunk is started, every task created is named on stderr, and the exit code is 1.
 */
export async function createChunks(
  ctx: Context,
  api: ApiClient,
  batches: readonly PricedBatch[],
  options: SubmitOptions,
): Promise<Outcome[]> {
  const oneService = batches.length === 1;
  const total = batches.reduce((sum, batch) => sum + batch.tasks, 0);
  const { holdOutput } = await import('../../output/stdout-guard.js');
  const state = await sendState(ctx, api);
  const hold = holdOutput(ctx.io.stdout);
  const outcomes: Outcome[] = [];
  const quiet = ctx.globals.quiet === true;
  // With --wait the final state is printed by the wait; printing the pending task first would list it twice.
  const out =
    quiet || options.wait
      ? undefined
      : ctx.printer.stream(taskColumns(ctx.printer.paintStatus), (task: Task) => task, { wide: options.wide === true });
  // -o json is the task itself when only one task can result (one service, no --chunk-size), else an array.
  const singleObject =
    out !== undefined && oneService && options.chunkSize === undefined && ctx.printer.format === 'json';
  const createdSoFar = () =>
    `created ${outcomes.length} of ${counted(total, 'task')}` +
    (outcomes.length > 0 ? `: ${outcomes.map((o) => o.task.id).join(' ')}` : '');
  let service = batches[0]?.service ?? '';
  // Chunks are read from the items as they are sent, one at a time (a streamed input is never held whole).
  function* allChunks(): Generator<Chunk> {
    for (const batch of batches) {
      for (const items of batch.list.chunks(batch.size)) yield { service: batch.service, items };
    }
  }
  try {
    try {
      let index = 0;
      for (const chunk of allChunks()) {
        // The output is gone (known once the writes so far have settled): start nothing new.
        if (index > 0 && (await hold.settle())) break;
        service = chunk.service;
        const what = total === 1 ? 'the task' : `task ${index + 1} of ${total}`;
        index++;
        const outcome = await createOne(ctx, api, chunk, options, new Set(outcomes.map((o) => o.task.id)), what, state);
        outcomes.push(outcome);
        ctx.cache.rememberTasks([outcome.task]);
        if (quiet) ctx.printer.line(String(outcome.task.id));
        else if (out && !singleObject) out.write([outcome.task]);
      }
    } catch (error) {
      // A JSON array cut by the failure stays unterminated: a truncated result never parses as a whole one.
      if (out && !singleObject) await out.abort();
      const failure =
        error instanceof CliError
          ? error
          : ctx.signal.aborted
            ? new InterruptedError('interrupted', listHint(service))
            : undefined;
      if (!failure) throw error;
      if (outcomes.length === 0 && failure === error) throw error;
      throw new CliError(`${failure.message}\n${createdSoFar()} before that`, failure.exitCode, failure.hint);
    }
    const first = outcomes[0];
    if (singleObject && first) ctx.printer.json(first.task);
    else if (out) await out.end();
    const lost = await hold.settle();
    if (lost) {
      const stopped = outcomes.length < total ? '; no further task was started' : '';
      throw new CliError(
        `cannot write the output (${lost.code ?? lost.message}): ${createdSoFar()}${stopped}`,
        ExitCode.outputFailed,
        `The ids above may not have been printed. ${listHint(service)}`,
      );
    }
    return outcomes;
  } finally {
    hold.release();
  }
}
