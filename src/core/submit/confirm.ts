/**
 * The money gates before anything is sent: --max-cost, the confirmation above the confirm-above setting, and the
 * balance (docs/behaviour.md#the-balance).
 *
 * Money safety for scripts (as `gh` does): an estimate at or above confirm-above is asked about on a
 * terminal; without one to ask on (stdin or stdout not a terminal, CI, --no-input) it is refused with exit 2 and the
 * flag to pass, unless `--yes` is given or `--max-cost` covers the estimate (the script has set its own limit).
 * Chunked jobs are judged by their total. Declining is exit 13 with a calm message. An estimate above the balance is
 * exit 6 before the first POST, never a prompt showing a negative balance and never half a job.
 */
import type { ApiClient } from '../../api/client.js';
import type { Balance } from '../../api/schemas.js';
import { requestLabel } from '../../api/api-errors.js';
import type { Output, Process, Prompts, Service } from '../capabilities.js';
import { BalanceError, CliError, DeclinedError, InterruptedError, UsageError } from '../../errors.js';
import { shellWord } from '../../lib/shell-word.js';
import { type PricedBatch, type SubmitOptions } from './types.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { resumeCommand, type JobRef } from './resume-command.js';

/** The balance read before the first POST gets as long as the snapshot beside it: it must not hold the create up. */
const BALANCE_BUDGET_MS = 1000;

/**
 * Returns the balance when it was read to ask (the guard before the first POST then needs no second read). `resuming`:
 * the job a resume continues, whose items are its own (a higher limit is the only way on).
 */
export async function confirmCost(
  ctx: Output & Prompts & Process & Service,
  api: ApiClient,
  batches: readonly PricedBatch[],
  options: SubmitOptions,
  verb: string,
  resuming?: JobRef,
): Promise<Balance | undefined> {
  const estimate = totalEstimate(batches);
  if (options.maxCost !== undefined && estimate > options.maxCost) {
    const above = `the estimate is ${counted(estimate, 'coin')}, above --max-cost ${formatCount(options.maxCost)}`;
    if (resuming) {
      throw new BalanceError(
        `${above}; nothing more was sent`,
        `Continue it with: ${resumeCommand({ ...resuming, maxCost: estimate })}`,
      );
    }
    throw new BalanceError(`${above}; nothing was created`, 'Raise --max-cost, or send fewer items.');
  }
  const { confirmAbove } = await ctx.settings();
  if (options.yes || estimate < confirmAbove.value) return undefined;
  if (options.maxCost !== undefined) return undefined; // within --max-cost (checked above): the caller set its own limit
  if (!ctx.interactive || ctx.io.stdout.isTTY !== true) {
    const refused = `the estimate is ${counted(estimate, 'coin')}, at or above confirm-above (${formatCount(confirmAbove.value)}), and ${noPromptWhy(ctx)}`;
    // A resumed job may have tasks from earlier runs: only this run sent nothing (the words of its question, below).
    if (resuming)
      throw new UsageError(
        `${refused}; nothing more was sent by this run (--max-cost ${estimate} would allow up to that much)`,
        `Continue it with: ${resumeCommand({ ...resuming, yes: true })}`,
      );
    throw new UsageError(
      `${refused}; nothing was created`,
      `Pass --yes to ${verb.toLowerCase()} it anyway, or --max-cost ${estimate} to allow up to that much.`,
    );
  }
  // The person deciding sees what it leaves them with (one GET /balance, only when asking); never a negative balance.
  const balance = await api.getBalance();
  refuseAboveBalance(batches, balance, { resuming });
  const count = batches.reduce((sum, b) => sum + b.count, 0);
  const [only] = batches;
  const what =
    batches.length === 1 && only
      ? `${only.service} for ${counted(count, 'item')}`
      : `${counted(count, 'item')} (${batches.map((b) => `${b.service}: ${formatCount(b.count)}`).join(', ')})`;
  const { confirm } = await import('../../output/prompt.js');
  const answer = await confirm(
    ctx.io.stdin,
    ctx.io.stderr,
    `${verb} ${what}: ${formatCount(estimate)} ${balance.currency} (balance ${formatCount(balance.balance)} → ${formatCount(balance.balance - estimate)})?`,
    { signal: ctx.signal },
  );
  if (answer === 'yes') return balance;
  // A resumed job may have chunks created (or in doubt) by earlier runs: only this run sent nothing.
  if (resuming) {
    const words = 'nothing was sent by this run; the job is still unfinished';
    const next = `Continue it with: ${resumeCommand(resuming)}`;
    if (answer === 'interrupted') throw new InterruptedError(`cancelled at the confirmation; ${words}`, next);
    throw new DeclinedError(`${answer === 'closed' ? 'No answer (the input ended): n' : 'N'}${words.slice(1)}.`, next);
  }
  if (answer === 'interrupted') throw new InterruptedError('cancelled at the confirmation; nothing was created');
  throw new DeclinedError(
    answer === 'closed' ? 'No answer (the input ended): nothing was created.' : 'Nothing was created.',
    `The question comes from ${formatCount(confirmAbove.value)} ${balance.currency} up (the confirm-above setting); to go ahead without it: ${sameWithYes(ctx.typed)}`,
  );
}

/** A command as typed this long is not repeated in a hint (a list of items on the command line). */
const TYPED_MAX = 200;

/** The command as typed with `--yes`, whole when it is short enough to read and copy. */
function sameWithYes(typed: readonly string[]): string {
  const command = `taskctl ${[...typed, '--yes'].map(shellWord).join(' ')}`;
  return command.length <= TYPED_MAX ? command : 'the same command with --yes';
}

/** How a stream that is not a terminal is taken, for a person at one who redirected it. */
const REDIRECTED = { stdin: 'items piped in, or a file', stdout: 'a pipe or a file', stderr: 'a pipe or a file' };

/**
 * Why no question can be asked: CI and --no-input are choices, and say so (the terminal may well be there); at a
 * terminal with a stream redirected (`cat items | taskctl create …`), which one.
 */
function noPromptWhy(ctx: Prompts & Service & Output): string {
  if (ctx.globals.ci === true) return '--ci is given (no question is asked)';
  if (ctx.ci) return 'CI is set in the environment (no question is asked)';
  if (!ctx.globals.input) return '--no-input is given';
  const streams = (['stdin', 'stdout', 'stderr'] as const).filter((name) => ctx.io[name].isTTY !== true);
  const [only] = streams;
  if (streams.length === 3 || only === undefined) return 'there is no terminal to confirm on';
  if (streams.length === 1) return `${only} is not a terminal (${REDIRECTED[only]}), so no question can be asked`;
  return `${streams.join(' and ')} are not terminals, so no question can be asked`;
}

/** What the batches cost together, in coins (by the service's prices). */
export function totalEstimate(batches: readonly PricedBatch[]): number {
  return batches.reduce((sum, b) => sum + b.estimate, 0);
}

/**
 * The guard before the first POST of a run: the balance, read once (started by the first create beside its snapshot,
 * so it costs no wait of its own), must cover the estimate. A balance that cannot be read in time lets the create go
 * on: the service still refuses what it cannot charge. A job of more than one chunk left to send is warned first that
 * it may stop part-way, and how it is continued (docs/behaviour.md#the-balance). A read cut by Ctrl-C is no failure:
 * no warning, the interruption goes on. `job.kept`: whether the job is kept whatever this run does (an earlier run sent
 * part of it); only then does the warning name it, as a job of which no request leaves is not kept.
 */
export function balanceGuard(
  ctx: Output & Pick<Process, 'signal'>,
  api: ApiClient,
  batches: readonly PricedBatch[],
  known: Balance | undefined,
  job: UnreadFor,
): () => Promise<void> {
  let check: Promise<void> | undefined;
  return () => {
    check ??= (async () => {
      const balance =
        known ??
        (await api
          .withBudget(BALANCE_BUDGET_MS)
          .getBalance()
          .catch((error: unknown) => {
            if (ctx.signal.aborted) throw error;
            warnUnreadBalance(ctx, batches, error, job);
            return undefined;
          }));
      if (balance) refuseAboveBalance(batches, balance, { resuming: job?.kept() === true ? job : undefined });
    })();
    return check;
  };
}

/** The job a run sends, if any, and whether it is kept whatever this run does. */
type UnreadFor = (JobRef & { kept: () => boolean }) | undefined;

/** Said once, before the first POST, when there is more than one chunk to send and the balance is unknown. */
function warnUnreadBalance(ctx: Output, batches: readonly PricedBatch[], error: unknown, job: UnreadFor): void {
  const chunks = batches.reduce((sum, b) => sum + b.tasks, 0);
  if (chunks < 2) return;
  // The request's own words start with what it was doing (the label api-errors.ts gives it): said once here.
  const doing = `${requestLabel('GET /balance')}: `;
  const message = error instanceof CliError ? error.message : undefined;
  const why = message === undefined ? '' : ` (${message.startsWith(doing) ? message.slice(doing.length) : message})`;
  // A job not kept yet may never be (nothing sent): its message, once it stops part-way, names the command.
  const next =
    job === undefined
      ? ''
      : job.kept()
        ? `; continue it then with: ${resumeCommand(job)}`
        : ', and its message then says how to continue it';
  ctx.printer.warn(
    `the balance could not be read${why}, so the ${formatCount(chunks)} chunks are sent without checking it: the job may stop part-way when the balance runs out${next}`,
  );
}

/**
 * Exit 6 when the balance does not cover the estimate, naming both and what the balance would cover. `resuming`: a job
 * that earlier runs sent part of: this run sent nothing more, its items are the job's own (sending fewer is no way on),
 * and the next step after topping up is its resume.
 */
export function refuseAboveBalance(
  batches: readonly PricedBatch[],
  balance: Balance,
  how: { prefix?: string; resuming?: JobRef | undefined } = {},
): void {
  const estimate = totalEstimate(batches);
  if (estimate <= balance.balance) return;
  const { prefix = '', resuming } = how;
  const covers = whatFits(batches, balance);
  throw new BalanceError(
    `${prefix}the estimate is ${formatCount(estimate)} ${balance.currency}, above the balance of ${formatCount(balance.balance)}; ${resuming ? 'nothing more was sent by this run' : 'nothing was created'}`,
    resuming
      ? `${covers} Top up the balance, then continue it: ${resumeCommand(resuming)}`
      : `${covers} Top up the balance, or send fewer items.`,
    covers,
  );
}

/** What the balance covers, in the order the items would be sent: items, and whole chunks when chunked. */
function whatFits(batches: readonly PricedBatch[], balance: Balance): string {
  let left = Math.max(0, balance.balance);
  let items = 0;
  let chunks = 0;
  let chunked = false;
  const total = batches.reduce((sum, b) => sum + b.count, 0);
  for (const batch of batches) {
    const affordable = batch.price > 0 ? Math.min(batch.count, Math.floor(left / batch.price)) : batch.count;
    items += affordable;
    left -= affordable * batch.price;
    chunked ||= batch.tasks > 1;
    chunks += Math.floor(affordable / batch.size);
    if (affordable < batch.count) break;
  }
  const whole = chunked ? ` (${counted(chunks, 'whole chunk')} of ${formatCount(batches[0]?.size ?? 0)})` : '';
  return `The balance covers ${formatCount(items)} of the ${counted(total, 'item')}${whole}.`;
}
