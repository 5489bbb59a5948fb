/** The sort's byte comparison: UTF-8 bytes ordered as the UTF-16 strings they encode (JavaScript's `<`). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf16 } from '../../../../src/core/diff/sort.js';

const sign = (n: number) => Math.sign(n);

describe('compareUtf16', () => {
  it('orders two texts as their strings compare, surrogate pairs against U+E000–U+FFFF included', () => {
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom('a', 'é', '\uE000', '\uFFFD', '\u{1F600}', '\u{10FFFF}'),
        fc.string({ unit: 'grapheme', maxLength: 1 }),
      ),
    });
    fc.assert(
      fc.property(text, text, (x, y) => {
        const a = Buffer.from(x);
        const b = Buffer.from(y);
        const expected = x < y ? -1 : x > y ? 1 : 0;
        expect(sign(compareUtf16(a, 0, a.length, b, 0, b.length))).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
