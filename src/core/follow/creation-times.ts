/**
 * The instants of the `created_at` texts a watch read lately, each text parsed once: a watch with no ids reads page 1
 * every round, with the same times on it. At most `limit` texts are kept, more than one round reads (page 1 and a
 * catch-up's pages, 1,100 tasks); past it they are all forgotten and parsed again as they come: a cache, which decides
 * nothing (docs/behaviour.md#what-watch-keeps).
 */
import { parseTimestamp } from '../../lib/timestamp.js';

export class CreationTimes {
  private readonly known = new Map<string, number>();

  constructor(private readonly limit = 2000) {}

  /** `text` as an instant (`parseTimestamp`); undefined for a text that is none (never kept). */
  of(text: string): number | undefined {
    const known = this.known.get(text);
    if (known !== undefined) return known;
    const at = parseTimestamp(text);
    if (at === undefined) return undefined;
    if (this.known.size >= this.limit) this.known.clear();
    this.known.set(text, at);
    return at;
  }

  /** How many texts are kept now. */
  get size(): number {
    return this.known.size;
  }
}
