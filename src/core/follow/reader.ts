import type { RateLimiter } from '../../api/rate-limit.js';
import type { PageMeta, Task } from '../../api/schemas.js';
import { NotFoundError } from '../../errors.js';

/**
 * What the follow engine needs from the API. The real ApiClient satisfies it structurally; tests pass a fake that
 * simulates tasks changing over virtual time and counts requests.
 */
export interface TaskReader {
  /** GET /tasks: one page of tasks without items. */
  listTasks: (q: { page?: number; perPage?: number }) => Promise<{ tasks: Task[]; meta: PageMeta }>;
  /** GET /tasks/:id: one task with its items. Throws NotFoundError for an unknown id. */
  getTask: (id: number) => Promise<Task>;
  /** The client's limiter: polling asks it when the next round may go (the one pacer, api/rate-limit.ts). */
  readonly rateLimiter: Pick<RateLimiter, 'readyAt'>;
  /** The same reader whose requests fail at `deadline` (epoch ms) rather than wait out the request timeout. */
  withDeadline?: (deadline: number | undefined) => TaskReader;
}

/** `reader` whose reads of a task the service says does not exist are told to `missing` first (wait-loop.ts WaitOptions.missing, watch --job). */
export function onMissing(reader: TaskReader, missing: (id: number) => Promise<void> | void): TaskReader {
  const { withDeadline } = reader;
  return {
    listTasks: (query) => reader.listTasks(query),
    getTask: async (id) => {
      try {
        return await reader.getTask(id);
      } catch (error) {
        if (error instanceof NotFoundError) await missing(id);
        throw error;
      }
    },
    rateLimiter: reader.rateLimiter,
    ...(withDeadline && { withDeadline: (deadline) => onMissing(withDeadline.call(reader, deadline), missing) }),
  };
}
