/** Byte sizes in messages: the one formatter, exact rather than rounded, since limits are round numbers. */
import { formatCount } from './numbers.js';

const UNITS = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
] as const;

/** `8 MiB`, `64 KiB`, `1 GiB` for exact multiples; anything else in bytes, grouped as every count is (`1,500 bytes`), so no figure is rounded. */
export function formatBytes(bytes: number): string {
  for (const [size, unit] of UNITS) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${formatCount(bytes)} bytes`;
}

/** A size still growing (an answer coming in), in whole units rounded down: `37 bytes`, `12 KiB`, `60 MiB`. */
export function roundedBytes(bytes: number): string {
  for (const [size, unit] of UNITS) if (bytes >= size) return `${formatCount(Math.floor(bytes / size))} ${unit}`;
  return `${formatCount(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
}
