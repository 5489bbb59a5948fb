/** `--dry-run`: the estimate per service against the balance; nothing is sent. */
import type { ApiClient } from '../../api/client.js';
import type { Output, Service } from '../capabilities.js';
import { idsOnly } from '../quiet.js';
import { refuseAboveBalance, totalEstimate } from './confirm.js';
import type { NormalisedItems } from '../items/index.js';
import type { PricedBatch } from './types.js';

type DryRunContext = Pick<Output, 'printer'> & Pick<Service, 'globals'>;

/**
 * -q alone: the estimate in coins, a bare number (of every service together, a retry's), for `$(…)`; whether it was
 * printed (then nothing else is).
 */
function quietEstimate(ctx: DryRunContext, coins: number): boolean {
  if (!idsOnly(ctx.globals)) return false;
  ctx.printer.line(String(coins));
  return true;
}

/** A dry run with nothing to price (a retry with nothing left to retry): with -q alone its estimate, 0, all the same. */
export function dryRunOfNothing(ctx: DryRunContext): void {
  quietEstimate(ctx, 0);
}

export async function dryRun(
  ctx: DryRunContext,
  api: ApiClient,
  batches: readonly PricedBatch[],
  normalised: NormalisedItems | undefined,
): Promise<void> {
  const balance = await api.getBalance();
  let after = balance.balance;
  const results = batches.map((batch) => {
    after -= batch.estimate;
    return {
      service: batch.service,
      items: batch.list.count,
      tasks: batch.tasks,
      price_per_item: batch.price,
      estimate: batch.estimate,
      balance: balance.balance,
      balance_after: after,
      currency: balance.currency,
      // Always a column, so that one parser reads every dry run: 0 where items are sent as given (a retry sends them
      // as recorded; --no-validate as written).
      normalised: normalised?.count ?? 0,
    };
  });
  // JSON keeps the original text of the first few normalised items ({item, sent}); the count says how many in all.
  const documentOf = (result: (typeof results)[number]) => ({
    ...result,
    normalised_examples: normalised?.first ?? [],
  });
  if (!quietEstimate(ctx, totalEstimate(batches))) {
    // Several services (a retry): -o json is one array, not several documents, each with a single service's keys.
    if (results.length > 1 && ctx.printer.format === 'json') ctx.printer.json(results.map(documentOf));
    else for (const result of results) ctx.printer.detail(Object.entries(result), documentOf(result));
  }
  refuseAboveBalance(batches, balance, { prefix: 'dry run: ' });
  ctx.printer.info('dry run: nothing was created');
}
