/**
 * The one exactly-once question, asked by a create whose answer was lost (send.ts) and by a chunk a journaled job
 * stopped on while its request was in flight (settle.ts): did this request make a task? The options of the
 * reconciliation (core/reconcile.ts) are built here, its outcomes are put in one set with their words, and the local
 * ledger is marked here (docs/behaviour.md#exactly-once).
 */
import type { Task } from '../../api/schemas.js';
import { AuthError } from '../../errors.js';
import type { Process, Runtime } from '../capabilities.js';
import type { LedgerEntry, LedgerJob } from '../../store/ledger.js';
import type { Claims, MatchResult, Snapshot, TaskReader } from '../reconcile.js';
import type { SendState } from './types.js';

export interface LostRequest {
  service: string;
  items: readonly string[];
  /** Local epoch ms when the request left. */
  sentAtMs: number;
  /** When it failed: an error seen, or for a chunk in doubt the latest its run can have lost it. */
  failedAtMs: number;
  /** A status line came back (the request's processing had ended by then). */
  answered: boolean;
  /** What existed before it was sent. */
  before: Snapshot;
  /** Tasks of this run or job: never this request's. */
  exclude: Claims;
  /** This run's ledger entry of the request. */
  entry: LedgerEntry | undefined;
  /**
   * A chunk in doubt: its request could land until this instant (its deadline). No task by the first horizon is then
   * checked again to the deadline's horizon, and no task by that one is final: the chunk is sent again (its ledger
   * entries go). Without it (a lost answer of this run), no task is unsure: the run cannot prove it never landed.
   */
  resend?: { landsUntil: number; job: LedgerJob };
  /**
   * Candidates an earlier exit 9 named for this request, the user not having answered (`--adopt`, `--resend`): while
   * any is named, the outcome is never "not created" (the answered task stamped before its send lies outside the window).
   */
  named?: readonly number[];
  /** Told when a horizon is set (the first, and the deadline's when it is checked again): until when it scans. */
  horizon?: (until: number, late: boolean) => void;
  /** Told when a scan finds a task of the items (reconcile.ts `onCandidates`): the scans still go on to the horizon. */
  candidates?: (ids: readonly number[]) => void;
}

/** The outcomes, each with what it means for the request. */
export type LostVerdict =
  /**
   * `othersChecked`: the local ledger took the task in the step that found no other run of this machine naming it;
   * false when there was no ledger to ask (it could not be used): the list alone decided.
   */
  | { kind: 'found'; task: Task; othersChecked: boolean }
  /** No task of this request appeared by the horizon (a chunk in doubt: sent again). */
  | { kind: 'none' }
  /**
   * It may have made a task (candidates named): exit 9, with `why`. `readToTheEnd`: the list was read at the end of
   * the check, so no candidate beyond `ids` can have appeared (false when the last read, or every read, failed).
   */
  | { kind: 'unsure'; ids: number[]; why: string; readToTheEnd: boolean };

/**
 * Asks the reconciliation, to the horizon, and marks the ledger with the answer. An abort is thrown, and so is a key
 * the service refuses (an AuthError: the caller says to fix the key; the request stays as unsure as it was).
 */
export async function askLost(
  ctx: Process & Pick<Runtime, 'clock'>,
  reader: TaskReader,
  state: SendState,
  lost: LostRequest,
): Promise<LostVerdict> {
  const { local } = state;
  // Until the verdict: a possible creator for other local runs (closed 1 s after an answer, else open).
  local.unknown(lost.entry, lost.answered ? lost.failedAtMs : undefined);
  // Unsure: still a possible creator for other local runs, but only of tasks stamped before this check ended.
  const unsure = () => local.unknown(lost.entry, lost.answered ? lost.failedAtMs : ctx.clock.now());
  let verdict: LostVerdict | { kind: 'none' };
  try {
    verdict = await scanTo(ctx, reader, state, lost, lost.failedAtMs, false);
    const landsUntil = lost.resend?.landsUntil;
    if (verdict.kind === 'none' && landsUntil !== undefined && landsUntil > lost.failedAtMs) {
      verdict = await scanTo(ctx, reader, state, lost, landsUntil, true);
    }
  } catch (error) {
    // A refused key (reconcile.ts ends the check on it): as unsure as a list that cannot be read, the caller's words.
    if (error instanceof AuthError) unsure();
    throw error;
  }
  if (verdict.kind === 'none' && lost.named !== undefined && lost.named.length > 0) {
    const ids = [...lost.named];
    const why = `no task of its request was found in the window in which it could have been processed, but ${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}, named when it stopped, may be it`;
    verdict = { kind: 'unsure', ids, why, readToTheEnd: true };
  }
  if (verdict.kind === 'found') return verdict; // claimed in the ledger by the reconciliation (LocalRuns.claim)
  if (verdict.kind === 'none' && lost.resend) {
    // Not created: sent again, and its earlier entries must not contest the new request's task.
    local.settleJob(lost.resend.job, null);
    return verdict;
  }
  unsure();
  return verdict.kind === 'none' ? { kind: 'unsure', ids: [], why: lostWhy(verdict), readToTheEnd: true } : verdict;
}

async function scanTo(
  ctx: Process & Pick<Runtime, 'clock'>,
  reader: TaskReader,
  state: SendState,
  lost: LostRequest,
  failedAtMs: number,
  late: boolean,
): Promise<LostVerdict | { kind: 'none' }> {
  const { reconcileCreate, reconcileWindowMs, newBeyondDate } = await import('../reconcile.js');
  lost.horizon?.(failedAtMs + reconcileWindowMs({ sentAtMs: lost.sentAtMs, failedAtMs }), late);
  let result: MatchResult;
  // No entry (the ledger could not be written before the POST): no local run can be asked.
  const shown = lost.before.shown;
  const listedNew = shown && {
    is: (task: Task) => newBeyondDate(lost.before, task, lost.sentAtMs, state.serverClock.dateOffsetLow()),
    at: shown.at,
  };
  const local = state.local.runs(lost.entry, state.serverClock, listedNew);
  try {
    result = await reconcileCreate(reader, {
      service: lost.service,
      items: lost.items,
      sentAtMs: lost.sentAtMs,
      before: lost.before,
      exclude: lost.exclude,
      failedAtMs,
      answered: lost.answered,
      clock: ctx.clock,
      serverClock: state.serverClock,
      signal: ctx.signal,
      local,
      ...(lost.candidates && { onCandidates: lost.candidates }),
    });
  } catch (error) {
    if (ctx.signal.aborted || error instanceof AuthError) throw error;
    // Any other failure of the check (a malformed answer, another task's id, the service gone) leaves it unknown.
    result = { kind: 'unread', why: error instanceof Error ? error.message : String(error) };
  }
  if (result.kind === 'found')
    return { kind: 'found', task: result.task, othersChecked: local !== undefined && !result.unchecked };
  if (result.kind === 'none') return result;
  const readToTheEnd = result.kind !== 'unread' && result.kind !== 'unfinished';
  return { kind: 'unsure', ids: result.kind === 'unread' ? [] : result.ids, why: lostWhy(result), readToTheEnd };
}

/** Tasks stamped after the answer: `matching` ones, and `blind` ones whose items the service does not list in full. */
function lateWhy(matching: readonly number[], blind: readonly number[]): string {
  const tasks = (ids: readonly number[]) => `${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}`;
  const after = 'stamped after the service had answered the request (as its Date header reads)';
  const parts = [];
  if (matching.length > 0)
    parts.push(
      `${tasks(matching)} ${matching.length === 1 ? 'matches' : 'match'}, ${after}: this request's if that header's clock runs behind the one stamping tasks, else another identical create's`,
    );
  if (blind.length > 0)
    parts.push(
      `${tasks(blind)} (same service and number of items, ${after}) may be this request's if that header's clock runs behind the one stamping tasks: the service does not list ${blind.length === 1 ? 'its' : 'their'} items in full, so it cannot be told`,
    );
  return parts.join('; ');
}

/** Why the request's task cannot be named: the one wording of every unsure outcome. */
function lostWhy(result: Exclude<MatchResult, { kind: 'found' }>): string {
  switch (result.kind) {
    case 'ambiguous': {
      const inWindow = result.ids.filter((id) => !result.late.includes(id));
      const late =
        result.late.length === 0
          ? ''
          : `, and ${result.late.join(', ')} stamped just after it (as the service's Date header reads)`;
      return `several matching tasks were created in the window in which it could have been processed (${inWindow.join(', ')}${late}): at most one of them is this request's`;
    }
    case 'unproven':
      return `task ${result.ids.join(', ')} matches, but the task list could not be read in full before sending, so it may be an earlier identical task`;
    case 'contested':
      return `task ${result.ids.join(', ')} matches, but ${result.by}, so it may be that run's`;
    case 'unfinished':
      return `task ${result.ids.join(', ')} matches, but the task list could not be read at the end of the check, so a second one may have appeared`;
    case 'late':
      return lateWhy(
        result.ids.filter((id) => !result.blind.includes(id)),
        result.blind,
      );
    case 'unlisted': {
      const one = result.unlisted.length === 1;
      const named = `${one ? 'task' : 'tasks'} ${result.unlisted.join(', ')}`;
      return `${named} (same service and number of items, created in the window in which it could have been processed) may be this request's: the service does not list ${one ? 'its' : 'their'} items in full, so it cannot be told`;
    }
    case 'untold':
      return result.untold
        .map(
          ({ id, chunk }) =>
            `task ${id} (same service and number of items, created in the window in which it could have been processed) may be this request's, and chunk ${chunk} of this job names task ${id} too: the journal keeps nothing to tell them apart (written by an earlier version, it has no items digest or creation time for chunk ${chunk}'s task)`,
        )
        .join('; ');
    case 'unread':
      return `the task list could not be read to find out${result.why ? ` (${result.why})` : ''}`;
    default:
      return 'no matching task of this request was found';
  }
}
