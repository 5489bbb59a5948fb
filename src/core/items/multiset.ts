/**
 * An order-independent digest of a list of items (a multiset): the sum, modulo 2^128, of each item's 128-bit hash
 * (hash128.ts). The same items in any order give the same digest, and a repeated item counts each time, so a task whose
 * items the service returns in another order still matches the chunk it was sent for (the service's item order is not
 * specified). 32 hex digits.
 */
import { hash128 } from './hash128.js';

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
