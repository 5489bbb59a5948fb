/**
 * One task's creation, exactly once: the --reuse-window lookup or the snapshot before the POST, the ledger entry
 * (local-runs.ts), the POST, and after an ambiguous failure the reconciliation (core/reconcile.ts) that finds the task
 * or says it cannot know (exit 9). Once the POST may have landed, every failure is exit 9 (never 8: "try again" would
 * pay twice), and Ctrl-C is 130 saying the task may exist.
 */
import type { ApiClient, CreateTaskObserver } from '../../api/client.js';
import type { Output, Process, Prompts, Runtime, Service, Store } from '../capabilities.js';

/** What one create uses of the run: what it prints, its spinner, Ctrl-C, the clock. */
type Sender = Output & Prompts & Process & Pick<Runtime, 'clock'>;
import {
  AuthError,
  CliError,
  CreateUnknownError,
  InterruptedBeforeSendError,
  InterruptedError,
  NotFoundError,
  RateLimitError,
  RestoredChunkError,
  ReuseUnsearchedError,
} from '../../errors.js';
import { AUTH_HINT } from '../../api/api-errors.js';
import { formatDuration, parsePositiveDuration } from '../../lib/duration.js';
import { isoSeconds } from '../../output/times.js';
import { multisetWithin } from '../items/multiset.js';
import { DATE_CLOCK_SPREAD_MS, stampedBefore } from '../server-time.js';
import type { Claims, Snapshot, Unsearched } from '../reconcile.js';
import { withIds } from './own-claims.js';
import { POST_TIMEOUT_MS } from '../../api/constants.js';
import type { LedgerEntry, LedgerJob } from '../../store/ledger.js';
import type { Task } from '../../api/schemas.js';
import { LocalCreates } from './local-runs.js';
import { askLost } from './lost.js';
import type { Chunk, Dispatch, Outcome, SendState, SubmitOptions } from './types.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';

/** How long the last reconciliation scan may take past the window's end. */
const RECONCILE_SCAN_GRACE_MS = 2_000;
/** Time allowed for the task listing taken before each POST (both tries together). */
const SNAPSHOT_BUDGET_MS = 1000;

export function listHint(service: string): string {
  return `Check before re-running: taskctl list --service ${service} --per-page 100 (or re-run with --reuse-window 1h to reuse it).`;
}

/** Ctrl-C: the abort becomes a message saying what may exist; other errors pass through. */
function interrupted(ctx: Pick<Process, 'signal'>, error: unknown, message: string, hint: string): unknown {
  return ctx.signal.aborted && !(error instanceof CliError) ? new InterruptedError(message, hint) : error;
}

/** What one chunk's create reports as it goes (the pipeline passes them on to its observer). */
interface SendHooks {
  /** The journal job of this chunk, when journaled (`resume` takes its ledger entry over). */
  job?: LedgerJob | undefined;
  /** The request is being written to the socket (after every wait): once per attempt. */
  dispatched?: ((dispatch: Dispatch) => void) | undefined;
  /** An attempt the server answered without processing it (a 429): nothing was created by it. */
  notProcessed?: ((why: string) => void) | undefined;
}

/**
 * Past a request's deadline, how long its task may still appear (the server's clock, the last bytes on the wire): the
 * no-journal hint's "look again after" and a journaled chunk's `settle_after` alike.
 */
export const LANDING_MARGIN_MS = 2_000;

/** How long past its send an entry of a run that died still counts, beyond its request and reconciliation. */
const LEDGER_GRACE_MS = 10_000;

/** The POST's deadline: `--request-timeout`, else the client's POST timeout. */
export async function postTimeoutMs(ctx: Pick<Service, 'apiSettings'>): Promise<number> {
  const settings = await ctx.apiSettings();
  return settings.requestTimeout
    ? parsePositiveDuration(settings.requestTimeout.value, 'request-timeout')
    : POST_TIMEOUT_MS;
}

/**
 * Shared by the creates of one run (chunks, a journal's chunks): the server's clock as learnt, and the ledger (none
 * for a run that sends nothing: `ledger` false).
 */
export async function sendState(
  ctx: Pick<Output, 'printer'> & Pick<Runtime, 'clock' | 'env'> & Pick<Store, 'cache'> & Pick<Service, 'apiSettings'>,
  api: ApiClient,
  ledger = true,
): Promise<SendState> {
  const [{ serverClockOf, longestReconcileMs, ReuseIndex }, timeout] = await Promise.all([
    import('../reconcile.js'),
    postTimeoutMs(ctx),
  ]);
  // An entry of a run that dies mid-request counts until its request and reconciliation could have ended, plus a grace.
  const local = ledger
    ? await LocalCreates.open(ctx, longestReconcileMs(timeout) + LEDGER_GRACE_MS, timeout + LANDING_MARGIN_MS)
    : LocalCreates.none(ctx);
  return {
    serverClock: serverClockOf(api),
    local,
    landsWithinMs: timeout + LANDING_MARGIN_MS,
    reuse: new ReuseIndex(),
  };
}

function aborted(ctx: Pick<Process, 'signal'>): boolean {
  return ctx.signal.aborted;
}

/** `taskctl show 41 42` when there are candidates, else the list to check. */
function inspectHint(service: string, ids: readonly number[]): string {
  return ids.length > 0
    ? `Inspect them before re-running: taskctl show ${ids.join(' ')} (or re-run with --reuse-window 1h to reuse one).`
    : listHint(service);
}

export async function createOne(
  ctx: Sender,
  api: ApiClient,
  chunk: Chunk,
  options: SubmitOptions,
  exclude: Claims,
  what: string,
  state: SendState,
  hooks: SendHooks = {},
): Promise<Outcome> {
  // The balance is read beside the snapshot (no wait of its own) and judged before the POST.
  const guard = state.guard?.();
  guard?.catch(() => undefined); // judged below; a snapshot that fails first must not leave it unhandled
  try {
    const before = await lookBefore(ctx, api, chunk, options, { exclude, what, job: hooks.job }, state);
    if ('task' in before) return before;
    await guard;
    return await post(ctx, api, chunk, { exclude, what, state, hooks, before });
  } finally {
    state.local.release(); // a --reuse-window reservation the POST did not take over
  }
}

/** The --reuse-window lookup (a reusable task ends it), or the snapshot of what exists before the POST. */
async function lookBefore(
  ctx: Sender,
  api: ApiClient,
  { service, items }: Chunk,
  options: SubmitOptions,
  { exclude, what, job }: { exclude: Claims; what: string; job: LedgerJob | undefined },
  { serverClock, local, reuse: index }: SendState,
): Promise<Snapshot | Outcome> {
  const reconcile = await import('../reconcile.js');
  try {
    const known =
      job === undefined ? undefined : await settledEarlier(ctx, api, { service, items }, job, local, exclude, what);
    if (known !== undefined) return known;
    const restored = options.restoredUpTo;
    if (job !== undefined && restored !== undefined && job.chunk <= restored.chunk)
      throw new RestoredChunkError(
        `${what} may have been created by an earlier run of job ${job.journal}: its journal was put back from an earlier copy, and this machine's ledger no longer names that chunk's task; nothing was sent for it`,
        restored.hint,
      );
    if (options.reuseWindow !== undefined) {
      const window = options.reuseWindow;
      // While (and right after) a stopped run's request is waited for, the walk reaches back to its send, loosened as
      // a window's start is, whatever the window: its task is stamped then, and the wait may outlast the window.
      let since = Number.POSITIVE_INFINITY;
      // A run let past a gone journal: the job's start, reached back to by every chunk's lookup (types.ts goneFrom).
      const goneFrom = options.goneFrom ?? Number.POSITIVE_INFINITY;
      // A lookup of many candidates says what it does, and the way to skip it, once (the walk while a stopped run's
      // request is waited for runs again every few seconds).
      let toldOnce = false;
      const told = ({ candidates, reads }: { candidates: number; reads: number }) => {
        if (toldOnce) return;
        toldOnce = true;
        // A retry's lookup, or a resume's (the job's window), is dropped by --no-reuse; a create's by its flag left out.
        const skip = options.notReusable === undefined && options.jobWindow !== true ? 'or none' : 'or --no-reuse';
        // Let past a gone journal by this lookup: a shorter window or none is refused (exit 2), so none is advised.
        const why = Number.isFinite(goneFrom)
          ? "it reaches back to the job's start, as a run past the job's gone journal must"
          : `a shorter --reuse-window, ${skip}, skips this`;
        ctx.printer.info(
          `looking at ${formatCount(candidates)} tasks of this service and size made in the last ${formatDuration(window)} for the items of ${what}: reading up to ${formatCount(reads)} of them, newest first (${why})`,
        );
      };
      const walk = () => {
        const query = {
          service,
          items,
          createdAfter: Math.min(ctx.clock.now() - window, Math.min(since, goneFrom) - DATE_CLOCK_SPREAD_MS),
          exclude: options.notReusable ? withIds(exclude, options.notReusable) : exclude,
          allowItemFailures: options.allowItemFailures === true,
          // The stopped run's task, or the gone run's, however it ended: it was paid for.
          ...(Number.isFinite(Math.min(since, goneFrom)) && {
            anyStatusFrom: Math.min(since, goneFrom) - DATE_CLOCK_SPREAD_MS,
          }),
        };
        const learn = { serverClock, clock: ctx.clock };
        // The run's one walk serves every chunk; one that reaches back to a stopped run's send walks on its own.
        return index && !Number.isFinite(Math.min(since, goneFrom))
          ? index.find(api, query, ctx.signal, learn, told)
          : reconcile.findReusableTask(api, query, ctx.signal, learn, told);
      };
      // Another run of this machine sending the same items: its task, once answered, is the one to reuse. A stopped
      // run's request that may still land: the walk looks for its task meanwhile.
      let early: Awaited<ReturnType<typeof walk>> | undefined;
      const twin = await local.reserve(
        service,
        items,
        ctx.signal,
        async (sentAt) => {
          since = Math.min(since, sentAt);
          const found = await walk();
          if (found.match.kind === 'found') early = found;
          return early !== undefined;
        },
        job,
      );
      const reused = twin === undefined ? undefined : await twinTask(ctx, api, { service, items }, twin);
      if (reused) return reused;
      // A stopped run's request for these items, past its landing bound before this run came (nothing waited for): the
      // walk reaches back to its send all the same, its task reused whatever its status (local-runs.ts stoppedSince).
      const waited = Number.isFinite(since);
      const stoppedAt = local.stoppedSince();
      if (stoppedAt !== undefined) since = Math.min(since, stoppedAt);
      const reuse = early ?? (await walk());
      if (reuse.match.kind !== 'found') {
        // A walk cut short by its bound has not searched the window: "none found" there is no licence to pay again.
        if (reuse.unfinished) throw unsearched(window, reuse.unfinished, { what, retry: options.notReusable, exclude });
        return reuse.seen;
      }
      const task = reuse.match.task;
      const handed = local.handed();
      const covers = local.covered(task);
      // After a stopped run was waited for, the walk reached back to its send, which may be before the window.
      const reach = waited
        ? `found back to the send of the stopped run above, --reuse-window ${formatDuration(window)} or before`
        : Number.isFinite(since)
          ? `found back to the send of a stopped run's request for the same items at ${isoSeconds(since)}, --reuse-window ${formatDuration(window)} or before`
          : Number.isFinite(goneFrom)
            ? `found back to the job's start at ${isoSeconds(goneFrom)}, --reuse-window ${formatDuration(window)} or before`
            : `within --reuse-window ${formatDuration(window)}`;
      ctx.printer.info(
        `reusing task ${task.id}: same service and items, ${task.status}, created ${task.created_at} (${reach})`,
      );
      return { task, how: 'reused', items: items.length, covers, ...(handed.length > 0 && { handed }) };
    }
    // Insurance, not a gate: a slow list must not hold the create up (a lost answer then ends in exit 9). Waits for
    // the rate limit are not the list's slowness: the POST would wait for them too, so they do not count.
    const budgeted = api.withBudget(SNAPSHOT_BUDGET_MS);
    const match = { service, count: items.length };
    const snapshot = () => reconcile.takeSnapshot(budgeted, match, ctx.clock, ctx.signal, serverClock);
    return await snapshot()
      .catch((error: unknown) => {
        // A 429 is the service refusing this key, not a slow list: the POST would be refused too (or wait as long).
        if (ctx.signal.aborted || error instanceof RateLimitError) throw error;
        return snapshot(); // an unreadable 2xx is not resent by the client: one more try
      })
      .catch((error: unknown): Snapshot => {
        if (ctx.signal.aborted || error instanceof RateLimitError) throw error;
        // No evidence of what existed: the create goes ahead, and a lost answer can only end in exit 9.
        return { ids: new Set<number>(), complete: false };
      });
  } catch (error) {
    throw interrupted(
      ctx,
      error,
      `interrupted before sending ${what}: nothing was created for it`,
      `Re-run the same command to create it.`,
    );
  }
}

/**
 * The --reuse-window lookup that did not search its window (docs/commands.md#taskctl-create-service-items): its walk
 * stopped at its page bound, or its candidates' reads at theirs (`reach.reads`). What it read, how far back, and the
 * way on: a window the pages or the reads do cover (whole minutes, one less for the tasks that keep coming), said with
 * what it leaves out (the part of the window the lookup could not search: a task there would be paid again), or no
 * lookup at all (`--no-reuse` for a retry, whose `notReusable` is always set; create's lookup is its flag). Not offered
 * when this run already created tasks: a re-run without the lookup would pay for them again, a shorter window reuses
 * them.
 */
function unsearched(
  window: number,
  reach: Unsearched,
  at: { what: string; retry: ReadonlySet<number> | undefined; exclude: Claims },
): ReuseUnsearchedError {
  // What the pages read reach back to, when it says something (an oldest task seen elsewhere in the run can be older).
  const reached = reach.oldest !== undefined && !(reach.oldest <= reach.edge) ? reach.oldest : undefined;
  // A retry looks by default (1h): its user may never have typed the flag.
  const whose = at.retry === undefined ? '' : "retry's ";
  const { reads } = reach;
  let message: string;
  if (reads === undefined) {
    const start = Number.isFinite(reach.edge) ? `the window's start (${isoSeconds(reach.edge)})` : "the window's start";
    const back = reached === undefined ? ` do not reach ${start}` : ` reach back only to ${isoSeconds(reached)}`;
    message =
      `${whose}--reuse-window ${formatDuration(window)}: the task list is too long to search: the ` +
      `${counted(reach.pages, 'page')} read (${formatCount(reach.tasks)} tasks)${back}, so nothing was sent for ` +
      `${at.what} (its items may have a task further down)`;
  } else {
    const back = reached === undefined ? '' : ` (back to ${isoSeconds(reached)})`;
    const older = reads.candidates - reads.looked;
    message =
      `${whose}--reuse-window ${formatDuration(window)}: too many tasks to search: of the ` +
      `${formatCount(reads.candidates)} tasks of this service and size made in the window, the ` +
      `${formatCount(reads.looked)} newest${back} were read and hold none of these items, so nothing was sent for ` +
      `${at.what} (its items may have a task among the ${formatCount(older)} older ${older === 1 ? 'one' : 'ones'}` +
      `${reads.covered ? '' : ', or further down the list'})`;
  }
  // The window the lookup covers: whole minutes, one less for the tasks that keep coming. The clamp: only when it
  // reaches back inside the window (then it is shorter than the one that failed, which any other would fail the same
  // way); an oldest task seen elsewhere in the run, older than the window's start, says nothing of this walk's reach.
  const gap = reach.oldest === undefined || !Number.isFinite(reach.edge) ? window : reach.oldest - reach.edge;
  const covered = Math.floor((window - gap) / 60_000) - 1;
  const covers = gap > 0 && covered >= 1 ? covered * 60_000 : undefined;
  const since = Number.isFinite(reach.edge) ? reach.edge : undefined;
  const by = reads === undefined ? 'the list covers' : 'the reads cover';
  const skip = at.retry === undefined ? 'without --reuse-window' : 'with --no-reuse';
  const shorter =
    covers === undefined
      ? undefined
      : `--reuse-window ${formatDuration(covers)}, a window ${by}; ${notLookedAt(covers, since, window)}`;
  const searched = { window, since, by };
  if (at.exclude.ids.size > 0)
    return new ReuseUnsearchedError(
      message,
      shorter === undefined
        ? `Re-run with a shorter --reuse-window: the tasks this run created are then reused, not paid again.`
        : `Re-run with ${shorter}. The tasks this run created are reused, not paid again.`,
      covers,
      searched,
    );
  const little = reads === undefined ? 'the pages read cover' : 'the reads cover';
  return new ReuseUnsearchedError(
    message,
    shorter === undefined
      ? `Re-run ${skip} to create without looking (${little} too little of the window for a shorter one).`
      : `Re-run with ${shorter}. Or re-run ${skip} to create without looking.`,
    covers,
    searched,
  );
}

/**
 * What a window shorter than the one a walk could not search leaves out, said beside it: the tasks older than it are
 * not looked at, so one of the same items made in the rest of the window asked for (from `since`, its start on the
 * server's clock) would be paid again. `what`: whose items; `run`: the run that would pay.
 */
export function notLookedAt(
  shorter: number,
  since: number | undefined,
  window: number,
  { what, run }: { what: string; run: string } = { what: 'these items', run: 're-run' },
): string {
  const m = formatDuration(shorter);
  const from =
    since === undefined
      ? `within the ${formatDuration(window)} window but`
      : `between ${isoSeconds(since)}, the ${formatDuration(window)} window's start, and`;
  return `tasks older than ${m} are not looked at, so a task of ${what} made ${from} ${m} before the ${run} would be paid again`;
}

/**
 * The task another run of this machine created for the same items while this one waited for it: reused whatever its
 * status (the same request, made at the same time), once read and found of this service and size; else the walk
 * decides.
 */
async function twinTask(
  ctx: Sender,
  api: ApiClient,
  { service, items }: Chunk,
  id: number,
): Promise<Outcome | undefined> {
  const task = await api.getTask(id);
  if (task.service !== service || task.total_items !== items.length) return undefined; // the walk decides
  ctx.printer.info(`reusing task ${id}: another taskctl run on this machine created it for the same items meanwhile`);
  return { task, how: 'reused', items: items.length };
}

/**
 * A chunk of a job that this machine's ledger holds as created by an earlier run of the job (an entry of its job and
 * chunk, settled with a task, sent with these items), though the journal does not say so: a journal put back from an
 * earlier copy (docs/behaviour.md#the-ledger). That task is read, and taken as the chunk's (`recovered`), never bought
 * again; one the service no longer shows as claimed (not found, another task under its id) or that another chunk of the
 * job has leaves the chunk to be sent as before.
 */
async function settledEarlier(
  ctx: Sender,
  api: ApiClient,
  { service, items }: Chunk,
  job: LedgerJob,
  local: LocalCreates,
  exclude: Claims,
  what: string,
): Promise<Outcome | undefined> {
  const entry = local.settledChunk(job, service, items);
  if (entry?.taskId === undefined) return undefined;
  let task: Task;
  try {
    task = await api.getTask(entry.taskId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  if (!local.names(entry, task) || exclude.holds(task)) return undefined;
  local.takeSettled(job);
  ctx.printer.warn(
    `recovered: task ${task.id} was created for ${what} by an earlier run of job ${job.journal} (this machine's ledger of creates names it; the journal, put back from an earlier copy, does not): taken, not bought again`,
  );
  return { task, how: 'recovered', items: items.length, earlier: true };
}

interface Posting {
  exclude: Claims;
  what: string;
  state: SendState;
  hooks: SendHooks;
  before: Snapshot;
}

/**
 * The POST. The ledger entry is written, and the hooks told, at the instant the request leaves (after the rate-limit
 * wait): a run killed while it waited has sent nothing, and nothing of it needs settling.
 */
async function post(ctx: Sender, api: ApiClient, chunk: Chunk, posting: Posting): Promise<Outcome> {
  const { service, items } = chunk;
  const { state, hooks, before, what } = posting;
  const { AmbiguousCreateError } = await import('../../api/client.js');
  let entry: LedgerEntry | undefined;
  /** An attempt was handed to the connection and not reported as unprocessed since: it may reach the server. */
  const sent = { inFlight: false };
  let sendingAt = 0;
  /**
   * The service's latest Date when the first attempt left (a task this request made was stamped no earlier), and when
   * that was (local ms).
   */
  let served: { date: number | undefined; at: number } | undefined;
  /** A hook that failed (the journal could not be written): the request was not sent, and the run stops with it. */
  let refused: { error: unknown } | undefined;
  const observer: CreateTaskObserver = {
    onDispatch: (attempt, sentAtMs) => {
      sent.inFlight = true;
      sendingAt = sentAtMs;
      served ??= { date: api.serverDate(), at: sentAtMs };
      try {
        // Write-ahead: other local runs know of this request before it can have made a task.
        entry ??= state.local.begin(service, items, hooks.job, sentAtMs);
        const handed = state.local.handed();
        hooks.dispatched?.({ attempt, sentAtMs, before, ...(handed.length > 0 && { handed }) });
      } catch (error) {
        refused = { error };
        throw error;
      }
    },
    onNotProcessed: (_attempt, reason) => {
      sent.inFlight = false;
      hooks.notProcessed?.(reason.why);
    },
  };
  let task: Task;
  try {
    task = await ctx.spin(`creating ${what}`, () => api.createTask({ service, items }, observer));
  } catch (error) {
    if (refused) {
      state.local.drop(entry);
      throw refused.error;
    }
    // Ctrl-C while the POST waited for the rate limit: it never left (or only attempts the server did not process
    // did), so nothing can have been created.
    if (ctx.signal.aborted && !sent.inFlight) {
      state.local.drop(entry);
      throw new InterruptedBeforeSendError(
        `interrupted before sending ${what}: nothing was created for it`,
        'Re-run the same command to create it.',
      );
    }
    if (ctx.signal.aborted) {
      state.local.unknown(entry);
      throw new InterruptedError(
        `interrupted while creating a ${service} task for ${counted(items.length, 'item')}: it may have been created`,
        listHint(service),
      );
    }
    if (!(error instanceof AmbiguousCreateError)) {
      state.local.drop(entry); // refused, or provably never sent: nothing was created
      throw error;
    }
    const { message, sentAtMs, status } = error;
    return reconcileLost(ctx, api, chunk, posting, { entry, message, sentAtMs, answered: status !== undefined });
  }
  // An answer that cannot be this request's task says nothing of what the request did: reconciled like a garbled one.
  // Else the entry takes the task in one locked step, refused when another run of this machine names it.
  // A task the listing before the POST proves new did not exist when it was read, whatever a Date header (perhaps
  // another machine's clock, minutes ahead) says of its stamp.
  const { newSinceListing } = await import('../reconcile.js');
  const listedNew = served !== undefined && newSinceListing(before, task, served.at);
  const foreign =
    foreignAnswer(task, chunk, posting, { dateBefore: served?.date, listedNew }) ?? ownedElsewhere(state, entry, task);
  if (foreign !== undefined) {
    const message = `POST /tasks may have created a task (the service answered the create with ${foreign.why})`;
    return reconcileLost(ctx, api, chunk, posting, {
      ...{ entry, message, sentAtMs: sendingAt },
      ...{
        answered: true,
        named: { id: task.id, candidate: foreign.candidate, ...(foreign.claimed && { claimed: true }) },
      },
    });
  }
  state.serverClock.noteCreated(task.created_at, sendingAt, ctx.clock.now());
  return { task, how: 'created', items: items.length };
}

/** Why an answer is not believed; `candidate`: only its time speaks against it, so exit 9 names it to look at. */
interface Foreign {
  why: string;
  candidate: boolean;
  /** Another chunk of the job claims the id (own-claims.ts): its facts, as the answer shows the task, do not tell them apart. */
  claimed?: true;
}

/**
 * Why the task a create was answered with cannot be the one its request made, if it cannot
 * (docs/behaviour.md#exactly-once): another service, more items than were sent, other items (when the answer lists
 * them), or a task that existed before (the listing before the POST showed it, or its `created_at` is clearly before a
 * Date the service sent before the request left, server-time.ts `stampedBefore`, and that listing does not prove it
 * new: reconcile.ts `newSinceListing`) or that this job already has. Fewer
 * items of the same service are the server's to drop (a warning at the summary, summary.ts). A task another taskctl
 * run on this machine claimed is refused when the entry takes it (`ownedElsewhere`).
 */
function foreignAnswer(
  task: Task,
  { service, items }: Chunk,
  { before, exclude }: Pick<Posting, 'before' | 'exclude'>,
  { dateBefore, listedNew }: { dateBefore: number | undefined; listedNew: boolean },
): Foreign | undefined {
  const { id } = task;
  const proven = (why: string) => ({ why, candidate: false });
  if (task.service !== service || task.total_items > items.length) {
    return proven(
      `task ${id} of ${task.service} for ${counted(task.total_items, 'item')}, not this request's ${counted(items.length, 'item')} of ${service}`,
    );
  }
  // Another chunk's claim on the id holds only while what was recorded of its task is what this answer shows: a
  // service whose ids started again gives the id to this request's task (own-claims.ts).
  if (exclude.holds(task))
    return { ...proven(`task ${id}, which another chunk of this job already has`), claimed: true };
  if (before.ids.has(id) || before.listed?.has(id))
    return proven(`task ${id}, which the task list showed before this request was sent`);
  const listed = task.items?.map((item) => item.target);
  const otherItems = listed !== undefined && listed.length > 0 && !multisetWithin(listed, items);
  if (stampedBefore(task.created_at, dateBefore) && !listedNew)
    return {
      why: `task ${id}, created ${task.created_at}, before this request was sent (the service's clock had read ${new Date(dateBefore ?? 0).toISOString()} by then)`,
      candidate: !otherItems && task.total_items === items.length,
    };
  if (otherItems) return proven(`task ${id}, which holds other items than were sent`);
  return undefined;
}

/** Settles the entry with the task its answer named; why not, when another entry of this machine's ledger names it. */
function ownedElsewhere(state: SendState, entry: LedgerEntry | undefined, task: Task): Foreign | undefined {
  const { id } = task;
  const owner = state.local.settleOwn(entry, task);
  if (owner === undefined) return undefined;
  const whose =
    owner === 'this run'
      ? 'another request of this run was answered with'
      : 'another taskctl run on this machine created';
  return { why: `task ${id}, which ${whose}`, candidate: false };
}

/** A create whose outcome is unknown: a failure that may follow its landing, or an answer that is not its task. */
interface LostAnswer {
  entry: LedgerEntry | undefined;
  /** What went wrong, warned before the check (`POST /tasks may have created a task (…)`). */
  message: string;
  /** When the request left (local epoch ms). */
  sentAtMs: number;
  /** A status line came back: the request's processing had ended by then, and its window closes. */
  answered: boolean;
  /**
   * The answer named a task that cannot be this request's; `candidate`: only its time speaks against it; `claimed`:
   * another chunk's claim on its id held it as the answer showed it (Foreign `claimed`).
   */
  named?: { id: number; candidate: boolean; claimed?: true };
}

/** After an ambiguous failure: find the task the request made, or say that it cannot be known (exit 9). */
async function reconcileLost(
  ctx: Sender,
  api: ApiClient,
  { service, items }: Chunk,
  { exclude, what, state, before }: Posting,
  lost: LostAnswer,
): Promise<Outcome> {
  const { reconcileWindowMs } = await import('../reconcile.js');
  const { entry, message: lostMessage, sentAtMs } = lost;
  const failedAtMs = ctx.clock.now();
  const windowMs = reconcileWindowMs({ sentAtMs, failedAtMs });
  const checking = `checking the task list for it (for ${formatDuration(windowMs)})`;
  // Each scan's reads are resent by the client; the budget keeps those resends inside the horizon (with a short
  // grace for the last scan), so a list that keeps failing cannot stretch 10 s into 20. Waits for the rate limit
  // do not count: a spent budget delays the last scan instead of leaving the list unread.
  const scans = api.withBudget(failedAtMs + windowMs + RECONCILE_SCAN_GRACE_MS - ctx.clock.now());
  // An answer (a 5xx, an error page, a body cut off) means the request's processing had ended: its window closes.
  const question = { service, items, sentAtMs, failedAtMs, answered: lost.answered };
  const verdict = await ctx
    .spin(checking, (say, shown) => {
      // The spinner (or the live line it runs in) tells what goes on; a line says it only where none is shown (CI,
      // a pipe).
      ctx.printer.warn(shown ? lostMessage : `${lostMessage}; ${checking}…`);
      say(checking);
      return askLost(ctx, scans, state, { ...question, before, exclude, entry });
    })
    .catch((reason: unknown) => {
      const message = `while checking whether ${what} was created (${service}, ${counted(items.length, 'item')}): it may have been created`;
      if (aborted(ctx)) throw new InterruptedError(`interrupted ${message}`, listHint(service));
      if (reason instanceof AuthError) return { kind: 'keyRefused' as const, error: reason };
      // Once the POST may have landed, any failure is exit 9, never 8.
      const why = reason instanceof Error ? reason.message : String(reason);
      throw new CreateUnknownError(`${why}, ${message}`, listHint(service));
    });
  const sentAt = new Date(sentAtMs).toISOString();
  if (verdict.kind === 'keyRefused') {
    // Still exit 9 (the POST may have landed), but no look at the list can tell until the key is one the service
    // takes: that comes first.
    const { message, hint = AUTH_HINT } = verdict.error;
    throw new CreateUnknownError(
      `the create request may have created a task, and the task list could not be read to find out (${message}): ${service}, ${counted(items.length, 'item')}, sent ${sentAt}`,
      `${hint} Then ${lowerFirst(listHint(service))}`,
      [],
      hint,
    );
  }
  if (verdict.kind === 'found') {
    ctx.printer.warn(
      `recovered: task ${verdict.task.id} was created by this request (${answerWas(lost.named, verdict.task.id)}; it is the only matching task in the window in which this request could have been processed${othersWords(verdict.othersChecked)})`,
    );
    return { task: verdict.task, how: 'recovered', items: items.length };
  }
  const { ids, why } = withNamed(verdict.kind === 'unsure' ? verdict : { ids: [], why: '', readToTheEnd: true }, lost);
  throw new CreateUnknownError(
    `the create request may have created a task, and ${why}: ${service}, ${counted(items.length, 'item')}, sent ${sentAt}`,
    inspectHint(service, ids),
    ids,
  );
}

/** The recovery's last clause: the ledger found no other run of this machine naming the task, or it was not asked. */
function othersWords(checked: boolean): string {
  return checked
    ? ', and no other run on this machine claims it'
    : '; other taskctl runs on this machine could not be checked: the local ledger cannot be used';
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** What the answer was, for the "recovered" warning: lost, another task's, or this very task judged by its time. */
function answerWas(named: LostAnswer['named'], found: number): string {
  if (named === undefined) return 'the response was lost';
  if (named.id !== found) return 'the response named another task';
  // Read with its items, the task an earlier chunk's claim seemed to hold is this request's (reconcile.ts).
  return named.claimed === true
    ? `the response named it, an id an earlier chunk of this job names too: read with its items, it is not that chunk's task`
    : 'the response named it, though its created_at read as before the request was sent';
}

/**
 * The answered task joins the candidates when only its time spoke against it: exit 9 names it (and a job's journal
 * keeps it), so the hint offers it and a later `resume` never takes the chunk as not created without the user's word.
 */
function withNamed(
  verdict: { ids: number[]; why: string; readToTheEnd: boolean },
  { named }: LostAnswer,
): { ids: number[]; why: string } {
  if (!named?.candidate || verdict.ids.includes(named.id)) return verdict;
  const why = `task ${named.id}, which the service answered with, holds its items but was stamped before it was sent, so it may be an earlier identical task`;
  const ids = [...verdict.ids, named.id].sort((a, b) => a - b);
  return { ids, why: verdict.ids.length === 0 && verdict.readToTheEnd ? why : `${verdict.why}; ${why}` };
}
