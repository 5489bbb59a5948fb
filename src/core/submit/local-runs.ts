/**
 * The local ledger (store/ledger.ts) as a create uses it: an entry written before each POST, settled with its task,
 * kept as "unknown" after an exit 9, dropped when nothing can have been created; and, for reconciliation, the other
 * runs of this machine (`LocalRuns`): whose tasks are taken, and who may still have made a candidate.
 * A ledger that cannot be written (a read-only cache directory, a lock held for seconds) is warned about once; the
 * create then goes on under the cross-machine rule alone.
 */
import type { Task } from '../../api/schemas.js';
import type { Output, Runtime, Store } from '../capabilities.js';
import type { Env } from '../../lib/env.js';
import { entryOwner, ownerGone, whereWords } from '../../store/process-owner.js';
import { jobStore, looksLikeJobId } from '../job/registry.js';
import { accountsOf, readAliases } from '../../store/account-aliases.js';
import { stateDirectory } from '../../store/state-dir.js';
import { cacheDirectory } from '../../store/cache-dir.js';
import type { LocalRuns } from '../reconcile.js';
import { inWindow, type ServerClock } from '../server-time.js';
import type { CreateLedger, Intent, LedgerEntry, LedgerJob } from '../../store/ledger.js';
import { resumeName, type HandedRecord } from './hand-over.js';
import { shellWord } from '../../lib/shell-word.js';
import { systemErrorWords } from '../../errors.js';

/** What the ledger's user needs of a run: where the cache is, its account, the clock, and a printer to warn on. */
type LedgerUser = Pick<Output, 'printer'> & Pick<Runtime, 'clock' | 'env'> & Pick<Store, 'cache'>;

/** How often a run waiting for another run's request of the same items reads the ledger again. */
const SENDING_POLL_MS = 250;
/** How often the list is walked while a stopped run's request may still land (as a lost answer's list is read). */
const IN_DOUBT_LOOK_MS = 5_000;

export class LocalCreates {
  private warned = false;
  /** This run's reservation of the items it is about to look up and send (`reserve`), until its POST or `release`. */
  private reserved: LedgerEntry | undefined;
  /**
   * The stopped jobs' chunks of these items this run covers (`handed`: in their journals, hand-over.ts): told of,
   * and given the task, once this run has it.
   */
  private waitedFor: Array<{ job: LedgerJob; handed: boolean; whole: boolean }> = [];
  /** The hand-over records this run wrote into stopped jobs' journals, in order (`withdraw` takes them back). */
  private wrote: Array<{ job: LedgerJob; to: LedgerJob; record: HandedRecord }> = [];
  /** A POST of this run left (its entry written first: `begin`): what it handed over stands from then on. */
  private posted = false;
  /** This run's own job and chunk, when it is one (`reserve`): what a stopped job's chunk is handed to. */
  private own: LedgerJob | undefined;
  /** hand-over.ts, loaded by the first `reserve` (only a create that may reuse hands a chunk over). */
  private handing: typeof import('./hand-over.js') | undefined;
  /** The earliest send of a stopped run's request for these items, unsettled when this run reserved (`stoppedSince`). */
  private stoppedSentAt: number | undefined;
  /** The settled entries of this run's job, read once (`settledChunk`). */
  private jobEntries: LedgerEntry[] | undefined;

  private constructor(
    private readonly ctx: LedgerUser,
    private readonly ledger: CreateLedger | undefined,
    private readonly account: string | undefined,
    private readonly liveForMs: number,
    private readonly landsWithinMs: number,
  ) {}

  /**
   * `liveForMs`: how long an entry of a run that dies mid-request still counts (request timeout and reconciliation);
   * `landsWithinMs`: how long past its send a request may still make its task (its timeout and the landing margin).
   */
  static async open(ctx: LedgerUser, liveForMs: number, landsWithinMs: number): Promise<LocalCreates> {
    const { CreateLedger } = await import('../../store/ledger.js');
    // Entries of a key proved to be this account (a rotated key) are this account's: their claims and creates count.
    const aliases = readAliases(stateDirectory(ctx.env));
    // Each account's group is found once (this run's, and an older key's of an entry taken over at resume).
    const groups = new Map<string, ReadonlySet<string>>();
    const group = (account: string) => {
      let found = groups.get(account);
      if (found === undefined) groups.set(account, (found = accountsOf(aliases, account)));
      return found;
    };
    const ledger = new CreateLedger(cacheDirectory(ctx.env), () => ctx.clock.now(), undefined, group);
    return new LocalCreates(ctx, ledger, ctx.cache.account, liveForMs, landsWithinMs);
  }

  /**
   * No ledger: for a run that sends nothing (a job whose every chunk has a task), which then never meets the cache
   * directory; every call is a no-op.
   */
  static none(ctx: LedgerUser): LocalCreates {
    return new LocalCreates(ctx, undefined, undefined, 0, 0);
  }

  /** Written before the POST leaves; undefined when the ledger cannot be used (warned once). */
  begin(service: string, items: readonly string[], job?: LedgerJob, sentAt?: number): LedgerEntry | undefined {
    if (!this.ledger || this.account === undefined) return undefined;
    this.posted = true;
    this.wrote = [];
    const intent = { ...this.intentOf(this.account, service, items), job, sentAt };
    const reserved = this.reserved;
    this.reserved = undefined;
    if (reserved?.service === service && reserved.count === items.length)
      return this.attempt(() => this.ledger?.restart(reserved.id, intent));
    return this.attempt(() => this.ledger?.begin(intent));
  }

  /**
   * `resume` of a journal: takes over the ledger entry of one of its chunks caught in flight (store/ledger.ts
   * `transfer`), so that its reconciliation (`runs(entry, ...)`) treats that chunk's request as its own while other
   * local runs still count it as a possible creator. Without a live entry (it expired, the cache directory differs, or
   * the run stopped before writing it) the chunk is entered again with its recorded send time.
   */
  takeOver(job: LedgerJob, service: string, items: readonly string[], sentAt: number): LedgerEntry | undefined {
    if (!this.ledger || this.account === undefined) return undefined;
    return this.attempt(() => this.ledger?.transfer(job, this.liveForMs)) ?? this.begin(service, items, job, sentAt);
  }

  /**
   * The entry of this machine's ledger that settled chunk `job.chunk` of job `job.journal` with a task, sent with these
   * items (undefined when none, or no ledger): that chunk was created by an earlier run of the job, though the journal
   * does not say so (one put back from an earlier copy, docs/behaviour.md#the-ledger). The ledger is read once a run.
   */
  settledChunk(job: LedgerJob, service: string, items: readonly string[]): LedgerEntry | undefined {
    const { ledger, account } = this;
    if (!ledger || account === undefined) return undefined;
    this.jobEntries ??= this.attempt(() => ledger.settledOfJob(job.journal, account)) ?? [];
    return this.jobEntries.find(
      (entry) =>
        entry.job?.journal === job.journal && entry.job.chunk === job.chunk && ledger.sent(entry, service, items),
    );
  }

  /**
   * Chunk `job`'s task, named by its settled entry (`settledChunk`), is this run's: the entry is taken over as a
   * resume takes a chunk's entry, so its claim stays the job's.
   */
  takeSettled(job: LedgerJob): void {
    if (this.ledger) this.attempt(() => this.ledger?.transfer(job));
  }

  /** Whether `entry`'s claim names `task` as the service shows it now (store/ledger.ts `holds`). */
  names(entry: LedgerEntry, task: Task): boolean {
    return this.ledger?.holds(entry, task) === true;
  }

  /**
   * A journaled chunk settled without a reconciliation of this run: by the user (`resume --adopt`: its entry, if live,
   * is this run's and names the task) or sent again (`--resend`, or proven not created: its entries go, so that they
   * never contest the new request's task).
   */
  settleJob(job: LedgerJob, taskId: number | null): void {
    if (!this.ledger) return;
    if (taskId === null) {
      this.attempt(() => this.ledger?.dropJob(job));
      return;
    }
    const entry = this.attempt(() => this.ledger?.transfer(job));
    this.settle(entry, taskId);
  }

  private settle(entry: LedgerEntry | undefined, taskId: number): void {
    if (entry) this.attempt(() => this.ledger?.settle(entry.id, taskId));
  }

  /**
   * Before a `--reuse-window` lookup (every `retry`): a live run of this machine whose request for the same items is
   * out, or about to be (reserved, its own lookup under way), may make the very task this one would reuse; so may the
   * request of a run that stopped or was killed with it out, until it could have landed (`landsUntil`). Waits, polling
   * the ledger, until none is (answered, settled, its run gone and its request past landing, or its entry expired),
   * saying once for whom;
   * then reserves the items for this run in the same locked step, so two runs started together never both send. The
   * lookup that follows finds the other run's task (docs/behaviour.md#the-ledger). The POST's `begin` takes the
   * reservation over; `release` drops one no POST took. Returns the task of the run waited for, when its request made
   * one: the same request as this run's, made while it waited, so it is this run's whatever its outcome. An abort is
   * thrown. While only a stopped run's request is waited for, `look` (the walk) runs every few seconds: true (it found
   * a task to reuse) ends the wait, with no reservation.
   */
  async reserve(
    service: string,
    items: readonly string[],
    signal: AbortSignal,
    look?: (sentAt: number) => Promise<boolean>,
    own?: LedgerJob,
  ): Promise<number | undefined> {
    const { ledger, account } = this;
    this.waitedFor = [];
    this.stoppedSentAt = undefined;
    this.own = own;
    if (!ledger || account === undefined) return undefined;
    this.handing ??= await import('./hand-over.js');
    const intent = this.intentOf(account, service, items);
    let waited: string | undefined;
    let held = false;
    for (;;) {
      const now = this.ctx.clock.now();
      // A job's chunk whose run is alive (its first run, or a `resume` settling it) is waited for in any state: that
      // run settles it, and this one reuses its task or, once it is gone, takes its items over.
      const busy = (other: LedgerEntry) =>
        ((other.state === 'sending' || jobOf(other) !== undefined) && runAlive(other, this.ctx.env, own)) ||
        this.landsUntil(other) > now;
      const result = this.attempt(() => ledger.reserve(intent, busy));
      if (result === undefined) return undefined;
      if ('entry' in result) {
        this.reserved = result.entry;
        const twin = waited === undefined ? undefined : this.attempt(() => ledger.read().find((e) => e.id === waited));
        if (twin?.state === 'created') {
          this.waitedFor = []; // settled with its task: that job has nothing left in doubt
          return twin.taskId;
        }
        if (this.handOver(result.entry) !== 'held') return undefined;
        // A run took the stopped job meanwhile (its `resume`): it settles the chunk; this one waits for it.
        this.release();
        if (!held) this.ctx.printer.notice(heldWords());
        held = true;
        await this.ctx.clock.sleep(SENDING_POLL_MS, signal);
        continue;
      }
      const other = result.busy;
      const stopped = !runAlive(other, this.ctx.env, own);
      const alive = !stopped && (other.state === 'sending' || jobOf(other) !== undefined);
      if (waited === undefined) {
        waited = other.id;
        this.ctx.printer.notice(alive ? sendingWords(other) : inDoubtWords(other, this.landsUntil(other), stopped));
      }
      // A stopped run's request: the walk looks for its task every few seconds, to the instant it could land.
      if (!alive && look !== undefined && (await look(other.sentAt))) {
        this.handOver(other); // its task is listed: the stopped jobs' chunks are given it, whoever holds them
        return undefined;
      }
      const pause = alive
        ? SENDING_POLL_MS
        : Math.max(SENDING_POLL_MS, Math.min(IN_DOUBT_LOOK_MS, this.landsUntil(other) - now));
      await this.ctx.clock.sleep(pause, signal);
    }
  }

  /**
   * Once reserved: every stopped job's chunk of these items still unsettled (its request can no longer land, or this
   * run would be waiting for it) is this run's to cover. When this run is a job's chunk (`own`), each is handed to it
   * in that job's journal (hand-over.ts) before the walk and the POST; `held` when a live run holds one of those jobs.
   * `same`: the account, service and items (any entry of them, this run's or a stopped one's).
   */
  private handOver(same: Pick<LedgerEntry, 'account' | 'service' | 'digest'>): 'held' | undefined {
    const { ledger, own, handing } = this;
    if (!ledger || !handing) return undefined;
    const now = this.ctx.clock.now();
    const stopped = (this.attempt(() => ledger.unsettled(same)) ?? []).filter(
      (other) => other.job?.journal !== own?.journal && !runAlive(other, this.ctx.env),
    );
    for (const other of stopped) this.stoppedSentAt = Math.min(this.stoppedSentAt ?? other.sentAt, other.sentAt);
    const stale = stopped.flatMap((other) => {
      const job = jobOf(other);
      return job === undefined ? [] : [{ job, landed: this.landsUntil(other) <= now }];
    });
    const seen = new Set<string>();
    this.waitedFor = [];
    for (const { job, landed } of stale) {
      const key = `${job.journal}:${job.chunk}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const result =
        own === undefined
          ? 'void'
          : handing.handOver(this.ctx.env, job, { job: own.journal, chunk: own.chunk }, (record) =>
              this.wrote.push({ job, to: own, record }),
            );
      if (result === 'held') {
        this.waitedFor = [];
        return 'held';
      }
      // Handed, and its request past landing: its entries no longer stand as a possible creator of this run's task
      // (the chunk is this run's now, and its resume follows this run's journal).
      const handed = result === 'handed' || result === 'whole';
      if (handed && landed) this.attempt(() => ledger.dropJob(job));
      this.waitedFor.push({ job, handed, whole: result === 'whole' });
    }
    return undefined;
  }

  /**
   * When the earliest request for these items of a run that has stopped, still unsettled, was sent (local epoch ms), as
   * found at the reservation: whether this run waited for it or came after it could land. The lookup reaches back to it
   * and reuses the task it made whatever its status: that run never said what it made, and paid for it; its job's
   * chunk, handed to this run, is given that task (a walk that passed it over would pay twice, and leave it no job's).
   */
  stoppedSince(): number | undefined {
    return this.stoppedSentAt;
  }

  /**
   * Until when the request of an entry not settled with a task may still make it: the instant its own run recorded
   * (its send plus its own timeout and the landing margin: a journaled chunk's "could land until"), or earlier when
   * its window closed (an answered failure, a reconciliation that ended). An entry of an earlier version, which
   * records no such instant, counts until it expires (its run's timeout and reconciliation), never this run's timeout.
   */
  private landsUntil(entry: LedgerEntry): number {
    if (entry.state === 'created') return 0;
    return Math.min(entry.closedAt ?? Number.POSITIVE_INFINITY, entry.landsUntil ?? entry.expiresAt);
  }

  /** What this run records of a request: its entry's life, and its own landing bound (`landsUntil`). */
  private intentOf(account: string, service: string, items: readonly string[]): Intent {
    return { account, service, items, liveForMs: this.liveForMs, landsWithinMs: this.landsWithinMs };
  }

  /** A reservation no POST took over (a task reused, the run stopped before sending): it goes. */
  release(): void {
    const reserved = this.reserved;
    this.reserved = undefined;
    this.drop(reserved);
  }

  /**
   * A create's answer named its task: the entry takes it in one locked step (store/ledger.ts `claim`). Undefined when
   * taken; else whose entry names it already: another request of this run (an entry it took over, or wrote) or
   * another run's. Without an entry, or a ledger, nothing refuses it.
   */
  settleOwn(entry: LedgerEntry | undefined, task: Task): 'this run' | 'another run' | undefined {
    const ledger = this.ledger;
    if (!entry || !ledger) return undefined;
    // Only a claim refuses a task the service answered with: an identical request still out cannot have made it.
    const claim = this.attempt(() => ledger.claim(entry, task, () => false));
    if (claim === undefined || claim.ok) {
      this.covered(task)(); // past its POST: nothing of this run is held back any more
      return undefined;
    }
    return claim.by.run === ledger.run ? 'this run' : 'another run';
  }

  /**
   * The stopped jobs' chunks handed to this run's chunk (hand-over.ts), as its own record names them (`covers` on its
   * `send`, or on the `created` of a task it reused): their `resume` may take this job's tasks, so its journal is kept
   * while they have not finished, in whatever state directory it is (jobs.ts `pruneJobs`). Read before `covered`.
   */
  handed(): Array<{ job: string; chunk: number }> {
    if (this.own === undefined) return [];
    return this.waitedFor.flatMap(({ job, handed }) => (handed ? [{ job: job.journal, chunk: job.chunk }] : []));
  }

  /**
   * This run has its task for the items of a stopped job's chunk in doubt: returns what records it, run when this run
   * records that task (at once past its first POST; a task reused before it is held until the balance is judged, and
   * dropped when the balance refuses the run: job-journal.ts `created`). A chunk handed to this run (hand-over.ts) is
   * given the task in its journal; one that could not be handed (this run is no job, or that journal cannot be
   * written) is named, as its own `resume` does not know this task (its window ended before it).
   */
  covered(task: { id: number; cost: number }): () => void {
    const covering = this.waitedFor;
    const own = this.own;
    const handing = this.handing;
    this.waitedFor = [];
    return () => {
      for (const { job, handed, whole } of covering) {
        if (handed && own !== undefined)
          handing?.coverDone(this.ctx.env, job, { job: own.journal, chunk: own.chunk }, task);
        const resume = whole || handed ? resumeWord(this.ctx.env, job.journal) : '';
        this.ctx.printer.notice(
          `job ${job.journal} stopped with these items in doubt (its chunk ${job.chunk}); this run's task ${task.id} covers them${whole ? `, and this run is that job again (the same items, the same chunks): it is superseded, and \`taskctl resume ${resume}\` continues this run` : handed ? `, and that job takes it (taskctl resume ${resume})` : ''}`,
        );
      }
    };
  }

  /**
   * The balance refused this run before its first POST: it keeps no job (or its job as it was), so what it handed over
   * is taken back from the stopped jobs' journals, latest first (hand-over.ts `handBack`), each left as it was. Once a
   * POST of this run left, nothing is taken back.
   */
  withdraw(): void {
    const { handing, wrote } = this;
    this.wrote = [];
    this.waitedFor = [];
    if (this.posted || !handing) return;
    for (const { job, to, record } of wrote.reverse())
      handing.handBack(this.ctx.env, job, { job: to.journal, chunk: to.chunk }, record);
  }

  unknown(entry: LedgerEntry | undefined, closedAt?: number): void {
    if (entry) this.attempt(() => this.ledger?.unknown(entry.id, closedAt));
  }

  drop(entry: LedgerEntry | undefined): void {
    if (entry) this.attempt(() => this.ledger?.drop(entry.id));
  }

  /**
   * The other local runs, for the reconciliation of `entry` (undefined without a ledger entry). `listedNew`: the tasks
   * the listing before this request proves new where the clock cannot place them (reconcile.ts `newBeyondDate`), and
   * when that listing began.
   */
  runs(
    entry: LedgerEntry | undefined,
    serverClock: ServerClock,
    listedNew?: { is: (task: Task) => boolean; at: number },
  ): LocalRuns | undefined {
    const ledger = this.ledger;
    if (!entry || !ledger) return undefined;
    // A possible creator: still sending (its window open), or unresolved (open, or closed after its answer at the
    // loose end: a Date clock behind the tasks' one must not hand that run's task to this one). A task this run takes
    // as new since its listing, stamped outside that run's window (a Date clock ahead of the tasks' one), is that run's
    // as well while its request was open when the listing began.
    const contests = (other: LedgerEntry, task: Task) =>
      other.state !== 'created' &&
      (inWindow(task.created_at, serverClock.looseWindow(other.sentAt, other.closedAt)) ||
        (listedNew !== undefined &&
          listedNew.is(task) &&
          (other.closedAt ?? Number.POSITIVE_INFINITY) >= listedNew.at));
    return {
      claimed: () => {
        const others = (this.attempt(() => ledger.others(entry)) ?? []).filter((other) => other.taskId !== undefined);
        // A claim of the same id with other recorded facts is stale (the service's ids restarted): not this task.
        return (task: Task) => others.some((other) => ledger.holds(other, task));
      },
      claim: (task) => {
        const result = this.attempt(() => ledger.claim(entry, task, (other) => contests(other, task)));
        // Without the ledger this run cannot see the others: the cross-machine rule alone decides, and says so.
        if (result === undefined) return { ok: true, unchecked: true };
        if (result.ok) return { ok: true };
        return { ok: false, reason: result.reason, by: describe(result.by, this.ctx.env) };
      },
    };
  }

  private attempt<T>(action: () => T): T | undefined {
    try {
      return action();
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.ctx.printer.warn(
          `the local ledger of creates cannot be used (${this.ledger?.problem(error) ?? systemErrorWords(error)}): other taskctl runs on this machine are told apart by the task list alone`,
        );
      }
      return undefined;
    }
  }
}

/** The job of an entry made for a journaled chunk (a job id: never a journal's path of an earlier version). */
function jobOf(entry: LedgerEntry): LedgerJob | undefined {
  return entry.job !== undefined && looksLikeJobId(entry.job.journal) ? entry.job : undefined;
}

function heldWords(): string {
  return 'a taskctl run is continuing the stopped job that sent the same items: waiting for it to settle them';
}

function sendingWords(entry: LedgerEntry): string {
  const job = jobOf(entry);
  if (entry.state !== 'sending' && job !== undefined)
    return `another taskctl run ${whereWords(entryOwner(entry))} (process ${entry.pid}) is settling the same items (job ${job.journal}, its chunk ${job.chunk}): waiting for it, to reuse its task`;
  return `another taskctl run ${whereWords(entryOwner(entry))} (process ${entry.pid}, since ${new Date(entry.sentAt).toISOString()}) is sending the same items: waiting for its answer, to reuse its task`;
}

/** A request with no answer (its run stopped, killed): waited for to its landing, then reused if it made a task. */
function inDoubtWords(entry: LedgerEntry, until: number, stopped: boolean): string {
  const id = entry.job?.journal;
  const job = id !== undefined && looksLikeJobId(id) ? `, job ${id}` : '';
  return (
    `a taskctl run ${whereWords(entryOwner(entry))}${stopped ? ' that has stopped' : ''} (process ${entry.pid}${job}) sent the same items at ` +
    `${new Date(entry.sentAt).toISOString()}; its request could land until ${new Date(until).toISOString()}: ` +
    'waiting until then, to reuse its task instead of paying again'
  );
}

/**
 * A stopped job as a `taskctl resume` printed here names it: by its id when this state directory knows it, else by its
 * journal where it was last run (hand-over.ts `resumeName`: `resume ID` resolves only this state directory's jobs).
 */
const resumeWord = (env: Env, id: string): string => shellWord(resumeName(jobStore(env), id));

/**
 * Who else may have made the task. A run that has stopped is never called "still sending": a job's run is alive
 * while it holds its job's lock (a pid may be reused), another run while its process runs; a run whose process cannot
 * be looked at from here (another host, machine or container) is alive (docs/behaviour.md#the-ledger).
 */
function describe(entry: LedgerEntry, env: Env): string {
  const sent = `sent ${new Date(entry.sentAt).toISOString()}`;
  const where = whereWords(entryOwner(entry));
  const id = entry.job?.journal;
  if (!runAlive(entry, env)) {
    const job = id !== undefined && looksLikeJobId(id) ? ` (taskctl resume ${resumeWord(env, id)} settles it)` : '';
    return `a taskctl run ${where} that has stopped (process ${entry.pid}, ${sent}) may have created it${job}`;
  }
  const state = entry.state === 'sending' ? 'still sending' : 'could not tell whether its request created a task';
  return `another taskctl run ${where} (process ${entry.pid}, ${sent}) ${state}`;
}

/**
 * Whether the run of `entry` may still be going, judged as a lock's owner is (store/process-owner.ts): where its
 * process can be looked at, by its job's lock (a journaled chunk) or its pid; elsewhere, alive. An entry of `own`, the
 * job this run is a run of, is an earlier run's: this run holds that job's lock, so that run has stopped (its lock is
 * no sign of it: a resume of a journal put back from a copy met its own).
 */
function runAlive(entry: LedgerEntry, env: Env, own?: LedgerJob): boolean {
  const id = entry.job?.journal;
  if (id !== undefined && id === own?.journal) return false;
  const runsHere = id !== undefined && looksLikeJobId(id) ? () => jobStore(env).runner(id) !== undefined : undefined;
  return !ownerGone(entryOwner(entry), runsHere);
}
