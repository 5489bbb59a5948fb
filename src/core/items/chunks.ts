import { UsageError } from '../../errors.js';

/** Splits items into consecutive chunks of `chunkSize` (the last may be shorter), order kept; one task per chunk. */
export function planChunks<T>(items: readonly T[], chunkSize: number): T[][] {
  checkChunkSize(chunkSize);
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += chunkSize) chunks.push(items.slice(start, start + chunkSize));
  return chunks;
}

/** Items to send, by count and in chunks: an array in memory, or streamed items (`PreparedItems`). */
export interface ItemList {
  count: number;
  /** Repeats of earlier items left out of the list (`PreparedItems`); none when absent. */
  duplicates?: number;
  /** Invalid items left out of the list (`--skip-invalid`); none when absent. */
  invalidCount?: number;
  /** The items `size` at a time, from chunk `skip` (0-based) on. */
  chunks: (size: number, skip?: number) => Iterable<string[]>;
}

/** An array as an `ItemList`. */
export function itemList(items: readonly string[]): ItemList {
  return { count: items.length, chunks: (size, skip = 0) => planChunks(items, size).slice(skip) };
}

/** How many chunks of `size` hold `count` items (a bad size is a usage error). */
export function chunkCount(count: number, size: number): number {
  checkChunkSize(size);
  return Math.ceil(count / size);
}

function checkChunkSize(chunkSize: number): void {
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new UsageError(
      `chunk size must be a whole number ≥ 1, got ${chunkSize}`,
      'Use a chunk size of 1 or more items.',
    );
  }
}
