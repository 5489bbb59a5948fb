/**
 * Numbers as taskctl prints them: the one number format. A person reads `65,536` (thousands separators,
 * whatever the locale, so logs and tests agree); a script reads plain digits (`65536`), which every tool parses.
 */
import { thousands } from '../lib/thousands.js';

/** `65,536`: counts and amounts in messages and terminal tables. */
export function formatCount(count: number): string {
  // Whole numbers (nearly every count) without Intl (lib/thousands.ts says why).
  if (Number.isSafeInteger(count) && !Object.is(count, -0)) return thousands(count);
  return count.toLocaleString('en-US');
}

/** A number as shown in data: separated for a person (`human`), plain digits for a script. */
export function formatNumber(value: number, human: boolean): string {
  return human ? formatCount(value) : String(value);
}
