/**
 * Chunks a journaled job stopped on while their request may have been in flight (a `send` with no outcome), settled
 * before anything else is sent: by the user (`resume --adopt`, `--resend`), or by the exactly-once rules
 * (core/reconcile.ts) once the request's deadline and the reconciliation horizon have passed, with a countdown.
 * Each outcome goes through the journal as the pipeline's observer.
 */
import { AUTH_HINT } from '../../api/api-errors.js';
import type { ApiClient } from '../../api/client.js';
import type { Output, Process, Runtime, Service } from '../capabilities.js';

/**
 * What settling uses of the run: its output (the countdown on stderr), Ctrl-C, the clock, CI mode, and the environment
 * (where this machine's other jobs are, for `--adopt`).
 */
type Settler = Output & Process & Pick<Runtime, 'clock' | 'env'> & Pick<Service, 'ci'>;
import { AuthError, CliError, CreateUnknownError, ExitCode, UsageError } from '../../errors.js';
import { formatDuration } from '../../lib/duration.js';
import { isoSeconds } from '../../output/times.js';
import { canRedraw } from '../../output/io.js';
import type { JobJournal } from './job-journal.js';
import { askLost } from './lost.js';
import type { Snapshot } from '../reconcile.js';
import { earlierTaskBounds } from '../server-time.js';
import { lastJobPlace, type RemovedAs } from '../../store/job-places.js';
import { cacheDirectory } from '../../store/cache-dir.js';
import { tasksSinceCommand } from '../job/removed-place.js';
import { chunkItems, type Cover, type SendRecord } from './journal-records.js';
import { itemsDigest } from '../items/multiset.js';
import { listedTargets } from '../../lib/task-state.js';
import type { Task } from '../../api/schemas.js';
import { type PlannedChunk, type SendState } from './types.js';
import { foundClaim, holds, lostClaim, ownClaims, type OwnClaim } from './own-claims.js';
import { counted } from '../../output/plural.js';
import { refusedAdvice, resumeCommand, spending, type JobRef } from './resume-command.js';

/** `--adopt CHUNK=ID` and `--resend CHUNK`, checked against the job before anything is sent or waited for. */
export interface UserSettlement {
  /** `replaces`: the task the journal gives the chunk, when it has one (adopted again only if that one cannot be it). */
  /**
   * `holder`: another chunk whose task is this id by a claim nothing can check (own-claims.ts `unchecked`): adopted
   * only if, read, the task is still that claim's for want of proof alone; that chunk's task is then counted lost.
   */
  adopt: Array<{ chunk: number; id: number; text: string; replaces?: number | undefined; holder?: number }>;
  resend: number[];
}

export function parseUserSettlement(
  journal: JobJournal,
  options: { adopt?: string[] | undefined; resend?: string[] | undefined },
  job: Omit<JobRef, 'id' | 'refused'> = {},
): UserSettlement {
  const given = new Map<string, string>();
  for (const text of options.adopt ?? []) {
    const [chunk, task] = text.trim().split('=');
    // One task for two chunks would mark the second done with the first's items, never creating its own.
    const twice = given.get(`task ${task}`) ?? given.get(`chunk ${chunk}`);
    if (twice !== undefined)
      throw new UsageError(`--adopt ${text} and --adopt ${twice}: one task per chunk, one chunk per task`);
    given.set(`task ${task}`, text).set(`chunk ${chunk}`, text);
  }
  const adopt = (options.adopt ?? []).map((text) => {
    const match = /^(\d+)=(\d+)$/.exec(text.trim());
    if (!match) throw new UsageError(`--adopt ${JSON.stringify(text)}: expected CHUNK=TASK_ID, e.g. --adopt 7=1234`);
    const id = Number(match[2]);
    const chunk = parseChunk(match[1] ?? '', '--adopt', { journal, job }, true);
    const [holder, held] = [...journal.done.entries()].find(([, done]) => done.task.id === id) ?? [];
    // A claim with no creation time may be checkable by nothing: the task is read, and judged, before it is refused.
    const uncheckable = held?.claim?.chunk !== undefined && !hasCreation(held.claim);
    if (holder !== undefined && (holder === chunk || !uncheckable))
      throw new UsageError(
        holder === chunk
          ? `--adopt ${text}: task ${id} is chunk ${chunk}'s already; nothing to adopt`
          : alreadyHeld(text, id, holder),
      );
    return { chunk, id, text, replaces: journal.done.get(chunk)?.task.id, ...(holder !== undefined && { holder }) };
  });
  const resend = (options.resend ?? []).map((text) => parseChunk(text.trim(), '--resend', { journal, job }));
  return { adopt, resend };
}

const alreadyHeld = (text: string, id: number, holder: number) =>
  `--adopt ${text}: task ${id} is already chunk ${holder}'s`;

const hasCreation = (claim: OwnClaim) => claim.created_at !== undefined || claim.chunk?.chunk.created_at !== undefined;

/**
 * `withTask`: a chunk that has a task may be named too (`--adopt`: settled only if that task cannot be the chunk's).
 * `job`: the job as this run's hints name it (spending, unrecorded flags, a gone journal's window), but for its id.
 */
function parseChunk(
  text: string,
  flag: string,
  { journal, job: self }: { journal: JobJournal; job: Omit<JobRef, 'id' | 'refused'> },
  withTask = false,
): number {
  const { job } = journal.state;
  const chunk = Number(text);
  if (!Number.isInteger(chunk) || chunk < 1 || chunk > job.chunks) {
    throw new UsageError(`${flag}: no chunk ${JSON.stringify(text)} (the job has chunks 1 to ${job.chunks})`);
  }
  if (withTask && journal.done.has(chunk)) return chunk;
  const refused = journal.state.chunks.get(chunk)?.refused;
  if (refused !== undefined) {
    // Its items were answered with a refusal (docs/behaviour.md#a-refused-chunk): sending them again is refused again.
    throw new UsageError(
      `${flag} ${chunk}: the service refused the items of chunk ${chunk} (${refused}); it is not in doubt`,
      refusedAdvice([refused], resumeCommand({ ...self, id: journal.id, refused: true })),
    );
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
  /**
   * The run's flags its hints' resumes carry (types.ts `hintFlags`); another job's resume carries only their
   * `spending`.
   */
  flags: Pick<JobRef, 'yes' | 'maxCost' | 'wait'>;
  /** The run's flags the job has not recorded yet (types.ts `JobRef`): this job's hints only. */
  unrecorded?: JobRef['unrecorded'];
  /** The gone journal this run was let past by a window (types.ts `JobRef`): its hints carry the window. */
  gone?: JobRef['gone'];
}

/** The job as the hints of its chunks in doubt name it. */
function selfOf(doubt: InDoubt): JobRef {
  const unrecorded = doubt.unrecorded && { unrecorded: doubt.unrecorded };
  const gone = doubt.gone && { gone: doubt.gone };
  return { id: doubt.name, refused: doubt.journal.refused().length > 0, ...doubt.flags, ...unrecorded, ...gone };
}

/**
 * The user's `--adopt` first, then the rules for the other chunks in doubt: a chunk given `--resend` is scanned as
 * well, and sent again only when the scan finds nothing new (docs/behaviour.md#jobs).
 */
export async function settleInDoubt(ctx: Settler, api: ApiClient, state: SendState, doubt: InDoubt): Promise<void> {
  // The run that sent a chunk in doubt was gone by now (this run holds the job), and its request lost with it.
  const startedAt = ctx.clock.now();
  const earlier = earlierTaskBounds(doubt.journal.state.chunks.values());
  if (earlier !== undefined) state.serverClock.learnEarlierTasks(earlier);
  await adoptByUser(ctx, api, state, doubt);
  for (const chunk of doubt.journal.inDoubt()) {
    const known = doubt.journal.state.chunks.get(chunk);
    const send = known?.send;
    const items = doubt.items.get(chunk);
    // Taken over by another job (hand-over.ts): its task is this chunk's; `--resend` is the user's word against it.
    const cover = known?.coveredBy;
    if (cover && !doubt.user.resend.includes(chunk) && (await settleCovered(ctx, api, state, doubt, chunk, cover)))
      continue;
    if (send && items) {
      const resendAsked = doubt.user.resend.includes(chunk);
      await settleByScan(
        ctx,
        api,
        state,
        { ...doubt, startedAt },
        { index: chunk, first: send.first, items, send, resendAsked },
      );
    }
  }
}

/**
 * What existed before a chunk's send, as its record keeps it: the tasks of its service and size, and how far back the
 * listing showed every task (`shown_after`), its `before` then standing for the whole listing of such tasks.
 */
function journaledBefore(send: SendRecord): Snapshot {
  const ids = new Set(send.before);
  const { shown_after: after, shown_at: at } = send;
  if (after === undefined || at === undefined) return { ids, complete: send.before_complete };
  return { ids, complete: send.before_complete, listed: ids, shown: { after: after ?? Number.NEGATIVE_INFINITY, at } };
}

async function adoptByUser(ctx: Settler, api: ApiClient, state: SendState, doubt: InDoubt): Promise<void> {
  const { journal, user } = doubt;
  for (const { chunk, id, text, replaces, holder } of user.adopt) {
    if (replaces !== undefined && (await recordedFits(api, doubt, chunk, replaces))) {
      throw new UsageError(
        `--adopt ${text}: chunk ${chunk} is not in doubt (it is task ${replaces}, which holds its items)`,
        'Only a chunk the job stopped on with exit 9, or one whose task holds other items, can be settled by hand.',
      );
    }
    // Read, so that the job's cost counts it and a task that cannot be this chunk's is refused (a typo in the id).
    const task = await api.getTask(id);
    if (holder !== undefined) {
      // Another chunk's claim on the id: set aside by the user's word only where nothing can check it.
      const claim = journal.done.get(holder)?.claim;
      if (claim === undefined || ownClaims([claim]).untold?.(task) !== holder)
        throw new UsageError(alreadyHeld(text, id, holder));
    }
    // A chunk whose items a job now pruned took over (`removedTaker`): that job's ledger entry names the task it
    // bought for them; the chunk takes it as a hand-over's does (settleCovered), its items checked as any adoption's.
    const cover = journal.state.chunks.get(chunk)?.coveredBy;
    const removedCover = cover !== undefined && (await removedTakerOf(ctx, cover));
    const refusal =
      (await adoptRefusal(ctx, doubt, { chunk, task })) ??
      (removedCover
        ? (state.local.settleJob({ journal: journal.id, chunk }, id), undefined)
        : claimRefusal(state, doubt, chunk, task));
    if (refusal !== undefined)
      throw new UsageError(
        `--adopt ${text}: ${refusal}`,
        `Look at it (taskctl show ${id}), and at the candidates the job's message named, then adopt the chunk's own.`,
      );
    if (holder === undefined) journal.adopted(chunk, task);
    else journal.adoptedOver(chunk, holder, task);
    (state.settled ??= []).push({ chunk, task });
    ctx.printer.info(`chunk ${chunk}: task ${id} adopted`);
  }
}

/**
 * Why `task` cannot be `chunk`'s, if it cannot: another service, another number of items, other items (when the
 * service listed them all), or a task another job of this machine names (its journal).
 */
async function adoptRefusal(
  ctx: Pick<Runtime, 'env'>,
  { journal, items }: InDoubt,
  { chunk, task }: { chunk: number; task: Task },
): Promise<string | undefined> {
  const { service } = journal.state.job;
  const { id } = task;
  if (task.service !== service) return `task ${id} is a ${task.service} task, not ${service}`;
  const send = journal.state.chunks.get(chunk)?.send;
  const count = send?.count ?? chunkItems(journal.state.job, chunk);
  if (task.total_items !== count)
    return `task ${id} has ${counted(task.total_items, 'item')}, and chunk ${chunk} has ${counted(count, 'item')}`;
  const mine = items.get(chunk);
  if (!sameItems(task, send?.items_digest ?? (mine && itemsDigest(mine))))
    return `task ${id} holds other items than chunk ${chunk}`;
  const other = await otherJobNaming(ctx, journal.id, task);
  // The job that took this chunk's items over (hand-over.ts) gave them that very task.
  const cover = journal.state.chunks.get(chunk)?.coveredBy;
  if (other && other.job !== cover?.job) return `task ${id} is chunk ${other.chunk} of job ${other.job}`;
  return undefined;
}

/**
 * The last check, and the adoption's one ledger write: the chunk's entry takes the task in the same locked step that
 * finds no other taskctl run of this machine naming it; why not, when one does. A chunk with no send on record (or
 * no items) has no request to speak for: whatever entry it has is settled with the task.
 */
function claimRefusal(state: SendState, { journal, items }: InDoubt, chunk: number, task: Task): string | undefined {
  const { id } = task;
  const job = { journal: journal.id, chunk };
  const send = journal.state.chunks.get(chunk)?.send;
  const mine = items.get(chunk);
  if (!mine || !send) {
    state.local.settleJob(job, id);
    return undefined;
  }
  const entry = state.local.takeOver(job, journal.state.job.service, mine, send.sent_at);
  const owner = state.local.settleOwn(entry, task);
  if (owner === undefined) return undefined;
  return owner === 'this run'
    ? `task ${id} is another request's of this run`
    : `task ${id} was created by another taskctl run on this machine`;
}

/** Whether the task's items (when the service listed them all) have the digest of a chunk's (when known). */
function sameItems(task: Task, digest: string | undefined): boolean {
  const targets = listedTargets(task);
  if (digest === undefined || targets === undefined) return true;
  return itemsDigest(targets) === digest;
}

/** Whether the task the journal gives `chunk` is of the job's service and holds the chunk's items (a task gone: no). */
async function recordedFits(api: ApiClient, { journal }: InDoubt, chunk: number, id: number): Promise<boolean> {
  const send = journal.state.chunks.get(chunk)?.send;
  const count = send?.count ?? chunkItems(journal.state.job, chunk);
  let task: Task;
  try {
    task = await api.getTask(id);
  } catch (error) {
    if (error instanceof CliError && error.exitCode === ExitCode.notFound) return false;
    throw error;
  }
  return (
    task.service === journal.state.job.service && task.total_items === count && sameItems(task, send?.items_digest)
  );
}

/**
 * The job of this machine, other than `self`, whose journal gives `task` to one of its chunks. Its claim is on the id,
 * and a service may give an id out again: it stands while what that journal recorded of the task is what the service
 * shows under the id now, judged as a job's own claims are (own-claims.ts `holds`).
 */
async function otherJobNaming(
  ctx: Pick<Runtime, 'env'>,
  self: string,
  task: Task,
): Promise<{ job: string; chunk: number } | undefined> {
  const [{ jobStore }, { readJobState }, { jobChunks }] = await Promise.all([
    import('../job/registry.js'),
    import('./hand-over.js'),
    import('../job/job-chunks.js'),
  ]);
  for (const stored of jobStore(ctx.env).list()) {
    if (stored.id === self) continue;
    // Its tasks are all that is asked: one journal at a time; one that cannot be read as its job names nothing.
    const other = readJobState(stored.path, stored.id);
    if (other === undefined) continue;
    for (const [chunk, known] of other.chunks) {
      if (known.task?.id !== task.id) continue;
      const claimed = jobChunks(other)[chunk - 1];
      const claim = {
        id: task.id,
        ...(known.task.created_at !== undefined && { created_at: known.task.created_at }),
        ...(claimed?.task !== undefined && {
          chunk: { service: other.job.service, chunk: { ...claimed, task: claimed.task } },
        }),
      };
      if (holds(claim, task)) return { job: stored.id, chunk };
    }
  }
  return undefined;
}

/**
 * A chunk in doubt that a re-run of its items took over (hand-over.ts: that run waited until its request could no
 * longer land, then reused or created their task): that job's chunk's task is this chunk's, read and checked first.
 * Never sent from here while that job may still make it: exit 9 saying which job to settle or wait for. False when the
 * hand-over came to nothing (that job's journal is gone, or its chunk was refused): the chunk is settled as any other.
 */
async function settleCovered(
  ctx: Settler,
  api: ApiClient,
  state: SendState,
  doubt: InDoubt,
  index: number,
  cover: Cover,
): Promise<boolean> {
  const { journal } = doubt;
  const [{ coveringChunk, resumeName }, { jobStore }, { holderWords }] = await Promise.all([
    import('./hand-over.js'),
    import('../job/registry.js'),
    import('../../store/lock-file.js'),
  ]);
  const theirs = coveringChunk(jobStore(ctx.env), cover);
  const by = `job ${cover.job} (its chunk ${cover.chunk})`;
  const self = selfOf(doubt);
  // Its journal removed as its job ended there (pruned: its state directory's `jobs --prune` or job-retention, which
  // knows nothing of this job): the hand-over is proof the items were bought there, whatever this job's scan finds
  // (that task may be past its window, or claimed by that job's ledger entry). Never bought again from here.
  const removed = theirs === undefined ? lastJobPlace(cacheDirectory(ctx.env), cover.job)?.removed : undefined;
  if (removed !== undefined) throw removedTaker(journal, index, cover.job, removed.as, self);
  if (theirs === undefined || theirs.refused) {
    ctx.printer.info(
      `chunk ${index}: ${by}, which took its items over, ${theirs === undefined ? 'cannot be read' : 'has no task for them (refused)'}: settling it here`,
    );
    return false;
  }
  const id = theirs.task?.id;
  if (id === undefined) {
    const runner = jobStore(ctx.env).runner(cover.job, theirs.path);
    // It stopped before sending: its walk may not have reached this chunk's own task, and nothing of it can have made
    // one. The hand-over is void, and the chunk is settled here, by this job's own scan back to its send.
    if (!theirs.sent && runner === undefined) {
      ctx.printer.info(
        `chunk ${index}: ${by}, which took its items over, stopped before sending them: settling it here`,
      );
      return false;
    }
    throw new CreateUnknownError(
      runner === undefined
        ? `chunk ${index}: its items were taken over by ${by}, which has no task for them yet${theirs.sent ? ' (its request may have made one)' : ''}; nothing was sent`
        : `chunk ${index}: its items were taken over by ${by}, which is running (${holderWords(runner)}); nothing was sent`,
      runner === undefined
        ? `Settle that job first: ${resumeCommand({ ...spending(doubt.flags), id: resumeName(jobStore(ctx.env), cover.job), refused: theirs.jobRefused })}; then: ${resumeCommand(self)}`
        : `When it ends: ${resumeCommand(self)}`,
    );
  }
  let task: Task;
  try {
    task = await api.getTask(id);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw new CreateUnknownError(
      `chunk ${index}: its items are task ${id} of ${by}, which cannot be read (${error instanceof Error ? error.message : String(error)}); nothing was sent`,
      `Look at it (taskctl show ${id}), then try again: ${resumeCommand(self)}`,
      [id],
    );
  }
  const send = journal.state.chunks.get(index)?.send;
  const count = send?.count ?? chunkItems(journal.state.job, index);
  const mine = doubt.items.get(index);
  const differs =
    task.service !== journal.state.job.service || task.total_items !== count
      ? `it is a ${task.service} task of ${counted(task.total_items, 'item')}`
      : !sameItems(task, send?.items_digest ?? (mine && itemsDigest(mine)))
        ? 'it holds other items'
        : undefined;
  if (differs !== undefined)
    throw new CreateUnknownError(
      `chunk ${index}: its items were taken over by ${by}, whose task ${id} cannot be this chunk's (${differs}); nothing was sent`,
      `Look at it (taskctl show ${id}), then: ${resumeCommand(self, ` --resend ${index}`)} if no task holds them.`,
      [id],
    );
  journal.covered(index, task, cover);
  state.local.settleJob({ journal: journal.id, chunk: index }, id);
  (state.settled ??= []).push({ chunk: index, task });
  ctx.printer.info(`chunk ${index}: task ${id} of ${by} covers its items`);
  return true;
}

/**
 * The ledger entry of the chunk is taken over as this run's own (other local runs keep counting it as a possible
 * creator, and this run may adopt its task), then the one exactly-once question is asked (lost.ts). Its request was
 * lost at the latest when this run began (its run is gone) or at its deadline: the task list is observed to the
 * horizon counted from then and from its send, so a chunk whose task is in the list settles within seconds, and a job
 * stopped long ago at once. No task by then is checked again to the horizon of its deadline before it counts as never
 * created. One unclaimed identical task → it is this chunk's; none → sent again by the pipeline; otherwise exit 9
 * naming the chunk and the candidates. `--resend` (`chunk.resendAsked`) asks the same: none, or only candidates an earlier
 * exit 9 named (the user looked at them), with the list read to the end, → sent again; a task it finds that was never named, or a list that cannot be
 * read, → exit 9, nothing sent.
 */
async function settleByScan(
  ctx: Settler,
  api: ApiClient,
  state: SendState,
  doubt: InDoubt & { startedAt: number },
  chunk: Omit<PlannedChunk, 'service'> & { send: SendRecord; resendAsked: boolean },
): Promise<void> {
  const { journal } = doubt;
  const { service } = journal.state.job;
  const { send, items, index } = chunk;
  const named = new Set(journal.state.chunks.get(index)?.named);
  const planned: PlannedChunk = { index, first: chunk.first, items, service };
  const job = { journal: journal.id, chunk: index };
  const entry = state.local.takeOver(job, service, items, send.sent_at);
  // The job's other chunks' tasks, each claim holding while what was recorded of its task is what its id names now.
  const exclude = ownClaims(
    [...journal.done.values()].map((done) => done.claim ?? { id: done.task.id }),
    [],
    lostClaim((chunk, seen) => journal.lost(chunk, seen)),
    foundClaim((chunk, task) => journal.found(chunk, task)),
  );
  const verdict = await watched(ctx, index, send, (horizon, candidates) =>
    askLost(ctx, api, state, {
      service,
      items,
      sentAtMs: send.sent_at,
      failedAtMs: Math.min(send.settle_after, doubt.startedAt),
      answered: false,
      before: journaledBefore(send),
      exclude,
      entry,
      resend: { landsUntil: send.settle_after, job },
      // Named candidates stand until the user answers: `--resend` is that answer.
      ...(!chunk.resendAsked && { named: [...named] }),
      horizon,
      candidates,
    }),
  ).catch((error: unknown) => {
    throw error instanceof AuthError ? keyRefused(error, { index, service, items, send }, doubt) : error;
  });
  const seen = verdict.kind === 'found' ? [verdict.task.id] : verdict.kind === 'unsure' ? verdict.ids : [];
  // Past candidates already named only when the list was read to the end: a task landing after a failed read is unseen.
  // A `found` was read to the end: one named before (a late candidate, say) is the user's to reject with `--resend`.
  const readToTheEnd = verdict.kind === 'found' || (verdict.kind === 'unsure' && verdict.readToTheEnd);
  const onlyNamed = readToTheEnd && seen.length > 0 && seen.every((id) => named.has(id));
  if (chunk.resendAsked && (verdict.kind === 'none' || onlyNamed)) {
    journal.resent(index);
    // askLost already dropped the job's entries for a chunk it found no task of.
    if (verdict.kind !== 'none') state.local.settleJob(job, null);
    ctx.printer.info(`chunk ${index}: will be sent again`);
    return;
  }
  if (verdict.kind === 'found' && !chunk.resendAsked) {
    journal.created(planned, verdict.task, 'recovered');
    (state.settled ??= []).push({ chunk: index, task: verdict.task });
    ctx.printer.info(`chunk ${index}: task ${verdict.task.id} was created by the interrupted request`);
    return;
  }
  if (verdict.kind === 'none') {
    journal.notCreated(planned);
    // Not a certainty: a request the service holds past the horizon lands later (docs/behaviour.md#the-horizon).
    ctx.printer.info(
      `chunk ${index}: no task of the interrupted request found by ${isoSeconds(ctx.clock.now())}, past its horizon; sending it (a request the service held longer could still land, as a second task of these items: \`taskctl list --service ${service} --since ${isoSeconds(send.sent_at)}\` would show it)`,
    );
    return;
  }
  const why =
    verdict.kind === 'found'
      ? `task ${verdict.task.id} holds its items, created in the window in which its request could have been processed`
      : verdict.why;
  journal.unknown(planned, seen, why);
  throw new CreateUnknownError(
    `chunk ${index} (${service}, ${counted(items.length, 'item')}, sent ${new Date(send.sent_at).toISOString()}) may have been created: ${why}${chunk.resendAsked ? '; it was not sent again' : ''}`,
    unsureHint(selfOf(doubt), index, seen, taskHolders(journal.done), journal.resentByUser(index)),
  );
}

/**
 * The service refused the key while the list was read (rotated, revoked): exit 4, the key's own advice (where it came
 * from) first, then the resume. Nothing was sent, and nothing is written: the chunk stays in doubt as it was, for the
 * resume with a key the service takes. Never exit 9 "try again later", which that key can never make succeed.
 */
function keyRefused(
  error: AuthError,
  chunk: { index: number; service: string; items: readonly string[]; send: SendRecord },
  doubt: InDoubt,
): AuthError {
  const { index, service, items, send } = chunk;
  return new AuthError(
    `chunk ${index} (${service}, ${counted(items.length, 'item')}, sent ${new Date(send.sent_at).toISOString()}) is still in doubt: the task list cannot be read to find out whether it was created (${error.message}); nothing was sent`,
    `${error.hint ?? AUTH_HINT} Then continue it: ${resumeCommand(selfOf(doubt))}`,
  );
}

/** Whether the job that took a chunk's items over can no longer be read, its journal removed as it ended there. */
async function removedTakerOf(ctx: Pick<Runtime, 'env'>, cover: Cover): Promise<boolean> {
  const [{ coveringChunk }, { jobStore }] = await Promise.all([import('./hand-over.js'), import('../job/registry.js')]);
  if (coveringChunk(jobStore(ctx.env), cover) !== undefined) return false;
  return lastJobPlace(cacheDirectory(ctx.env), cover.job)?.removed !== undefined;
}

/**
 * Exit 9 for a chunk whose items a job `taker` took over, whose journal was removed as it ended `as` there: its task
 * holds them (it is on the service), but no journal here names it. The read that lists it, then `--adopt` (`--resend`
 * only if none holds them), each a whole command on its own line.
 */
function removedTaker(
  journal: JobJournal,
  index: number,
  taker: string,
  as: RemovedAs,
  self: JobRef,
): CreateUnknownError {
  const { service } = journal.state.job;
  const sent = journal.state.chunks.get(index)?.send?.sent_at;
  const since = new Date(sent ?? journal.state.job.created_at).toISOString();
  return new CreateUnknownError(
    `chunk ${index}: its items were bought by job ${taker}, which took them over, whose journal was removed as ${as} since (taskctl jobs --prune or the job-retention where it ran): its task is not known here; nothing was sent`,
    `Find its task: ${tasksSinceCommand(service, since)}\nthen, if it holds chunk ${index}'s items: ${resumeCommand(self, ` --adopt ${index}=ID`)}\nor, if no task holds them: ${resumeCommand(self, ` --resend ${index}`)}`,
  );
}

/**
 * Exit 9's next step: the candidates to look at, then `--adopt` (`--resend` only if none is the chunk's); else later.
 * `holders`: the job's chunks with a task, by task id. A candidate another chunk names (its claim unchecked: own-claims.ts
 * `unchecked`) is that chunk's or this one's: `--adopt` takes it for this one and counts that chunk's task lost.
 */
export function unsureHint(
  job: JobRef,
  index: number,
  ids: readonly number[],
  holders: ReadonlyMap<number, number> = new Map(),
  resent = false,
): string {
  if (ids.length === 0) return `Try again later: ${resumeCommand(job)}`;
  const [only] = ids;
  const holder = only === undefined ? undefined : holders.get(only);
  // Each way on is a whole command at the end of its own line, so either can be pasted as printed.
  if (ids.length === 1 && holder !== undefined && holder !== index) {
    const adopt = `If it holds chunk ${index}'s items, the service's ids started again (chunk ${holder}'s task is then counted lost, not bought again): ${resumeCommand(job, ` --adopt ${index}=${only}`)}`;
    // Sent again once by the user's word already: not offered twice (each would pay for the chunk once more).
    return resent
      ? `Look at it (taskctl show ${only}): chunk ${holder} names task ${only} too, and chunk ${index} was sent again once (--resend).\n${adopt}`
      : `Look at it (taskctl show ${only}): chunk ${holder} names task ${only} too.\n${adopt}\nIf not: ${resumeCommand(job, ` --resend ${index}`)}`;
  }
  return ids.length === 1
    ? `Look at it (taskctl show ${only}), then, if it is this chunk's: ${resumeCommand(job, ` --adopt ${index}=${only}`)}\nor, if task ${only} is not this chunk's: ${resumeCommand(job, ` --resend ${index}`)}`
    : `Look at them (taskctl show ${ids.join(' ')}), then, for the one that is this chunk's: ${resumeCommand(job, ` --adopt ${index}=ID`)}\nor, if none is this chunk's: ${resumeCommand(job, ` --resend ${index}`)}`;
}

/** The job's chunks with a task, by task id (unsureHint `holders`). */
export function taskHolders(done: ReadonlyMap<number, { task: { id: number } }>): Map<number, number> {
  const holders = new Map<number, number>();
  for (const [chunk, { task }] of done) if (!holders.has(task.id)) holders.set(task.id, chunk);
  return holders;
}

/**
 * The check under a countdown that names the chunk, why, and until when: on a terminal one line redrawn in place
 * (with -q too), elsewhere one line per horizon.
 */
async function watched<T>(
  ctx: Settler,
  index: number,
  send: SendRecord,
  check: (horizon: (until: number, late: boolean) => void, candidates: (ids: readonly number[]) => void) => Promise<T>,
): Promise<T> {
  const { startCountdown } = await import('../../output/countdown.js');
  const live = canRedraw(ctx.io.stderr, ctx.env, ctx.ci);
  let countdown: { stop: () => void } | undefined;
  let checkingUntil: number | undefined;
  const say = (until: number, text: string) => {
    countdown?.stop();
    if (!live) {
      ctx.printer.notice(`${text}…`);
      return;
    }
    countdown = startCountdown(
      ctx.io.stderr,
      // The count first: a line cut to a narrow terminal keeps what changes.
      () => `${formatDuration(Math.max(0, until - ctx.clock.now()))} left: ${text}`,
    );
  };
  // Short enough for 80 columns when cut to the live line (its count says until when); a pipe's line names the time.
  const untilWords = (at: number) => (live ? '' : ` until ${isoSeconds(at)}`);
  const horizon = (at: number, late: boolean) => {
    checkingUntil = at;
    say(
      at,
      late
        ? `checking the task list for chunk ${index}${untilWords(at)}: no task for it yet, and its request could land until ${isoSeconds(send.settle_after)}`
        : `checking the task list for chunk ${index}${untilWords(at)}: it was being sent when the job stopped (at ${isoSeconds(send.sent_at)})`,
    );
  };
  // A task of its items listed while the check goes on to its horizon (a second may yet appear): said, never "no task".
  const candidates = (ids: readonly number[]) => {
    if (checkingUntil === undefined) return;
    const tasks = ids.length === 1 ? `task ${ids[0] ?? ''} holds` : `tasks ${ids.join(', ')} hold`;
    say(
      checkingUntil,
      `${tasks} chunk ${index}'s items; checking the task list${untilWords(checkingUntil)} for another`,
    );
  };
  try {
    return await check(horizon, candidates);
  } finally {
    countdown?.stop();
  }
}
