/** Price per item of a service, for the estimate, --max-cost and the confirmation. */
import type { ApiClient } from '../../api/client.js';
import type { Service } from '../../api/schemas.js';
import type { Store } from '../capabilities.js';
import { NotFoundError } from '../../errors.js';
import { neutralise } from '../../lib/sanitize.js';

/** Prices are fetched with GET /services and reused for this long (one request saved per create in a loop). */
const PRICE_CACHE_MS = 5 * 60_000;

/**
 * Price per item, from GET /services or, when the price only informs (no --max-cost, no prompt), a short-lived local
 * cache. Unknown service → exit 5 before anything is sent.
 */
export async function pricePerItem(
  ctx: Pick<Store, 'cache'>,
  api: ApiClient,
  service: string,
  guardsMoney: boolean,
): Promise<number> {
  const cached = guardsMoney ? undefined : ctx.cache.freshPrices(PRICE_CACHE_MS, api.baseUrl);
  if (cached?.[service] !== undefined) return cached[service];
  const services: Service[] = await api.listServices();
  ctx.cache.rememberServices(services, api.baseUrl);
  const found = services.find((s) => s.service === service);
  if (!found) {
    const close = services
      .map((s) => s.service)
      .filter((name) => name.includes(service) || service.includes(name.split('_')[0] ?? name));
    throw new NotFoundError(
      `unknown service "${neutralise(service)}"`,
      close.length > 0
        ? `Did you mean ${close.join(', ')}? See \`taskctl services\`.`
        : 'See `taskctl services` for the list.',
    );
  }
  return found.pricing;
}
