/**
 * The journal as the pipeline's observer: each call appends its record and fsyncs it before returning (the pipeline
 * calls synchronously, at the instant of the step), and keeps the job's state and its chunks done in step.
 */
import { createHash } from 'node:crypto';
import type { Task } from '../../api/schemas.js';
import type { Env } from '../../lib/env.js';
import type { JournalFile } from '../../store/journal-file.js';
import { JournalWriteError } from '../../errors.js';
import { itemsDigest } from '../items/multiset.js';
import { crashPoint } from './crash-point.js';
import { chunkItems, holdsAnything, tookOver, type Cover, type JobState } from './journal-records.js';
import type { ChunkObserver, Dispatch, DoneChunk, How, PlannedChunk, Totals } from './types.js';
import { jobChunk } from '../job/job-chunks.js';
import { listingFresh } from '../server-time.js';
import type { OwnClaim } from './own-claims.js';

export class JobJournal implements ChunkObserver {
  /** Chunks with a task, as the pipeline counts them. */
  readonly done = new Map<number, DoneChunk>();
  /** Chunks in flight when the journal was opened: only a scan (or the user) settles them. */
  private readonly inherited = new Set<number>();
  /** Chunks of `done` whose task the service no longer has (journal-records.ts `lost`). */
  private readonly lostSet = new Set<number>();
  /** `--ignore-job` choices of this run, recorded once it goes on past the money guard (`goingOn`). */
  private readonly ignoring: string[] = [];
  /** Other choices of this run recorded then (`whenGoingOn`): its flag, and what records it. */
  private readonly pending: Array<{ flag: string; record: () => void }> = [];
  /**
   * Tasks this run's lookup reused before it went on past the money guard (the balance is judged before the first
   * POST, after a chunk whose task was reused): recorded then, or left out when the guard refuses the run (`ended`).
   */
  private readonly held: Array<() => void> = [];
  /**
   * The chunks in doubt this run settled by the user's word (`--adopt`, `--resend`) before the money guard judged the
   * balance: recorded when the run goes on, or stops for another reason; left out when the balance refuses it, and
   * then carried by its hints (`dropped`), so the resume they name settles them the same way.
   */
  private readonly settled: Array<{ flag: string; record: () => void }> = [];
  /** The flags of the user's settlements the balance refused before they were recorded. */
  private readonly dropped: string[] = [];
  /** The run went on past the money guard: its choices are recorded, and what it reuses from now on at once. */
  private past = false;

  constructor(
    private readonly file: JournalFile,
    readonly state: JobState,
    /** The job's id: its chunks' ledger entries carry it (whichever path the journal was reached by). */
    readonly id: string,
    /** From a request's send to the instant it can no longer land (its deadline and a margin). */
    private readonly settleMs: number,
    private readonly env: Env,
  ) {
    for (const [chunk, current] of state.chunks) {
      if (current.task) this.done.set(chunk, this.doneChunk(chunk, current.task));
      else if (current.send) this.inherited.add(chunk);
      if (current.task && current.lost === true) this.lostSet.add(chunk);
    }
  }

  get path(): string {
    return this.file.path;
  }

  /** The chunks a run stopped while their request may have been in flight, in order. */
  inDoubt(): number[] {
    return [...this.inherited].sort((a, b) => a - b);
  }

  sending(chunk: PlannedChunk, dispatch: Dispatch): void {
    // Thrown before the request leaves: a run through the journal's new name would not meet this run's lock.
    this.file.refuseIfMoved(`chunk ${chunk.index}`);
    this.goingOn();
    const send = {
      type: 'send' as const,
      chunk: chunk.index,
      first: chunk.first,
      count: chunk.items.length,
      sha256: chunkDigest(chunk.items),
      items_digest: itemsDigest(chunk.items),
      sent_at: dispatch.sentAtMs,
      settle_after: dispatch.sentAtMs + this.settleMs,
      before: [...dispatch.before.ids],
      before_complete: dispatch.before.complete,
      ...(dispatch.serverOffsetLow !== undefined && { server_offset: Math.floor(dispatch.serverOffsetLow) }),
      ...shownRecord(dispatch),
      // The stopped jobs' chunks handed to it: this journal is kept while their jobs may take its tasks.
      ...(dispatch.handed !== undefined && dispatch.handed.length > 0 && { covers: [...dispatch.handed] }),
    };
    this.file.append(send);
    if (send.covers) tookOver(this.state, send.covers); // as the journal's fold has it (holdsAnything)
    // Sent again by the user's word: the next exit 9 of the chunk does not offer it again.
    const resent = this.state.chunks.get(chunk.index)?.resentByUser === true && { resentByUser: true as const };
    this.state.chunks.set(chunk.index, { send, ...resent });
    this.state.sent = true;
    crashPoint(this.env, 'sent', chunk.index);
  }

  created(
    chunk: PlannedChunk,
    task: Task,
    how: How,
    covers?: () => void,
    handed?: ReadonlyArray<{ job: string; chunk: number }>,
  ): void {
    const { index } = chunk;
    if (this.inherited.delete(index)) {
      const at = task.created_at;
      this.file.append({
        type: 'reconciled',
        chunk: index,
        task: task.id,
        cost: task.cost,
        by: 'scan',
        created_at: at,
      });
      this.setTask(index, { id: task.id, cost: task.cost, how, created_at: task.created_at });
      covers?.();
      return;
    }
    crashPoint(this.env, 'answered', index);
    const record = () => {
      this.file.append({
        type: 'created',
        chunk: index,
        task: task.id,
        cost: task.cost,
        how,
        created_at: task.created_at,
        ...(handed !== undefined && handed.length > 0 && { covers: [...handed] }),
      });
      this.setTask(index, { id: task.id, cost: task.cost, how, created_at: task.created_at });
      // Then the stopped jobs' chunks it covers are given it: this run's record, that their covers name, comes first.
      covers?.();
    };
    // A task reused before the guard judged the balance: the run may yet be refused there, leaving the job as it was
    // (and the stopped jobs whose chunks it covers: they are not given a task of a job that is not kept).
    if (how === 'reused' && !this.past) this.held.push(record);
    else {
      this.goingOn();
      record();
    }
  }

  unknown(chunk: PlannedChunk, ids: readonly number[], why: string): void {
    this.file.append({ type: 'unknown', chunk: chunk.index, candidates: [...ids], reason: why });
    // No reader in this run (exit 9 follows; `resume` reads `named` from the records): the state stays what `rebuild`
    // would make of the records.
    const known = this.state.chunks.get(chunk.index);
    if (known) known.named = [...(known.named ?? []), ...ids];
  }

  anyRecorded(): boolean {
    return holdsAnything(this.state);
  }

  /** Only a chunk with a send on record has something to settle; the others were never sent. */
  notCreated(chunk: PlannedChunk, why = '', refused = false): void {
    const { index } = chunk;
    if (!this.state.chunks.get(index)?.send) return;
    const by = this.inherited.delete(index) ? 'scan' : 'answer';
    this.file.append({ type: 'reconciled', chunk: index, task: null, cost: 0, by, ...(refused && { refused: why }) });
    this.state.chunks.set(index, refused ? { refused: why } : {});
  }

  /** The chunks whose items the service refused, in order, with its words (journal-records.ts `refused`). */
  refused(): Array<{ chunk: number; reason: string }> {
    return [...this.state.chunks.entries()]
      .flatMap(([chunk, known]) => (known.refused === undefined ? [] : [{ chunk, reason: known.refused }]))
      .sort((a, b) => a.chunk - b.chunk);
  }

  finished(totals: Totals): void {
    this.ended(false);
    if (this.state.done) return;
    this.file.append(this.doneRecord(totals));
    this.state.done = true;
    this.state.totals = totals;
  }

  /** The `done` record: with the count of chunks lost, so that a glance at the last line knows it (`taskctl jobs`). */
  private doneRecord(totals: Totals): Record<string, unknown> {
    return { type: 'done', ...totals, ...(this.lostSet.size > 0 && { lost: this.lostSet.size }), lost_counted: true };
  }

  /**
   * Appends `records`; in a finished journal followed by its `done` again, in one write (whole or not at all), so that
   * its last line still says it is finished and how many chunks are lost (what `jobs` and TAB completion glance at).
   */
  private appendKeepingDone(...records: Array<Record<string, unknown>>): void {
    const { totals } = this.state;
    if (this.state.done && totals) this.file.append(...records, this.doneRecord(totals));
    else this.file.append(...records);
  }

  /**
   * Chunk `chunk`'s task is no longer on the service (`seen` is under its id now): recorded once, and in a finished
   * journal followed by its `done` again, so that its last line still says it is finished (what `jobs` glances at). A
   * record that cannot be written (a full disk) is not this run's failure: the finding holds for this run, and the next
   * run that meets the id finds it again.
   */
  lost(chunk: number, seen: { id: number; created_at: string }): void {
    this.lostAll([{ chunk, seen }]);
  }

  /** Chunks found lost together (`resume --wait` reads every earlier chunk's task): their records in one write. */
  lostAll(found: ReadonlyArray<{ chunk: number; seen: { id: number; created_at?: string } }>): void {
    const records: Array<Record<string, unknown>> = [];
    for (const { chunk, seen } of found) {
      const known = this.state.chunks.get(chunk);
      if (known?.task?.id !== seen.id || known.lost === true) continue;
      known.lost = true;
      this.lostSet.add(chunk);
      // No creation time: the service has no task under the id (not found).
      const { created_at } = seen;
      records.push({ type: 'lost', chunk, task: seen.id, ...(created_at !== undefined && { created_at }) });
    }
    if (records.length > 0) this.recordFinding(...records);
  }

  /**
   * Chunk `chunk`'s task `task`, recorded lost, is under its id again as recorded (the service has it back: a state
   * restored): the chunk counts as created again. Recorded once, as `lost` is; a record that cannot be written is not
   * this run's failure either.
   */
  found(chunk: number, task: number): void {
    const known = this.state.chunks.get(chunk);
    if (known?.task?.id !== task || known.lost !== true) return;
    delete known.lost;
    this.lostSet.delete(chunk);
    this.recordFinding({ type: 'found', chunk, task });
  }

  /**
   * `lost` or `found` records, all in one write (`appendKeepingDone`: a finished journal's last line stays its `done`);
   * a disk that cannot take them leaves the finding to the next run.
   */
  private recordFinding(...records: Array<Record<string, unknown>>): void {
    try {
      this.appendKeepingDone(...records);
    } catch (error) {
      if (!(error instanceof JournalWriteError)) throw error;
    }
  }

  lostChunks(): number[] {
    return [...this.lostSet].sort((a, b) => a - b);
  }

  /** `resume --adopt CHUNK=ID`. */
  adopted(chunk: number, task: { id: number; cost: number; created_at: string }): void {
    this.inherited.delete(chunk);
    const { id, cost, created_at } = task;
    // A finished job's chunk adopted again (its task not its own): its journal's last line stays its `done`.
    this.byUser(` --adopt ${chunk}=${id}`, () =>
      this.appendKeepingDone({ type: 'reconciled', chunk, task: id, cost, by: 'user', created_at }),
    );
    this.setTask(chunk, { id, cost, how: 'created', created_at });
  }

  /**
   * `resume --adopt CHUNK=ID` of a task chunk `holder` names too, by a claim nothing could check (own-claims.ts
   * `unchecked`): the user's word that it is this chunk's, the service having given its id out again. Chunk `holder`'s
   * task is then lost (journal-records.ts `lost`): not counted as created, never sent again.
   */
  adoptedOver(chunk: number, holder: number, task: { id: number; cost: number; created_at: string }): void {
    const known = this.state.chunks.get(holder);
    if (known?.task?.id === task.id && known.lost !== true) {
      known.lost = true;
      this.lostSet.add(holder);
      this.byUser('', () =>
        this.file.append({ type: 'lost', chunk: holder, task: task.id, created_at: task.created_at }),
      );
    }
    this.adopted(chunk, task);
  }

  /** A settlement by the user's word: recorded at once past the money guard, else held until the run goes on. */
  private byUser(flag: string, record: () => void): void {
    if (this.past) record();
    else this.settled.push({ flag, record });
  }

  /** A chunk in doubt taken over by another job's chunk (hand-over.ts), whose task covers its items. */
  covered(chunk: number, task: { id: number; cost: number }, cover: Cover): void {
    this.inherited.delete(chunk);
    this.file.append({ type: 'reconciled', chunk, task: task.id, cost: task.cost, by: 'scan', covered_by: cover });
    this.setTask(chunk, { ...task, how: 'reused' });
  }

  /**
   * `resume --ignore-job JOB`: that job is not waited for, by this run and, once the run goes on past the money guard
   * (its first send, or its end after a task its lookup reused), every later one. A run declined or refused at the
   * guard records nothing: the user's "no" leaves the job as it was.
   */
  ignore(job: string): void {
    if (this.state.ignored?.includes(job) || this.ignoring.includes(job)) return;
    this.ignoring.push(job);
  }

  /** A choice of this run (`flag`) that `record` records once the run goes on past the money guard. */
  whenGoingOn(flag: string, record: () => void): void {
    this.pending.push({ flag, record });
  }

  /**
   * The flags of the choices not recorded yet (`whenGoingOn`), and of the settlements the balance refused (`ended`),
   * as a command carries them.
   */
  unrecorded(): string {
    return [...this.pending.map(({ flag }) => flag), ...this.dropped].join('');
  }

  /**
   * The run's sending ended (every chunk given a task, or stopped). Refused by the money guard (`refused`: the balance
   * before its first POST), it recorded nothing: the tasks its lookup reused are left out (a resume looks for them
   * again), as are its choices and the user's settlements, which its hints carry. Else the settlements are recorded,
   * and a run that reused a task went on: that task is recorded, its choices too.
   */
  ended(refused: boolean): void {
    if (refused) {
      if (this.past) return;
      this.held.splice(0);
      for (const { flag } of this.settled.splice(0)) this.dropped.push(flag);
      return;
    }
    // Stopped for another reason (or ended): the user's settlements stand, as they would have once made; the
    // choices are recorded only by a run that went on (a task reused, which the guard did not refuse).
    for (const { record } of this.settled.splice(0)) record();
    if (this.held.length > 0) this.goingOn();
  }

  /** The run goes on past the money guard (its first send, or its end): its choices are recorded, then its reuses. */
  private goingOn(): void {
    this.past = true;
    for (const { record } of this.settled.splice(0)) record();
    for (const job of this.ignoring.splice(0)) {
      this.file.append({ type: 'ignore', job });
      (this.state.ignored ??= []).push(job);
    }
    for (const { record } of this.pending.splice(0)) record();
    for (const record of this.held.splice(0)) record();
  }

  /** `resume --resend CHUNK`. */
  resent(chunk: number): void {
    this.inherited.delete(chunk);
    this.byUser(` --resend ${chunk}`, () =>
      this.file.append({ type: 'reconciled', chunk, task: null, cost: 0, by: 'user' }),
    );
    this.state.chunks.set(chunk, { resentByUser: true });
  }

  resentByUser(chunk: number): boolean {
    return this.state.chunks.get(chunk)?.resentByUser === true;
  }

  private setTask(chunk: number, task: { id: number; cost: number; how: How; created_at?: string }): void {
    this.state.chunks.set(chunk, { task });
    this.lostSet.delete(chunk);
    this.done.set(chunk, this.doneChunk(chunk, task));
  }

  private doneChunk(chunk: number, task: { id: number; cost: number; how: How; created_at?: string }): DoneChunk {
    const { job } = this.state;
    const facts = jobChunk(this.state, chunk);
    const claim: OwnClaim = {
      id: task.id,
      ...(task.created_at !== undefined && { created_at: task.created_at }),
      ...(facts.task === task.id && { chunk: { service: job.service, chunk: { ...facts, task: task.id } } }),
    };
    return { task: { id: task.id, cost: task.cost }, how: task.how, items: chunkItems(job, chunk), claim };
  }
}

/** The digest a send record keeps of its chunk's items (no items are journaled). */
export function chunkDigest(items: readonly string[]): string {
  return createHash('sha256').update(items.join('\n')).digest('hex');
}

/**
 * How far back the listing before the send showed every task, when it proves tasks new (reconcile.ts
 * `newSinceListing`, server-time.ts `listingFresh`): `shown_after` (null: a list of one page, every task) and
 * `shown_at`, so that a resume proves them new by the record's `before` alone.
 */
function shownRecord({ before, sentAtMs }: Dispatch): { shown_after?: number | null; shown_at?: number } {
  const { shown } = before;
  if (shown === undefined || !listingFresh(shown.at, sentAtMs)) return {};
  return { shown_after: Number.isFinite(shown.after) ? shown.after : null, shown_at: shown.at };
}
