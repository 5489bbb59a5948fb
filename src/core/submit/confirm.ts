/**
 * The money gates before anything is sent: --max-cost, then the confirmation above the confirm-above setting.
 *
 * Money safety for scripts (as `gh` does): an estimate at or above confirm-above is asked about on a
 * terminal; without one to ask on (stdin or stdout not a terminal, CI, --no-input) it is refused with exit 2 and the
 * flag to pass, unless `--yes` is given or `--max-cost` covers the estimate (the script has set its own limit).
 * Chunked jobs are judged by their total. Declining is exit 13 with a calm message.
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../context.js';
import { BalanceError, DeclinedError, InterruptedError, UsageError } from '../../errors.js';
import { counted, formatCount } from '../items/clean.js';
import type { PricedBatch, SubmitOptions } from './types.js';

export async function confirmCost(
  ctx: Context,
  api: ApiClient,
  batches: readonly PricedBatch[],
  options: SubmitOptions,
  verb: string,
): Promise<void> {
  const estimate = batches.reduce((sum, b) => sum + b.estimate, 0);
  if (options.maxCost !== undefined && estimate > options.maxCost) {
    throw new BalanceError(
      `the estimate is ${counted(estimate, 'coin')}, above --max-cost ${formatCount(options.maxCost)}; nothing was created`,
      'Raise --max-cost, or send fewer items.',
    );
  }
  const { confirmAbove } = await ctx.settings();
  if (options.yes || estimate < confirmAbove.value) return;
  if (options.maxCost !== undefined) return; // within --max-cost (checked above): the caller set its own limit
  if (!ctx.interactive || ctx.io.stdout.isTTY !== true) {
    throw new UsageError(
      `the estimate is ${counted(estimate, 'coin')}, at or above confirm-above (${formatCount(confirmAbove.value)}), and there is no terminal to confirm on; nothing was created`,
      `Pass --yes to ${verb.toLowerCase()} it anyway, or --max-cost ${estimate} to allow up to that much.`,
    );
  }
  // The person deciding sees what it leaves them with (one GET /balance, only when asking).
  const balance = await api.getBalance();
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
  if (answer === 'yes') return;
  if (answer === 'interrupted') throw new InterruptedError('cancelled at the confirmation; nothing was created');
  throw new DeclinedError(
    answer === 'closed' ? 'No answer (the input ended): nothing was created.' : 'Nothing was created.',
    'To go ahead without the question: add --yes (the confirm-above setting sets when it is asked).',
  );
}
