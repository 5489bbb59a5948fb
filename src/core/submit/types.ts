/** The shapes the submission pipeline passes between its steps (index.ts runs them in order). */
import type { Task } from '../../api/schemas.js';
import type { ItemList, NormalisedItems } from '../items/index.js';
import type { WaitOptions } from '../follow/wait.js';

/** One service's items to send (a create has one; a retry has one per service): in memory, or streamed. */
export interface Batch {
  service: string;
  items: readonly string[] | ItemList;
}

/** One task's worth of items. */
export interface Chunk {
  service: string;
  items: string[];
}

/** The options the shared pipeline reads (create's and retry's common flags). */
export interface SubmitOptions extends Partial<WaitOptions> {
  dryRun?: boolean;
  /** Refuse (exit 6, nothing sent) when the estimate is above this many coins. */
  maxCost?: number;
  yes?: boolean;
  /** Split into tasks of at most this many items, created in order. */
  chunkSize?: number;
  /** Reuse a task created within this many ms with the same service and items, instead of paying again. */
  reuseWindow?: number | undefined;
  /** Continue like `taskctl wait` on the new task(s). */
  wait?: boolean;
}

export interface SubmitContext {
  /** The prompt's first word: `Create`, `Retry`. */
  verb: string;
  /** What validation changed (create only): reported by --dry-run. */
  normalised?: NormalisedItems;
}

export interface PricedBatch {
  service: string;
  list: ItemList;
  /** Items per task. */
  size: number;
  /** Tasks it makes. */
  tasks: number;
  price: number;
  estimate: number;
}

/** `items`: how many items this task was sent with (the chunk's size). */
export interface Outcome {
  task: Task;
  how: 'created' | 'recovered' | 'reused';
  items: number;
}
