/** Starts and cancels one timer; `SandboxOptions.scheduler` replaces Node's (a test sees what is pending). */
export interface TimerScheduler {
  set: (fn: () => void, ms: number) => NodeJS.Timeout;
  clear: (timer: NodeJS.Timeout) => void;
}

const nodeScheduler: TimerScheduler = { set: (fn, ms) => setTimeout(fn, ms), clear: (timer) => clearTimeout(timer) };

/** Every timer the sandbox starts goes through here: unref'd (never keeps a process alive) and cleared on close. */
export class TimerSet {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly scheduler: TimerScheduler = nodeScheduler) {}

  set(fn: () => void, ms: number): NodeJS.Timeout | undefined {
    if (this.closed) return undefined;
    const timer = this.scheduler.set(
      () => {
        this.timers.delete(timer);
        fn();
      },
      Math.min(Math.max(0, ms), 2_147_483_647),
    );
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  clear(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    this.scheduler.clear(timer);
    this.timers.delete(timer);
  }

  /** Resolves after `ms`, or never once the sandbox closes (the waiting request's socket is closed anyway). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => void this.set(resolve, ms));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) this.scheduler.clear(timer);
    this.timers.clear();
  }
}
