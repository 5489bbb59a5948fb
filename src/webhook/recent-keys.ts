/**
 * The events already handed on, so a delivery the service sends again (its redeliveries span about 18 minutes; a
 * replay from the dashboard comes any time) is handled once. Bounded twice: entries older than `windowMs` are
 * forgotten, and at most `capacity` are kept. A key younger than `minimumMs` is never dropped to make room: when every kept key is that young,
 * `add` reports `full` and the listener answers 503 (the service sends it again later) instead of forgetting too soon.
 */
export const DEDUPE_WINDOW_MS = 60 * 60_000;
/** The service's redeliveries (5 s + 30 s + 2 min + 5 min + 10 min) end within 18 minutes: remember at least 30. */
export const DEDUPE_MINIMUM_MS = 30 * 60_000;
/** About 100 bytes a key: 10 MB at most. */
const DEDUPE_CAPACITY = 100_000;

export class RecentKeys {
  /** Key → when it was added; a Map iterates in insertion order, so the first entry is the oldest. */
  private readonly keys = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly capacity = DEDUPE_CAPACITY,
    private readonly windowMs = DEDUPE_WINDOW_MS,
    private readonly minimumMs = DEDUPE_MINIMUM_MS,
  ) {}

  has(key: string): boolean {
    this.expire();
    return this.keys.has(key);
  }

  /** `added` the first time, `seen` for a repeat, `full` when it cannot be remembered without forgetting too soon. */
  add(key: string, at = this.now()): 'added' | 'seen' | 'full' {
    this.expire();
    if (this.keys.has(key)) return 'seen';
    if (this.keys.size >= this.capacity) {
      const oldest = this.keys.entries().next();
      if (oldest.done || this.now() - oldest.value[1] < this.minimumMs) return 'full';
      this.keys.delete(oldest.value[0]);
    }
    this.keys.set(key, at);
    return 'added';
  }

  /** True when a new key could not be remembered now without forgetting one younger than the minimum. */
  isFull(): boolean {
    this.expire();
    if (this.keys.size < this.capacity) return false;
    const oldest = this.keys.values().next();
    return oldest.done === true || this.now() - oldest.value < this.minimumMs;
  }

  /** Every key with the time it was added, oldest first (the spool saves them). */
  entries(): Array<[string, number]> {
    this.expire();
    return [...this.keys];
  }

  get size(): number {
    return this.keys.size;
  }

  private expire(): void {
    const horizon = this.now() - this.windowMs;
    for (const [key, at] of this.keys) {
      if (at >= horizon) break;
      this.keys.delete(key);
    }
  }
}
