import { itemChecker } from '../../lib/items/rules.js';
import { formatCount } from '../../output/numbers.js';
import { quoteForMessage } from '../../lib/sanitize.js';

export interface InvalidItem {
  /** The item as read (trimmed). */
  item: string;
  /** Why it is invalid, with a hint where one helps. */
  reason: string;
  /** Where it came from: `items.txt:12`, `argument 2`, ... */
  where: string;
}

export interface ValidationResult {
  /** Normalised valid items, in input order (duplicates kept; see `dedupeItems`). */
  valid: string[];
  /** Every invalid item, in input order. */
  invalid: InvalidItem[];
  /** Valid items that normalisation changed (case, punycode, trailing dot): a count and the first few. */
  normalised: NormalisedItems;
}

/** Bounded even for a million items: the count, and the first `NORMALISED_EXAMPLES` as read and as sent. */
export interface NormalisedItems {
  count: number;
  first: Array<{ item: string; sent: string }>;
}

export const NORMALISED_EXAMPLES = 5;

/**
 * Checks and normalises items for `service`. Domain services get hostname rules (lower case, punycode); fan-page
 * services get page names or facebook.com URLs; e-mail services NAME@DOMAIN; other services accept any non-empty item
 * unchanged, since nothing is known about them (lib/items/rules.ts). `where` names an item's position (default `item N`).
 */
export function validateItems(
  service: string,
  items: readonly string[],
  where: (index: number) => string = (index) => `item ${index + 1}`,
): ValidationResult {
  const check = itemChecker(service);
  const valid: string[] = [];
  const invalid: InvalidItem[] = [];
  const normalised: NormalisedItems = { count: 0, first: [] };
  for (let index = 0; index < items.length; index++) {
    const item = items[index] ?? ''; // index < items.length
    const checked = check(item);
    if (checked.ok) {
      valid.push(checked.value);
      if (checked.value !== item) {
        normalised.count += 1;
        if (normalised.first.length < NORMALISED_EXAMPLES) normalised.first.push({ item, sent: checked.value });
      }
    } else invalid.push({ item, reason: checked.reason, where: where(index) });
  }
  return { valid, invalid, normalised };
}

/** How many invalid items are named in a report; the rest are counted. */
export const INVALID_SHOWN = 20;

/**
 * Lines for the first `limit` invalid items, then a count of the rest: `items.txt:3: "http://a.com": a URL, …`.
 * `total` is how many there were, when only the first few were kept.
 */
export function formatInvalidReport(
  invalid: readonly InvalidItem[],
  limit = INVALID_SHOWN,
  total = invalid.length,
): string[] {
  const shown = invalid.slice(0, Math.max(0, limit));
  const lines = shown.map(({ item, reason, where }) => `${where}: ${quoteForMessage(item)}: ${reason}`);
  const rest = total - shown.length;
  if (rest > 0) lines.push(`… and ${formatCount(rest)} more invalid item${rest === 1 ? '' : 's'}`);
  return lines;
}
