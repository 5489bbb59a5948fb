/**
 * The comparison of `taskctl diff`: two sides sorted alike walked together (a merge join). Items are matched by
 * target exactly; a target repeated within a side pairs in order, as (target, n). An item on one side only is one
 * change with field `item`; a matched pair is compared field by field over the chosen fields (text equality of the
 * comparable values of values.ts, a missing value being "no value").
 */
import { compareKeys, itemFields, itemTarget, itemTask, sameBytes, type ItemCursor, type SortedItem } from './sort.js';
import { parseJsonExact } from '../../lib/exact-json.js';
import { comparable } from './values.js';

export interface Change {
  target: string;
  /** A compared field, or `item` for an item on one side only. */
  field: string;
  /** The values as canonical JSON (undefined: no value); both undefined for `item`. */
  before: string | undefined;
  after: string | undefined;
  beforeTask: number | null;
  afterTask: number | null;
  /** For `item`: the item is only in the second side (added) or only in the first (removed). */
  kind?: 'added' | 'removed';
}

/** Counts over the union of targets, for the summary. */
export class DiffTally {
  /** (target, n) pairs on either side. */
  items = 0;
  /** Pairs with at least one change (added and removed included). */
  changed = 0;
  added = 0;
  removed = 0;
  /** `field` → count of items whose boolean went false → true (`up`) or true → false (`down`). */
  readonly flips = new Map<string, { up: number; down: number }>();
  /** `field` → count of items whose value changed otherwise. */
  readonly fieldChanges = new Map<string, number>();

  count(change: Change): void {
    if (change.kind === 'added') this.added++;
    else if (change.kind === 'removed') this.removed++;
    else {
      const from = truth(change.before);
      const to = truth(change.after);
      if (from !== undefined && to !== undefined && from !== to) {
        const flip = this.flips.get(change.field) ?? { up: 0, down: 0 };
        if (to) flip.up++;
        else flip.down++;
        this.flips.set(change.field, flip);
      } else this.fieldChanges.set(change.field, (this.fieldChanges.get(change.field) ?? 0) + 1);
    }
  }
}

/**
 * A compared value's truth when it is a boolean: its JSON (`true`), or, compared as csv text, the `"true"` a csv cell of
 * a boolean holds (show -o csv writes one so); undefined for any other value.
 */
function truth(text: string | undefined): boolean | undefined {
  if (text === 'true' || text === '"true"') return true;
  if (text === 'false' || text === '"false"') return false;
  return undefined;
}

/** Pairs (checked between) that run without giving Ctrl-C a chance: the walk yields to the event loop this often. */
const YIELD_EVERY = 20_000;

export interface WalkOptions {
  fields: readonly string[];
  tally: DiffTally;
  /** Every change, in the sides' order. */
  emit: (change: Change) => void;
  /** Awaited every YIELD_EVERY pairs: throws to stop (Ctrl-C). */
  pause: () => Promise<void>;
}

/** Walks both sides in their shared order (sort.ts), emitting every change. */
export async function walkSides(a: ItemCursor, b: ItemCursor, options: WalkOptions): Promise<void> {
  let sinceYield = 0;
  let left = a.next();
  let right = b.next();
  for (;;) {
    const key = left === undefined || (right !== undefined && compareKeys(right, left) < 0) ? right : left;
    if (key === undefined) return;
    // A target's repeats pair in order as both sides are read, (target, n) with (target, n): nothing is held per
    // target, however often it repeats. `key` stays valid meanwhile: a target's items are in one partition (sort.ts).
    for (;;) {
      const before = left !== undefined && compareKeys(left, key) === 0 ? left : undefined;
      const after = right !== undefined && compareKeys(right, key) === 0 ? right : undefined;
      if (before === undefined && after === undefined) break;
      comparePair(before, after, options);
      if (before !== undefined) left = a.next();
      if (after !== undefined) right = b.next();
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await options.pause();
      }
    }
  }
}

/** One (target, n) pair: a whole item added or removed, or its changed fields. */
function comparePair(
  before: SortedItem | undefined,
  after: SortedItem | undefined,
  options: Pick<WalkOptions, 'fields' | 'tally' | 'emit'>,
): void {
  const { tally, emit } = options;
  tally.items++;
  if (before === undefined || after === undefined) {
    const item = before ?? after;
    if (item === undefined) return;
    const change: Change = {
      target: itemTarget(item),
      field: 'item',
      before: undefined,
      after: undefined,
      beforeTask: before === undefined ? null : itemTask(before),
      afterTask: after === undefined ? null : itemTask(after),
      kind: before === undefined ? 'added' : 'removed',
    };
    tally.changed++;
    tally.count(change);
    emit(change);
    return;
  }
  // Most pairs are the same item unchanged: the same fields text, nothing to parse.
  if (sameBytes(before.buf, before.fieldsStart, before.end, after.buf, after.fieldsStart, after.end)) return;
  const target = itemTarget(before);
  const beforeTask = itemTask(before);
  const afterTask = itemTask(after);
  const was = parseJsonExact(itemFields(before)) as Record<string, unknown>;
  const now = parseJsonExact(itemFields(after)) as Record<string, unknown>;
  let changed = false;
  for (const field of options.fields) {
    const from = comparable(was, field);
    const to = comparable(now, field);
    if (from === to) continue;
    const change: Change = { target, field, before: from, after: to, beforeTask, afterTask };
    changed = true;
    tally.count(change);
    emit(change);
  }
  if (changed) tally.changed++;
}
