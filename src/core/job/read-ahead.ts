/**
 * A job's tasks read a few at a time and handed on in chunk order (docs/commands.md, jobs: `show --job`): the next
 * tasks are read while the current one is printed. Two bounds, both on the answers read and not yet done with (the one
 * being printed included): at most `tasks` of them, and at most `bytes` of answers, measured once each arrives and
 * estimated before (its chunk's item count times the most bytes an item took so far). The first task is read alone (no
 * size is known yet), and so is an answer larger than the whole budget. Every read goes through the one client, so the
 * rate limiter (api/rate-limit.ts) decides when each is sent: reading ahead never sends past the stated budget.
 */
import type { ApiClient } from '../../api/client.js';
import type { Task } from '../../api/schemas.js';

/** How far ahead `show --job` reads. */
export interface ReadAheadLimits {
  /** Answers in flight or held, the one being printed included (1: one at a time). */
  tasks: number;
  /** Their bytes (as measured by `answerBytes`). */
  bytes: number;
}

/**
 * `show --job`'s, and a create's or retry's reading the tasks of the job it took (submit/taken-tasks.ts). Four answers
 * of the 64 MiB body cap would be 256 MiB: a budget in bytes keeps large tasks to one at a time.
 */
export const SHOW_READ_AHEAD: ReadAheadLimits = { tasks: 4, bytes: 16 * 1024 * 1024 };

/**
 * About the bytes of a task's answer as JSON (strings by their length, other values by a few bytes each), from the
 * parsed value: one walk with an explicit stack, no text made.
 */
export function answerBytes(task: Task): number {
  let bytes = 256; // the task's own fields
  const stack: unknown[] = [task.items ?? []];
  for (let value = stack.pop(); value !== undefined || stack.length > 0; value = stack.pop()) {
    if (typeof value === 'string') bytes += value.length + 3;
    else if (Array.isArray(value)) {
      bytes += 2 + value.length;
      for (const inner of value as unknown[]) stack.push(inner);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      bytes += 2;
      for (const key in record) {
        bytes += key.length + 4;
        stack.push(record[key]);
      }
    } else bytes += 6;
  }
  return bytes;
}

/**
 * `readAhead`'s `budgetAllows` for reads through `api`: a stated budget with a request left for one more read beyond
 * those under way (none stated: the limiter invents none).
 */
export function rateBudgetAllows(api: Pick<ApiClient, 'rateLimiter'>): (reading: number) => boolean {
  return (reading) => {
    const budget = api.rateLimiter.snapshot();
    return budget === undefined || budget.remaining > reading;
  };
}

/** One read: its answer once it came, or its failure, kept until its turn; and the bytes it counts against the budget. */
interface Slot<T> {
  result: Promise<T>;
  /** Estimated while in flight, measured once read. */
  size: { bytes: number };
}

/**
 * Reads `read(unit)` for each unit in order, up to `limits` ahead, and yields the answers in the units' order whatever
 * order they arrive in. A failed read is thrown when its turn comes (the answers before it are yielded first); no read
 * starts after it. `items(unit)` is what an answer's size is estimated from before it arrives. A read beyond the one
 * whose turn it is starts only when `budgetAllows(reading)` (the rate limiter has a request left for it): a read ahead
 * never waits in the limiter where it could take the turn's own request.
 */
export async function* readAhead<U, T>(
  units: readonly U[],
  read: (unit: U) => Promise<T>,
  sizeOf: { items: (unit: U) => number; bytes: (answer: T) => number },
  limits: ReadAheadLimits,
  budgetAllows: (reading: number) => boolean = () => true,
): AsyncGenerator<{ unit: U; answer: T }> {
  const slots: Array<Slot<T>> = [];
  /** Units started so far (slots[i - done] is unit i). */
  let started = 0;
  let done = 0;
  let held = 0;
  /** The most bytes an item took in an answer so far; undefined until one was measured. */
  let perItem: number | undefined;
  let failed = false;
  let stopped = false;
  /** Reads sent and not yet answered. */
  let reading = 0;
  const estimate = (unit: U) => (perItem === undefined ? Number.POSITIVE_INFINITY : sizeOf.items(unit) * perItem);
  const fill = (): void => {
    while (!stopped && !failed && started < units.length && slots.length < limits.tasks) {
      const unit = units[started] as U;
      const bytes = estimate(unit);
      // Alone when nothing is held; else only within the byte budget (an unknown size waits for the first answer) and
      // while the rate budget has a request left for it beyond those being read.
      if (slots.length > 0 && (held + bytes > limits.bytes || !budgetAllows(reading))) return;
      start(unit, bytes === Number.POSITIVE_INFINITY ? limits.bytes : bytes);
    }
  };
  const start = (unit: U, guess: number): void => {
    const size = { bytes: guess };
    held += guess;
    started++;
    reading++;
    const result = new Promise<T>((resolve) => {
      resolve(read(unit));
    }).then(
      (answer) => {
        reading--;
        if (limits.tasks <= 1) return answer; // one at a time: nothing to budget, nothing to measure
        const measured = sizeOf.bytes(answer);
        const items = sizeOf.items(unit);
        if (items > 0) perItem = Math.max(perItem ?? 0, measured / items);
        held += measured - size.bytes;
        size.bytes = measured;
        fill();
        return answer;
      },
      (error: unknown) => {
        reading--;
        failed = true;
        throw error;
      },
    );
    // Its failure is thrown at its turn; until then (or when the reading stops before it) it is not unhandled.
    result.catch(() => undefined);
    slots.push({ result, size });
  };
  try {
    for (; done < units.length; done++) {
      fill();
      const slot = slots[0];
      if (slot === undefined) return;
      const answer = await slot.result;
      yield { unit: units[done] as U, answer };
      // The caller is done with it: its bytes are free for the next reads.
      slots.shift();
      held -= slot.size.bytes;
    }
  } finally {
    stopped = true;
  }
}
