/**
 * One rule per service for its items, shared by the client (checked before money is spent) and the sandbox (which
 * answers 422 for items sent with `--no-validate`): a service's kind is read from its id's prefix.
 */
import type { Checked } from './checked.js';
import { checkDomain } from './domain.js';
import { checkEmail } from './email.js';
import { checkFanPage } from './fanpage.js';

type ItemKind = 'domain' | 'fanpage' | 'email' | 'any';

/** `domain_*` → domain, `fanpage_*` → fanpage, `email_*` → email; any other service accepts any non-empty item. */
function itemKindOf(service: string): ItemKind {
  if (service.startsWith('domain_')) return 'domain';
  if (service.startsWith('fanpage_')) return 'fanpage';
  if (service.startsWith('email_')) return 'email';
  return 'any';
}

const acceptAny = (item: string): Checked =>
  item.length > 0 ? { ok: true, value: item } : { ok: false, reason: 'empty' };

const CHECKS: Record<ItemKind, (item: string) => Checked> = {
  domain: checkDomain,
  fanpage: checkFanPage,
  email: checkEmail,
  any: acceptAny,
};

/** Whether `service`'s items have a shape of their own (a hostname, an address, a page): any text is not one. */
export function itemsHaveShape(service: string): boolean {
  return itemKindOf(service) !== 'any';
}

/** The check (and normalisation) of one item of `service`. */
export function itemChecker(service: string): (item: string) => Checked {
  return CHECKS[itemKindOf(service)];
}
