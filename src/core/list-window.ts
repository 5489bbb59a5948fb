/**
 * `list --since` / `--until`: tasks created within a window, and when a page walk may stop early. The
 * contract does not promise an order (docs/openapi.json: GET /tasks); the sandbox lists newest first. The walk stops only when the order seen so far was
 * newest first and a whole page is older than the window; otherwise every page is read and filtered (the page guard
 * bounds the walk).
 */
import { parseTimestamp } from '../lib/timestamp.js';

/** A window edge: a duration back from now (`1h`, `30m`, `2d` is not a unit: `48h`), or an ISO timestamp. */
export type TimeBound = (now: number) => number;

export class CreatedWindow {
  private last: number | undefined;
  private newestFirst = true;
  private dated = 0;

  /** Epoch ms, both inclusive; undefined = open. */
  constructor(
    readonly from: number | undefined,
    readonly to: number | undefined,
  ) {}

  get active(): boolean {
    return this.from !== undefined || this.to !== undefined;
  }

  /** A task whose creation time cannot be read is outside any window: it is never guessed in. */
  contains(task: { created_at: string }): boolean {
    if (!this.active) return true;
    const ms = parseTimestamp(task.created_at);
    return ms !== undefined && (this.from === undefined || ms >= this.from) && (this.to === undefined || ms <= this.to);
  }

  /** Call with every page in order: true when the pages after it cannot hold a task created since `from`. */
  exhausted(tasks: ReadonlyArray<{ created_at: string }>): boolean {
    for (const task of tasks) {
      const ms = parseTimestamp(task.created_at);
      if (ms === undefined) this.newestFirst = false;
      else {
        if (this.last !== undefined && ms > this.last) this.newestFirst = false;
        this.last = ms;
        this.dated++;
      }
    }
    const from = this.from;
    if (from === undefined || !this.newestFirst || this.dated < 2 || tasks.length === 0) return false;
    return tasks.every((task) => (parseTimestamp(task.created_at) ?? from) < from);
  }
}
