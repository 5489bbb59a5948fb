/** The chunk digest the `--job` commands verify with: the same items in any order agree; anything else differs. */
import { expect, it } from 'vitest';
import { itemsDigest, multisetWithin } from '../../../../src/core/items/multiset.js';

it('is the same for the same items in any order, and 32 hex digits', () => {
  const digest = itemsDigest(['a.com', 'b.com', 'c.com']);
  expect(digest).toMatch(/^[0-9a-f]{32}$/);
  expect(itemsDigest(['c.com', 'a.com', 'b.com'])).toBe(digest);
});

it('counts a repeated item each time, and tells other items apart', () => {
  const digest = itemsDigest(['a.com', 'b.com']);
  expect(itemsDigest(['a.com', 'a.com', 'b.com'])).not.toBe(digest);
  expect(itemsDigest(['a.com', 'x.com'])).not.toBe(digest);
  expect(itemsDigest(['a.com'])).not.toBe(digest);
  expect(itemsDigest([])).toBe('0'.repeat(32));
});

it('multisetWithin: each item of the first at most as many times as in the second, in any order', () => {
  expect(multisetWithin(['b', 'a'], ['a', 'b', 'c'])).toBe(true);
  expect(multisetWithin(['a', 'a'], ['a', 'b'])).toBe(false);
  expect(multisetWithin(['a', 'a'], ['a', 'b', 'a'])).toBe(true);
  expect(multisetWithin(['d'], ['a'])).toBe(false);
  expect(multisetWithin([], [])).toBe(true);
});
