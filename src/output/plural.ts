/** A count with its noun in the right number (the one pluraliser; regular English plurals only). */
import { formatCount } from './numbers.js';

/** `item` / `items` for `count`. */
function plural(count: number, noun: string): string {
  return count === 1 ? noun : `${noun}s`;
}

/** `1 item`, `1,200 items`, `0 failed tasks`. */
export function counted(count: number, noun: string): string {
  return `${formatCount(count)} ${plural(count, noun)}`;
}
