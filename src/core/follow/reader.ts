import type { RateLimiter } from '../../api/rate-limit.js';
import type { PageMeta, Task } from '../../api/schemas.js';

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
