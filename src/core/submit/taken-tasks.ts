/**
 * A create or retry that took another job of the same work (docs/behaviour.md#jobs): that job's tasks are this run's,
 * printed first on stdout as a reused task is. Each is read (GET /tasks/:id) as `show --job` reads a job's tasks, a few
 * at a time within the rate and byte budgets (docs/behaviour.md#reading-a-job-ahead), and printed as it comes in chunk
 * order: what is held is the read-ahead's bound, never the job.
 */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';
import { NotFoundError } from '../../errors.js';
import type { Service } from '../capabilities.js';
import { answerBytes, rateBudgetAllows, readAhead, SHOW_READ_AHEAD } from '../job/read-ahead.js';
import { idsOnly } from '../quiet.js';
import type { PipelineInput, SendState, SubmitOptions, TakenTask } from './types.js';

/**
 * The tasks the job taken (`input.takes`) gave its chunks so far, in chunk order: those settled now are printed as such,
 * a chunk recorded lost has no task. With `--wait` none (the wait prints every task of the job) unless `-q` (their ids).
 */
export function takenTasks(
  ctx: Pick<Service, 'globals'>,
  input: PipelineInput,
  state: SendState,
  options: SubmitOptions,
): TakenTask[] {
  if (input.takes !== true || input.done === undefined) return [];
  if (options.wait && !idsOnly(ctx.globals)) return [];
  const settled = new Set((state.settled ?? []).map(({ task }) => task.id));
  const lost = new Set(input.observer?.lostChunks?.() ?? []);
  return [...input.done.entries()]
    .filter(([chunk, done]) => !lost.has(chunk) && !settled.has(done.task.id))
    .sort(([a], [b]) => a - b)
    .map(([chunk, done]) => ({ chunk, id: done.task.id, items: done.items }));
}

/**
 * Each taken task read, with its chunk, in chunk order, read ahead as `show --job` reads; one the service no longer
 * has is left out (the `--job` commands name it). Any other failure is thrown at its turn, after the tasks before it.
 */
export async function* readTaken(
  api: ApiClient,
  taken: readonly TakenTask[],
): AsyncGenerator<{ chunk: number; task: Task }> {
  const read = async ({ id }: TakenTask): Promise<Task | undefined> => {
    try {
      return await api.getTask(id);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };
  const sizes = {
    items: (task: TakenTask) => task.items,
    bytes: (task: Task | undefined) => (task ? answerBytes(task) : 0),
  };
  for await (const { unit, answer } of readAhead(taken, read, sizes, SHOW_READ_AHEAD, rateBudgetAllows(api)))
    if (answer) yield { chunk: unit.chunk, task: answer };
}
