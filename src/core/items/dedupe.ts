export interface DedupeResult {
  /** First occurrences, in input order. */
  unique: string[];
  /** How many items were dropped as repeats. */
  duplicates: number;
}

/** Drops repeated items, keeping each first occurrence in order. One Set, O(n). Run after validation, which normalises. */
export function dedupeItems(items: readonly string[]): DedupeResult {
  // A Set iterates in insertion order, so this keeps first occurrences.
  const unique = Array.from(new Set(items));
  return { unique, duplicates: items.length - unique.length };
}
