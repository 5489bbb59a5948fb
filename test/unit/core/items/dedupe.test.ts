import fc from 'fast-check';
import { codePointString } from '../../../code-points.js';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/errors.js';
import { dedupeItems, planChunks } from '../../../../src/core/items/index.js';

describe('dedupeItems', () => {
  it('keeps first occurrences in order and counts the rest', () => {
    expect(dedupeItems(['b', 'a', 'b', 'c', 'a', 'b'])).toEqual({ unique: ['b', 'a', 'c'], duplicates: 3 });
    expect(dedupeItems([])).toEqual({ unique: [], duplicates: 0 });
  });

  it('matches a Set on large inputs with many repeats', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => `d${(i * 7919) % 20_011}.com`);
    const expected = Array.from(new Set(items));
    expect(dedupeItems(items)).toEqual({ unique: expected, duplicates: items.length - expected.length });
  });

  it('tells apart strings whose code units differ only outside ASCII', () => {
    const items = ['\ud83d\ude00', '\ud83d\ude01', 'é', 'e\u0301', '\ud83d\ude00', ''];
    expect(dedupeItems(items)).toEqual({ unique: ['\ud83d\ude00', '\ud83d\ude01', 'é', 'e\u0301', ''], duplicates: 1 });
  });

  it('is idempotent, order-preserving and counts exactly (property)', () => {
    const item = fc.oneof(fc.string({ maxLength: 3 }), codePointString({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 60 }), (items) => {
        const once = dedupeItems(items);
        expect(dedupeItems(once.unique)).toEqual({ unique: once.unique, duplicates: 0 });
        expect(once.unique.length + once.duplicates).toBe(items.length);
        expect(new Set(once.unique).size).toBe(once.unique.length);
        // First occurrences, in input order.
        expect(once.unique).toEqual(items.filter((item, index) => items.indexOf(item) === index));
      }),
    );
  });
});

describe('planChunks', () => {
  it('splits in order with a shorter last chunk', () => {
    expect(planChunks(['a', 'b', 'c', 'd', 'e'], 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(planChunks([], 3)).toEqual([]);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses chunk size %s as a usage error', (size) => {
    expect(() => planChunks(['a'], size)).toThrow(UsageError);
  });

  it('preserves order and sizes (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 200 }), fc.integer({ min: 1, max: 50 }), (items, size) => {
        const chunks = planChunks(items, size);
        expect(chunks.flat()).toEqual(items);
        expect(chunks.every((chunk) => chunk.length >= 1 && chunk.length <= size)).toBe(true);
        expect(chunks.slice(0, -1).every((chunk) => chunk.length === size)).toBe(true);
        expect(chunks.length).toBe(Math.ceil(items.length / size));
      }),
    );
  });
});
