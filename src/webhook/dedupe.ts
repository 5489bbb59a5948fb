/** Remembers the most recent `capacity` keys: the service retries deliveries, and each event should be handled once. */
export class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  /** True the first time `key` is seen (and remembers it); false for a repeat. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    // A Set iterates in insertion order, so the first key is the oldest.
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
    return true;
  }

  get size(): number {
    return this.keys.size;
  }
}
