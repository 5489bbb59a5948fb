import { charWords } from '../../lib/sanitize.js';
import { formatCount } from '../../output/numbers.js';
import { DEFAULT_LIMITS } from './types.js';
// C0 and C1 controls, DEL, and the Unicode line/paragraph separators: never part of an item (they break lines,
// terminals and the API's logs). Tabs and CRs only survive trimming when they sit inside an item.
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

/** Whitespace trimmed from item edges: JS `\s` (incl. NBSP, U+FEFF) plus the zero-width U+200B–U+200D and U+2060. */
function isEdgeSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200d) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x2060 ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Trims whitespace and zero-width characters from both ends. Plain ASCII edges (the common case) cost two reads. */
export function trimItem(raw: string): string {
  const n = raw.length;
  if (n === 0) return raw;
  const first = raw.charCodeAt(0);
  const last = raw.charCodeAt(n - 1);
  if (first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f) return raw;
  // Index scanning rather than a regex: `\s+$` backtracks quadratically over long inner runs of spaces.
  let start = 0;
  let end = n;
  while (start < end && isEdgeSpace(raw.charCodeAt(start))) start++;
  while (end > start && isEdgeSpace(raw.charCodeAt(end - 1))) end--;
  return start === 0 && end === n ? raw : raw.slice(start, end);
}

/** Index of the first control character in `text`, or -1. */
export function findControl(text: string): number {
  const match = CONTROL.exec(text);
  return match ? match.index : -1;
}

/**
 * Why `target` cannot be sent as an item as it stands, by the rules every item read meets (docs/commands.md#taskctl-create-service-items):
 * blank, a control character inside, or longer than the line cap; undefined when it can. For targets taken from the
 * service (retry), which were never read as input.
 */
export function unsendableItem(target: string): string | undefined {
  const item = trimItem(target);
  if (item.length === 0) return 'is blank';
  const bad = findControl(item);
  if (bad !== -1) return `holds control character ${charWords(item.charCodeAt(bad))}`;
  if (item.length > DEFAULT_LIMITS.maxLineLength)
    return `is longer than ${formatCount(DEFAULT_LIMITS.maxLineLength)} characters`;
  return undefined;
}
