/** Runs jobs one at a time in arrival order; a failing job is reported and the queue goes on. */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** @param limit jobs waiting beyond this are refused (push returns false), so a flood cannot pile up without bound. */
  constructor(
    private readonly onError: (error: unknown) => void,
    private readonly limit = Infinity,
  ) {}

  push(job: () => Promise<void> | void): boolean {
    if (this.waiting >= this.limit) return false;
    this.waiting++;
    this.tail = this.tail
      .then(job)
      .catch(this.onError)
      .finally(() => {
        this.waiting--;
      });
    return true;
  }

  /** Resolves when every job pushed so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
