/**
 * Items as a multiset (the order of the service's items is not specified): an order-independent digest, and inclusion.
 *
 * The digest of a list of items: the sum, modulo 2^128, of each item's 128-bit hash
 * (hash128.ts). The same items in any order give the same digest, and a repeated item counts each time, so a task whose
 * items the service returns in another order still matches the chunk it was sent for (the service's item order is not
 * specified). 32 hex digits.
 */
import { hash128 } from './hash128.js';

/** Whether every item of `some` is one of `all`, as many times at most (a multiset inclusion). */
export function multisetWithin(some: readonly string[], all: readonly string[]): boolean {
  const left = new Map<string, number>();
  for (const item of all) left.set(item, (left.get(item) ?? 0) + 1);
  return some.every((item) => {
    const count = left.get(item) ?? 0;
    left.set(item, count - 1);
    return count > 0;
  });
}

export function itemsDigest(items: Iterable<string>): string {
  const sum = new Uint32Array(4);
  const one = new Uint32Array(4);
  for (const item of items) {
    hash128(item, one);
    let carry = 0;
    for (let word = 0; word < 4; word++) {
      const total = (sum[word] ?? 0) + (one[word] ?? 0) + carry;
      sum[word] = total >>> 0;
      carry = total > 0xffffffff ? 1 : 0;
    }
  }
  return Array.from(sum, (word) => word.toString(16).padStart(8, '0'))
    .reverse()
    .join('');
}
