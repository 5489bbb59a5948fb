/** The money gates before anything is sent: --max-cost, then the confirmation above the confirm-above setting. */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../context.js';
import { BalanceError, DeclinedError, InterruptedError } from '../../errors.js';
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
  if (options.yes || !ctx.interactive || estimate < confirmAbove.value) return;
  // The person deciding sees what it leaves them with (one GET /balance, only when asking).
  const balance = await api.getBalance();
  const count = batches.reduce((sum, b) => sum + b.items.length, 0);
  const [only] = batches;
  const what =
    batches.length === 1 && only
      ? `${only.service} for ${counted(count, 'item')}`
      : `${counted(count, 'item')} (${batches.map((b) => `${b.service}: ${formatCount(b.items.length)}`).join(', ')})`;
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
    answer === 'closed' ? 'no answer (the input ended); nothing was created' : 'declined; nothing was created',
    '--yes skips the question; the confirm-above setting sets when it is asked.',
  );
}
