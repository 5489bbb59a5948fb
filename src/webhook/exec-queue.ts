/**
 * The `--exec` queue: bounded in events and in bytes, run with a bounded concurrency (1 = one at a time, in arrival
 * order). A delivery reserves its place before it is acknowledged, so an event answered 200 always has a place to run,
 * and a full queue answers 503 (the service sends it again later) instead of dropping an acknowledged event.
 */
export interface ExecJob {
  /** `completed task 7`, for log lines and the list of events not run. */
  label: string;
  name: string | undefined;
  taskId: string | undefined;
  raw: string;
  /** A `webhook simulate` delivery: its command gets TASKCTL_SIMULATED=1. */
  simulated?: boolean | undefined;
  /** Set when the job is in the spool, so its completion can be recorded there. */
  spoolId?: number | undefined;
}

export interface ExecQueueOptions {
  /** Events waiting, running or reserved, at most. Default 100. */
  limit: number;
  /** Bytes of event bodies held, at most (bounds memory whatever the body sizes). */
  maxBytes: number;
  /** Commands running at once. Default 1. */
  concurrency: number;
  /** Runs one job; never rejects (runExec logs its failures). */
  run: (job: ExecJob, signal: AbortSignal) => Promise<void>;
  /** After a job ran (the spool marks it done). */
  onDone?: (job: ExecJob) => void;
}

export interface Reservation {
  /** Puts the job in the queue in the reserved place. */
  commit: (job: ExecJob) => void;
  /** Gives the place back (the delivery was not acknowledged). */
  release: () => void;
}

export class ExecQueue {
  private readonly waiting: ExecJob[] = [];
  private readonly running = new Set<ExecJob>();
  private reserved = 0;
  private bytes = 0;
  private readonly stop = new AbortController();
  private idleWaiters: Array<() => void> = [];
  /** Catch-up waiting for a place: woken each time one frees (a command ended, a reservation given back). */
  private roomWaiters: Array<() => void> = [];

  constructor(private readonly options: ExecQueueOptions) {}

  /** A place for a body of `bytes`, or undefined when the queue is full (answer 503). */
  reserve(bytes: number): Reservation | undefined {
    const held = this.waiting.length + this.running.size + this.reserved;
    if (held >= this.options.limit) return undefined;
    if (this.bytes + bytes > this.options.maxBytes && held > 0) return undefined;
    this.reserved++;
    this.bytes += bytes;
    let settled = false;
    return {
      commit: (job) => {
        if (settled) return;
        settled = true;
        this.reserved--;
        this.waiting.push(job);
        this.pump();
      },
      release: () => {
        if (settled) return;
        settled = true;
        this.reserved--;
        this.bytes -= bytes;
        this.wakeRoomWaiters();
        this.settle();
      },
    };
  }

  /**
   * A place taken only while fewer than `share` events are held, waiting for one to free meanwhile (catch-up's events
   * have no sender to send them again, and leave the rest of the queue to live deliveries); undefined once `signal`
   * aborts.
   */
  async reserveWhenRoom(bytes: number, share: number, signal: AbortSignal): Promise<Reservation | undefined> {
    const cap = Math.max(1, Math.min(share, this.options.limit));
    for (;;) {
      if (signal.aborted || this.stop.signal.aborted) return undefined;
      const held = this.waiting.length + this.running.size + this.reserved;
      if (held < cap) {
        const place = this.reserve(bytes);
        if (place) return place;
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.roomWaiters.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  /** Queues a job without a reservation or a limit (events from the spool, acknowledged in an earlier run). */
  push(job: ExecJob): void {
    this.bytes += Buffer.byteLength(job.raw);
    this.waiting.push(job);
    this.pump();
  }

  /** Events waiting or running. */
  get size(): number {
    return this.waiting.length + this.running.size;
  }

  /** Resolves when nothing waits, runs or is reserved. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops: waiting jobs are dropped and returned, running commands are killed and returned after them. */
  abandon(): ExecJob[] {
    const left = [...this.running, ...this.waiting.splice(0)];
    this.stop.abort();
    this.wakeRoomWaiters();
    return left;
  }

  private pump(): void {
    while (this.running.size < this.options.concurrency && this.waiting.length > 0 && !this.stop.signal.aborted) {
      const job = this.waiting.shift();
      if (!job) break;
      this.running.add(job);
      void this.options.run(job, this.stop.signal).finally(() => {
        this.running.delete(job);
        this.bytes -= Buffer.byteLength(job.raw);
        if (!this.stop.signal.aborted) this.options.onDone?.(job);
        this.pump();
        this.wakeRoomWaiters();
        this.settle();
      });
    }
  }

  private isIdle(): boolean {
    return this.reserved === 0 && this.running.size === 0 && (this.waiting.length === 0 || this.stop.signal.aborted);
  }

  private wakeRoomWaiters(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  private settle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
