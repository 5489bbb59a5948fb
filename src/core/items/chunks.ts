import { UsageError } from '../../errors.js';

/** Splits items into consecutive chunks of `chunkSize` (the last may be shorter), order kept; one task per chunk. */
export function planChunks<T>(items: readonly T[], chunkSize: number): T[][] {
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new UsageError(
      `chunk size must be a whole number ≥ 1, got ${chunkSize}`,
      'Use a chunk size of 1 or more items.',
    );
  }
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += chunkSize) chunks.push(items.slice(start, start + chunkSize));
  return chunks;
}
