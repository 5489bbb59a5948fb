import { InputError } from '../../errors.js';
import { findControl, trimItem } from './clean.js';
import { charWords } from '../../lib/sanitize.js';
import type { ItemCollector } from './collector.js';
import type { LineHandler } from './lines.js';
import type { ItemFormat } from './types.js';
import { formatCount } from '../../output/numbers.js';

/** What every format parser needs: where items go, how they are named in errors, and the limits. */
export interface FormatContext {
  /** File path as given, or `stdin`. */
  name: string;
  column: string | undefined;
  /** ReadItemsOptions.isItem. */
  isItem?: ((text: string) => boolean) | undefined;
  maxLineLength: number;
  collector: ItemCollector;
}

/** `.json` → json, `.ndjson`/`.jsonl` → ndjson, `.csv` → csv, anything else → lines (case-insensitive). */
export function formatFromPath(path: string): ItemFormat {
  const dot = path.lastIndexOf('.');
  const ext = dot === -1 ? '' : path.slice(dot + 1).toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  return 'lines';
}

/**
 * Collects one item already trimmed of edge whitespace: blanks are skipped; control characters and over-long items are
 * rejected with the item's position.
 */
export function addItem(ctx: FormatContext, item: string, position: number): void {
  if (item.length === 0) return;
  const bad = findControl(item);
  if (bad !== -1) {
    const code = item.charCodeAt(bad);
    throw new InputError(
      `${ctx.collector.describe(position)}: control character ${charWords(code)} inside an item`,
      code === 0x09
        ? 'Tabs do not separate items: put one item per line (or use --format csv for comma-separated files).'
        : 'Items must be plain text: remove the character. Is this the right file?',
    );
  }
  if (item.length > ctx.maxLineLength) {
    throw new InputError(
      `${ctx.collector.describe(position)}: item is longer than ${formatCount(ctx.maxLineLength)} characters`,
      'Items are short strings such as domains. Is this the right file or column?',
    );
  }
  ctx.collector.add(item, position);
}

/** `lines`: one item per line; blank lines and lines starting with `#` (after trimming) are skipped. */
export function linesHandler(ctx: FormatContext): LineHandler {
  return (line, lineNo) => {
    const item = trimItem(line);
    if (item.length === 0 || item.charCodeAt(0) === 0x23 /* # */) return;
    addItem(ctx, item, lineNo);
  };
}
