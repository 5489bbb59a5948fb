import fc from 'fast-check';
import { codePointString } from '../../../code-points.js';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../../../src/errors.js';
import { readItems } from '../../../../src/core/items/index.js';
import type { ItemFormat } from '../../../../src/core/items/index.js';
import { streamOf } from './item-sources.js';

// Bytes that exercise the interesting paths: BOMs, line ends, quotes, JSON punctuation, multi-byte starts, NUL.
const interestingByte = fc.constantFrom(
  ...[0x00, 0x09, 0x0a, 0x0d, 0x20, 0x22, 0x23, 0x2c, 0x2e, 0x5b, 0x5d, 0x61, 0x7b, 0x7d],
  ...[0x80, 0x8b, 0xa0, 0xbb, 0xbf, 0xc2, 0xe2, 0xef, 0xfe, 0xff],
);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc.array(interestingByte, { maxLength: 200 }).map((values) => Uint8Array.from(values)),
  codePointString({ maxLength: 80 }).map((text) => new Uint8Array(Buffer.from(text, 'utf8'))),
);
const format = fc.constantFrom<ItemFormat>('lines', 'json', 'ndjson', 'csv');
const column = fc.option(fc.constantFrom('a', 'domain', '__proto__'), { nil: undefined });
const cuts = fc.array(fc.nat(), { maxLength: 6 });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Splits bytes into chunks at the given cut points, so chunk boundaries land everywhere. */
function chunked(data: Uint8Array, at: number[]): Buffer[] {
  const points = [...new Set(at.map((cut) => cut % (data.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of [...points, data.length]) {
    chunks.push(Buffer.from(data.subarray(start, point)));
    start = point;
  }
  return chunks;
}

/** The items read, or the error's message: either way a value to compare. */
async function outcome(chunks: Buffer[]): Promise<string[] | string> {
  return readItems([{ kind: 'stdin', stream: streamOf(chunks) }]).then(
    (result) => result.items,
    (error: unknown) => (error as Error).message,
  );
}

describe('readItems on arbitrary bytes (property)', () => {
  it('only ever throws InputError or UsageError, and every item is trimmed, non-empty text', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, cuts, format, column, async (data, at, fmt, col) => {
        const stream = streamOf(chunked(data, at));
        let items: string[];
        try {
          ({ items } = await readItems([{ kind: 'stdin', stream }], {
            format: fmt,
            ...(col !== undefined && { column: col }),
            maxLineLength: 100,
          }));
        } catch (error) {
          if (!(error instanceof InputError || error instanceof UsageError)) throw error;
          expect(error.message.length).toBeGreaterThan(0);
          return;
        }
        expect(items.length).toBeGreaterThan(0);
        // The items that break a rule, gathered and compared once (not five expect() calls an item).
        const broken = items.filter(
          (item) =>
            typeof item !== 'string' ||
            item.length === 0 ||
            /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/.test(item) ||
            /^[\s\u200B-\u200D\u2060\uFEFF]|[\s\u200B-\u200D\u2060\uFEFF]$/.test(item) ||
            LONE_SURROGATE.test(item),
        );
        expect(broken).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it('reads the same items however the input is chunked', async () => {
    const line = fc.oneof(
      fc.constantFrom('a.com', ' b.com ', '# c', '', 'münchen.de', '😀.ws', '\u00a0d.com'),
      fc.string({ maxLength: 8 }),
    );
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 20 }), ending, cuts, async (lines, eol, at) => {
        const data = new Uint8Array(Buffer.from(lines.join(eol), 'utf8'));
        expect(await outcome(chunked(data, at))).toEqual(await outcome([Buffer.from(data)]));
      }),
      { numRuns: 500 },
    );
  });
});
