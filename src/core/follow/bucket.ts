/**
 * A token bucket that paces a follow's requests below the API's rate (api-spec 8: 100 requests a minute per key), so
 * that per-task schedules, however many tasks come due, never add up to a 429. Short bursts are allowed: a new task's
 * quick first polls and a round of ⌈N/100⌉+1 requests go out at once.
 */

/** Sustained requests a minute: the spec's 100, less a margin for other commands on the same key. */
export const SUSTAINED_PER_MINUTE = 80;
/** Requests that may go out back to back: one round's worth for up to 300 tasks (⌈300/100⌉+1), so rounds stay apart. */
export const BURST = 4;

export class RequestBucket {
  private tokens = BURST;

  constructor(
    private at: number,
    private readonly perMinute = SUSTAINED_PER_MINUTE,
    private readonly burst = BURST,
  ) {}

  private refill(now: number): void {
    if (now > this.at) this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.perMinute) / 60_000);
    this.at = Math.max(this.at, now);
  }

  /** Takes one request's token (the balance may go below zero: a round is never cut short midway). */
  spend(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  /**
   * When the next round may start: once `need` tokens are there (the last round's size, at most the burst), so rounds
   * of several requests come apart at the sustained rate instead of back to back.
   */
  readyAt(now: number, need = 1): number {
    this.refill(now);
    const want = Math.min(this.burst, Math.max(1, need));
    return this.tokens >= want ? now : now + ((want - this.tokens) * 60_000) / this.perMinute;
  }
}
