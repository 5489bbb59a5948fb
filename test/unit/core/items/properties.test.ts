import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliError, InputError, UsageError } from '../../../../src/errors.js';
import { readItems } from '../../../../src/core/items/index.js';
import type { ItemFormat } from '../../../../src/core/items/index.js';
import { streamOf } from './helpers.js';

// Bytes that exercise the interesting paths: BOMs, line ends, quotes, JSON punctuation, multi-byte starts, NUL.
const interestingByte = fc.constantFrom(0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x23, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x61, 0x2e, 0xa0, 0xc2, 0xe2, 0x80, 0x8b, 0xef, 0xbb, 0xbf, 0xfe, 0xff);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.array(interestingByte, { maxLength: 200 }).map((values) => Uint8Array.from(values)),
  fc.string({ unit: 'binary', maxLength: 80 }).map((text) => new Uint8Array(Buffer.from(text, 'utf8'))),
);
const format = fc.constantFrom<ItemFormat>('lines', 'json', 'ndjson', 'csv');

/** Splits bytes into chunks at the given cut points, so chunk boundaries land everywhere. */
function chunked(data: Uint8Array, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (data.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of [...points, data.length]) {
    chunks.push(Buffer.from(data.subarray(start, point)));
    start = point;
  }
  return chunks;
}

describe('readItems on arbitrary bytes (property)', () => {
  it('only ever throws InputError or UsageError, and every item is trimmed, non-empty text', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, fc.array(fc.nat(), { maxLength: 5 }), format, fc.option(fc.constantFrom('a', 'domain', '__proto__'), { nil: undefined }), async (data, cuts, fmt, column) => {
        let items: string[];
        try {
          ({ items } = await readItems([{ kind: 'stdin', stream: streamOf(chunked(data, cuts)) }], { format: fmt, column, maxLineLength: 100 }));
        } catch (error) {
          if (!(error instanceof InputError || error instanceof UsageError)) throw error;
          expect((error as CliError).message.length).toBeGreaterThan(0);
          return;
        }
        expect(items.length).toBeGreaterThan(0);
        for (const item of items) {
          expect(typeof item).toBe('string');
          expect(item.length).toBeGreaterThan(0);
          expect(item).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]/);
          expect(item).not.toMatch(/^[\s\u200B-\u200D\u2060\uFEFF]|[\s\u200B-\u200D\u2060\uFEFF]$/);
          expect(item).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/); // no lone surrogates
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('reads the same items however the input is chunked', async () => {
    const text = fc.array(fc.oneof(fc.constantFrom('a.com', ' b.com ', '# c', '', 'münchen.de', '😀.ws', '\u00a0d.com'), fc.string({ maxLength: 8 })), { maxLength: 20 });
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(text, ending, fc.array(fc.nat(), { maxLength: 6 }), async (lines, eol, cuts) => {
        const data = new Uint8Array(Buffer.from(lines.join(eol), 'utf8'));
        const whole = await readItems([{ kind: 'stdin', stream: streamOf([data]) }]).then((r) => r.items, (e: unknown) => (e as Error).message);
        const pieces = await readItems([{ kind: 'stdin', stream: streamOf(chunked(data, cuts)) }]).then((r) => r.items, (e: unknown) => (e as Error).message);
        expect(pieces).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });
});
