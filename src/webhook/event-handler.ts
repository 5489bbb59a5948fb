/**
 * The one path every event takes, delivered or synthesised: the duplicate filter, the checks that answer 503, then
 * forward, print, spool and queue; an event is marked as seen (in the spool too), and counted acknowledged, only once
 * it is handed on.
 */
import { createHash } from 'node:crypto';
import { errorWords } from '../errors.js';
import type { Env } from '../output/io.js';
import { DEDUPE_WINDOW_MS, RecentKeys } from './recent-keys.js';
import { runExec } from './exec.js';
import { ExecQueue } from './exec-queue.js';
import type { ExecJob, Reservation } from './exec-queue.js';
import { forwardEvent } from './forward.js';
import { describeEvent, type EventMeta, type ReceivedEvent } from './received.js';
import { Spool, SpoolMovedError } from './spool.js';

/** Bytes of bodies the exec queue holds at most, whatever `--queue` says. */
const QUEUE_MAX_BYTES = 8 * 1024 * 1024;

/** What happened to one delivery: the HTTP status it got and why. */
export interface Outcome {
  status: number;
  note: string;
  /** `onEvent` printed it and said it is on the same screen as the log: no status line for it. */
  shown?: boolean;
  /** A repeat of an event already handled: acknowledged, not handed on again. */
  duplicate?: boolean;
}

export interface ListenerCounts {
  /** Events acknowledged and handed on (printed, forwarded, queued). */
  acknowledged: number;
  /** Repeats of acknowledged events (printed as duplicates). */
  duplicates: number;
  /** Deliveries refused with 502/503 (the service sends them again). */
  refused: number;
  /** Commands that finished. */
  executed: number;
}

/** The listener's options as the handler uses them, defaults applied (see WebhookListenerOptions). */
export interface EventHandlerSettings {
  apiKey: string;
  forwardTo: URL | undefined;
  forwardTimeoutMs: number | undefined;
  exec: string | undefined;
  execConcurrency: number;
  queue: number;
  dedupe: boolean;
  canPrint: () => boolean;
  onEvent: (received: ReceivedEvent, note: { duplicate: boolean }) => unknown;
  /** Resolves once what `onEvent` printed is written; rejects when it could not be (the event is then not acknowledged). */
  written: () => Promise<void>;
  /** Status lines, already redacted. */
  log: (line: string) => void;
  now: () => number;
  env: Env;
}

/** How catch-up waits for a place in the exec queue: within `share` places of it, until `signal` aborts. */
interface RoomWait {
  share: number;
  signal: AbortSignal;
}

/** One event being handed on: its body, what it says, its filter key and its place in the exec queue. */
interface Handing {
  raw: string;
  received: EventMeta;
  key: string;
  label: string;
  userAgent: string | undefined;
  place: Reservation | undefined;
}

export class EventHandler {
  readonly counts: ListenerCounts = { acknowledged: 0, duplicates: 0, refused: 0, executed: 0 };
  readonly queue: ExecQueue | undefined;
  spool: Spool | undefined;
  /** The last write to the spool failed (a full disk): said once until one succeeds again. */
  private spoolFailing = false;
  private readonly seen: RecentKeys;
  /** Deliveries being handled, by key: a repeat arriving meanwhile waits for the first one's outcome. */
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(private readonly settings: EventHandlerSettings) {
    this.seen = new RecentKeys(settings.now);
    const command = settings.exec;
    this.queue =
      command === undefined
        ? undefined
        : new ExecQueue({
            limit: settings.queue,
            maxBytes: QUEUE_MAX_BYTES,
            concurrency: settings.execConcurrency,
            run: (job, stop) => runExec(command, job, job.raw, settings.env, settings.log, stop),
            onDone: (job) => {
              this.counts.executed++;
              if (job.spoolId !== undefined) this.spool?.done(job.spoolId);
            },
          });
  }

  logError(error: unknown): void {
    this.settings.log(`error: ${errorWords(error)}`);
  }

  /** Opens the spool: its seen events join the filter, its commands not run to their end are queued first. */
  async openSpool(file: string): Promise<number> {
    const { now, log } = this.settings;
    const opened = await Spool.open(
      file,
      () => now() - DEDUPE_WINDOW_MS,
      () => this.seen.entries(),
      log,
    );
    this.spool = opened.spool;
    for (const [key, at] of opened.seen) this.seen.add(key, at);
    let replayed = 0;
    for (const job of opened.pending) {
      if (!this.queue) break;
      // Acknowledged before a stop or a crash and not run to its end: they run first, beyond the limit if need be.
      this.queue.push(job);
      replayed++;
    }
    if (replayed > 0) log(`spool: running the commands of ${replayed} acknowledged event(s) left from the last run`);
    return replayed;
  }

  /**
   * `wait` is catch-up's: instead of a 503 for a full queue, wait for a place within `share` of it (until `signal`
   * aborts: then `{ status: 0 }`, not handed on and not counted as refused).
   */
  async handle(raw: string, received: EventMeta, userAgent: string | undefined, wait?: RoomWait): Promise<Outcome> {
    const { dedupe, canPrint } = this.settings;
    const label = `${describeEvent(received.name, received.taskId)}${received.simulated === undefined ? '' : ' (simulated)'}`;
    const key = dedupeKey(raw, received);
    if (dedupe) {
      const earlier = this.inFlight.get(key);
      // The same event is being handled right now (a replay racing the service's next attempt): its outcome decides.
      if (earlier && (await earlier.catch(() => false))) return this.duplicate(raw, received, label);
      if (this.seen.has(key)) return this.duplicate(raw, received, label);
    }
    if (!canPrint())
      return this.refuse(503, 'output is not being read (stdout is full); the service will send it again');
    if (dedupe && this.seen.isFull())
      return this.refuse(503, 'the duplicate filter is full; the service will send it again');
    let place: Reservation | undefined;
    if (this.queue) {
      const bytes = Buffer.byteLength(raw);
      if (wait) {
        place = await this.queue.reserveWhenRoom(bytes, wait.share, wait.signal);
        if (!place) return { status: 0, note: `${label}: stopped before the queue had room` };
      } else place = this.queue.reserve(bytes);
      if (!place)
        return this.refuse(503, `the exec queue is full (${this.queue.size} events); the service will send it again`);
    }
    return this.settle({ raw, received, key, label, userAgent, place });
  }

  /** Hands the event on, keeping it in flight meanwhile, and turns how that went into the delivery's answer. */
  private async settle(handing: Handing): Promise<Outcome> {
    const { key, label, received } = handing;
    const shown = { value: false };
    const attempt = this.handOn(handing, shown);
    if (this.settings.dedupe) this.inFlight.set(key, attempt);
    let ok: boolean;
    try {
      ok = await attempt;
    } catch (error) {
      if (error instanceof SpoolWriteFailure) {
        // Once a spell, not once per delivery: the file, why, and what to do; each delivery's own line says 500.
        if (!this.spoolFailing)
          this.settings.log(
            `error: ${error.message}; answering 500 so the service delivers the events again. ${error.advice}; until then each delivery of an event is printed again.`,
          );
        this.spoolFailing = true;
        this.counts.refused++;
        return { status: 500, note: `${label}: not handled (${error.message})` };
      }
      this.logError(error);
      this.counts.refused++;
      return { status: 500, note: `${label}: not handled (${errorWords(error)})` };
    } finally {
      if (this.inFlight.get(key) === attempt) this.inFlight.delete(key);
    }
    if (!ok) return this.refuse(502, `${label}: the app did not accept it; the service will send it again`);
    this.counts.acknowledged++;
    // A synthesised event leaves out what the API did not say: that is by design, not worth a warning.
    if (received.problem !== undefined && !received.synthesised)
      this.settings.log(
        `warning: ${label} is not the documented event shape (${received.problem}); passed on as received`,
      );
    return { status: 200, note: `${label}${received.synthesised ? ' (synthesised)' : ''}`, shown: shown.value };
  }

  /** Forwarded (when asked), printed, then spooled, marked seen and queued: false when the app did not accept it. */
  private async handOn(handing: Handing, shown: { value: boolean }): Promise<boolean> {
    const { raw, received, key, label, userAgent } = handing;
    const { forwardTo, forwardTimeoutMs, apiKey, log, now } = this.settings;
    let { place } = handing;
    try {
      if (forwardTo) {
        const forwarded = await forwardEvent({
          to: forwardTo,
          label,
          raw,
          userAgent,
          simulated: received.simulated,
          apiKey,
          log,
          now,
          ...(forwardTimeoutMs === undefined ? {} : { timeoutMs: forwardTimeoutMs }),
        });
        if (!forwarded) return false;
      }
      const at = now();
      const job: ExecJob = { label, name: received.name, taskId: received.taskId, raw };
      if (received.simulated !== undefined) job.simulated = true;
      shown.value = this.print(raw, received, false);
      // Printed to a reader that went away is not printed: no 200 (the service delivers it again, to a next run).
      await this.settings.written();
      // Spooled (marked seen on disk) only once forwarded and printed, still before the 200: a failure or a kill
      // before it leaves no mark, so the redelivery is handed on again (at least once, never lost); a kill after it
      // makes the redelivery a duplicate, already handed on.
      if (this.spool) {
        const { spool } = this;
        try {
          if (place) job.spoolId = await spool.addJob(job, key, at);
          else await spool.addSeen(key, at);
        } catch (error) {
          throw new SpoolWriteFailure(spool.path, error);
        }
        if (this.spoolFailing) log(`spool: ${spool.path} is written again`);
        this.spoolFailing = false;
      }
      if (this.settings.dedupe) this.seen.add(key, at);
      place?.commit(job);
      place = undefined;
      return true;
    } finally {
      place?.release();
    }
  }

  /**
   * The event as printed. Its body is parsed again from `raw` only if the printer reads it (the JSON formats print
   * `raw` itself), so a big body is not held parsed during a forward, nor parsed twice for nothing.
   */
  private print(raw: string, meta: EventMeta, duplicate: boolean): boolean {
    let parsed: { value: unknown } | undefined;
    const received = Object.defineProperty({ ...meta, raw }, 'body', {
      enumerable: true,
      get: (): unknown => (parsed ??= { value: JSON.parse(raw) as unknown }).value,
    }) as ReceivedEvent;
    return this.settings.onEvent(received, { duplicate }) === true;
  }

  private duplicate(raw: string, received: EventMeta, label: string): Outcome {
    const shown = this.print(raw, received, true);
    this.counts.duplicates++;
    return { status: 200, note: `${label} (duplicate; already handled, not handed on again)`, shown, duplicate: true };
  }

  private refuse(status: number, note: string): Outcome {
    this.counts.refused++;
    return { status, note };
  }
}

/**
 * The duplicate filter's key: the (task, event) pair, or the body's hash when it names neither. A simulated delivery
 * adds its own id, so it is handed on even after the real event, and each simulate run once.
 */
function dedupeKey(raw: string, received: EventMeta): string {
  const { name, taskId, simulated } = received;
  const base =
    name !== undefined && taskId !== undefined
      ? `${taskId}:${name}`
      : `body:${createHash('sha256').update(raw).digest('hex')}`;
  return simulated === undefined ? base : `${base}:simulated:${simulated}`;
}

/** A write to the spool file failed: its message names the file and the reason in words; `advice`, what to do. */
class SpoolWriteFailure extends Error {
  readonly advice: string;
  constructor(file: string, cause: unknown) {
    // The file moved, removed or replaced under the listener says it in its own words.
    const moved = cause instanceof SpoolMovedError;
    super(moved ? cause.message : `cannot write the spool file ${file}: ${errorWords(cause)}`);
    this.advice = moved
      ? (cause.hint ?? '').replace(/\.$/, '')
      : 'Free space there (or restart listen with --spool in another directory)';
  }
}
