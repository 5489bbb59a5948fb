/**
 * Chunks a journaled job stopped on while their request may have been in flight (a `send` with no outcome), settled
 * before anything else is sent: by the user (`resume --adopt`, `--resend`), or by the exactly-once rules
 * (core/reconcile.ts) once the request's deadline and the reconciliation horizon have passed, with a countdown.
 * Each outcome goes through the journal as the pipeline's observer.
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../context.js';
import { CreateUnknownError, UsageError } from '../../errors.js';
import { formatDuration } from '../../lib/durations.js';
import { isoSeconds } from '../../output/times.js';
import { counted } from '../items/clean.js';
import type { MatchResult } from '../reconcile.js';
import type { JobJournal } from './job-journal.js';
import type { SendRecord } from './journal-records.js';
import type { PlannedChunk, SendState } from './types.js';

/** `--adopt CHUNK=ID` and `--resend CHUNK`, checked against the job before anything is sent or waited for. */
export interface UserSettlement {
  adopt: Array<{ chunk: number; id: number; text: string }>;
  resend: number[];
}

export function parseUserSettlement(
  journal: JobJournal,
  options: { adopt?: string[] | undefined; resend?: string[] | undefined },
): UserSettlement {
  const adopt = (options.adopt ?? []).map((text) => {
    const match = /^(\d+)=(\d+)$/.exec(text.trim());
    if (!match) throw new UsageError(`--adopt ${JSON.stringify(text)}: expected CHUNK=TASK_ID, e.g. --adopt 7=1234`);
    const id = Number(match[2]);
    if ([...journal.done.values()].some((done) => done.task.id === id))
      throw new UsageError(`--adopt ${text}: task ${id} is already another chunk's`);
    return { chunk: parseChunk(match[1] ?? '', '--adopt', journal), id, text };
  });
  const resend = (options.resend ?? []).map((text) => parseChunk(text.trim(), '--resend', journal));
  return { adopt, resend };
}

function parseChunk(text: string, flag: string, journal: JobJournal): number {
  const { job } = journal.state;
  const chunk = Number(text);
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > job.chunks) {
    throw new UsageError(`${flag}: no chunk ${JSON.stringify(text)} (the job has chunks 1 to ${job.chunks})`);
  }
  if (!journal.inDoubt().includes(chunk)) {
    const task = journal.done.get(chunk)?.task;
    throw new UsageError(
      `${flag} ${chunk}: chunk ${chunk} is not in doubt (${task ? `it is task ${task.id}` : 'it was never sent'})`,
      'Only a chunk the job stopped on with exit 9 can be settled by hand.',
    );
  }
  return chunk;
}

interface InDoubt {
  journal: JobJournal;
  /** The items of each chunk in doubt (their digest checked against the send record). */
  items: ReadonlyMap<number, string[]>;
  user: UserSettlement;
  name: string;
}

/** The user's word first, then the rules for the other chunks in doubt. */
export async function settleInDoubt(ctx: Context, api: ApiClient, state: SendState, doubt: InDoubt): Promise<void> {
  await settleByUser(ctx, api, state, doubt);
  for (const chunk of doubt.journal.inDoubt()) {
    const send = doubt.journal.state.chunks.get(chunk)?.send;
    const items = doubt.items.get(chunk);
    if (send && items) await settleByScan(ctx, api, state, doubt, { index: chunk, first: send.first, items, send });
  }
}

async function settleByUser(ctx: Context, api: ApiClient, state: SendState, doubt: InDoubt): Promise<void> {
  const { journal, user } = doubt;
  const { service } = journal.state.job;
  for (const { chunk, id, text } of user.adopt) {
    // Read, so that the job's cost counts it and a task of another service is refused (a typo in the id).
    const task = await api.getTask(id);
    if (task.service !== service) {
      throw new UsageError(
        `--adopt ${text}: task ${id} is a ${task.service} task, not ${service}`,
        'Check the candidates the job named: taskctl show ID',
      );
    }
    journal.adopted(chunk, task);
    state.local.settleJob({ journal: journal.id, chunk }, id);
    ctx.printer.info(`chunk ${chunk}: task ${id} adopted`);
  }
  for (const chunk of user.resend) {
    journal.resent(chunk);
    state.local.settleJob({ journal: journal.id, chunk }, null);
    ctx.printer.info(`chunk ${chunk}: will be sent again`);
  }
}

/**
 * The ledger entry of the chunk is taken over as this run's own (other local runs keep counting it as a possible
 * creator, and this run may adopt its task), then the task list is observed to the horizon counted from the
 * request's deadline, against what existed before it was sent. One unclaimed identical task → it is this chunk's;
 * none → never created (sent again by the pipeline); otherwise exit 9 naming the chunk and the candidates.
 */
async function settleByScan(
  ctx: Context,
  api: ApiClient,
  state: SendState,
  doubt: InDoubt,
  chunk: Omit<PlannedChunk, 'service'> & { send: SendRecord },
): Promise<void> {
  const { journal } = doubt;
  const { service } = journal.state.job;
  const { send, items, index } = chunk;
  const planned: PlannedChunk = { index, first: chunk.first, items, service };
  const job = { journal: journal.id, chunk: index };
  const entry = state.local.takeOver(job, service, items, send.sent_at);
  const claimed = new Set([...journal.done.values()].map((done) => done.task.id));
  const local = state.local.runs(entry, state.serverClock);
  const result = await scan(ctx, api, state, { send, items, index, service, claimed, local });
  if (result.kind === 'found') {
    journal.created(planned, result.task, 'recovered');
    ctx.printer.info(`chunk ${index}: task ${result.task.id} was created by the interrupted request`);
    return;
  }
  if (result.kind === 'none') {
    // Not created within the horizon: the chunk is sent again, and its earlier entry must not contest the new one.
    state.local.settleJob(job, null);
    journal.notCreated(planned);
    ctx.printer.info(`chunk ${index}: not created by the interrupted request; sending it`);
    return;
  }
  // Unsure: still a possible creator for other local runs, of tasks stamped before this check ended.
  state.local.unknown(entry, ctx.clock.now());
  const ids = result.kind === 'unread' ? [] : result.ids;
  const why = unsettled(result);
  journal.unknown(planned, ids, why);
  throw new CreateUnknownError(
    `chunk ${index} (${service}, ${counted(items.length, 'item')}, sent ${new Date(send.sent_at).toISOString()}) may have been created: ${why}`,
    ids.length > 0
      ? `Look at them (taskctl show ${ids.join(' ')}), then: taskctl resume ${doubt.name} --adopt ${index}=ID, or --resend ${index} if none is this chunk's.`
      : `Try again later: taskctl resume ${doubt.name} (or settle it: --adopt ${index}=ID, --resend ${index}).`,
  );
}

interface ScanOf {
  send: SendRecord;
  items: string[];
  index: number;
  service: string;
  /** Tasks of the job's other chunks: never this one's. */
  claimed: ReadonlySet<number>;
  local: ReturnType<SendState['local']['runs']>;
}

/** The scan, under a spinner that counts down to its end: the screen names the chunk, why, and until when. */
async function scan(ctx: Context, api: ApiClient, state: SendState, what: ScanOf): Promise<MatchResult> {
  const { reconcileCreate, reconcileWindowMs } = await import('../reconcile.js');
  const { send, index } = what;
  // No answer came: the request could have been processed until its deadline (recorded at send), and is then
  // observed for the horizon, as a create that timed out would be.
  const failedAtMs = send.settle_after;
  const until = failedAtMs + reconcileWindowMs({ sentAtMs: send.sent_at, failedAtMs });
  const text = `chunk ${index} was being sent when the job stopped (at ${isoSeconds(send.sent_at)}): checking the task list for it until ${isoSeconds(until)}`;
  ctx.printer.info(`${text}…`);
  try {
    return await ctx.spin(text, async (say) => {
      const tick = () => say(`${text} (${formatDuration(Math.max(0, until - ctx.clock.now()))} left)`);
      tick();
      const timer = setInterval(tick, 1000);
      try {
        return await reconcileCreate(api, {
          service: what.service,
          items: what.items,
          sentAtMs: send.sent_at,
          before: { ids: new Set(send.before), complete: send.before_complete },
          exclude: what.claimed,
          failedAtMs,
          answered: false,
          clock: ctx.clock,
          serverClock: state.serverClock,
          signal: ctx.signal,
          local: what.local,
        });
      } finally {
        clearInterval(timer);
      }
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return { kind: 'unread', why: error instanceof Error ? error.message : String(error) };
  }
}

function unsettled(result: Exclude<MatchResult, { kind: 'found' } | { kind: 'none' }>): string {
  switch (result.kind) {
    case 'ambiguous':
      return `several new identical tasks (${result.ids.join(', ')}) could be it`;
    case 'unproven':
      return `task ${result.ids.join(', ')} matches, but the task list could not be read in full before it was sent`;
    case 'contested':
      return `task ${result.ids.join(', ')} matches, but ${result.by}, so it may be that run's`;
    case 'unfinished':
      return `task ${result.ids.join(', ')} matches, but the task list could not be read at the end of the check`;
    default:
      return `the task list could not be read${result.why ? ` (${result.why})` : ''}`;
  }
}
