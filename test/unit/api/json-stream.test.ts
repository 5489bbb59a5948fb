/** The streaming JSON reader of large answers: the same value as JSON.parse, whatever the chunking. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { streamJson } from '../../../src/api/json-stream.js';

function parse(text: string, size: number, batch?: number) {
  const stream = streamJson(batch);
  for (let i = 0; i < text.length; i += size) stream.push(text.slice(i, i + size));
  return stream.end();
}

describe('streamJson', () => {
  it('gives what JSON.parse gives for any JSON value, split into chunks of any size', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (value, size, pretty) => {
          const text = JSON.stringify(value, null, pretty ? 2 : undefined);
          const result = parse(text, size);
          expect(result.ok).toBe(true);
          if (result.ok) expect(JSON.stringify(result.value)).toBe(JSON.stringify(JSON.parse(text)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads a task with items and a list of tasks, with strings holding brackets, commas and escapes', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({
      target: `a${i}],{"x`,
      status: 'completed',
      data: { t: '\\"[' },
    }));
    const body = { success: true, data: { id: 1, items, nested: [[1, [2]], { a: [] }] } };
    for (const size of [1, 3, 64, 100_000])
      expect(parse(JSON.stringify(body), size)).toEqual({ ok: true, value: body });
    const list = { success: true, data: [{ id: 1 }, { id: 2, items: [] }], meta: { total_pages: 1 } };
    expect(parse(JSON.stringify(list, null, 2), 5)).toEqual({ ok: true, value: list });
  });

  it.each([
    ['{"a":[1,2}', 'invalid'],
    ['{"a":[1,,2]}', 'invalid'],
    ['{"a":[1 2]}', 'invalid'],
    ['{"a":[{"b":1},]}', 'invalid'],
    ['[1,2]]', 'invalid'],
    ['{"a":[1,', 'invalid'],
    ['{"a":"x', 'invalid'],
    ['   ', 'empty'],
  ])('refuses %s (%s), as JSON.parse does, whatever the batches', (text, why) => {
    expect(parse(text, 3)).toMatchObject({ ok: false, why });
    expect(parse(text, 2, 1)).toMatchObject({ ok: false, why });
    expect(() => JSON.parse(text)).toThrow();
  });

  it('marks a body cut off mid-way as truncated, and refuses nesting past 256 levels while reading', () => {
    expect(parse('{"success":true,"data":{"items":[{"a":1},{"b"', 4)).toMatchObject({ ok: false, truncated: true });
    expect(parse(`{"a":${'['.repeat(1000)}`, 100)).toEqual({ ok: false, why: 'too deep' });
  });

  it('refuses more objects and arrays than its bound, in split arrays or not, and says so before the end', () => {
    const count = (text: string, limit: number) => {
      const stream = streamJson(8, limit);
      for (let i = 0; i < text.length; i += 5) stream.push(text.slice(i, i + 5));
      return { refused: stream.refused(), end: stream.end() };
    };
    // Nine containers: the envelope, data, the split items array, three items, each with its result.
    const body = '{"data":{"items":[{"r":{}},{"r":{}},{"r":[]}]},"s":"{[{[{["}';
    expect(count(body, 9)).toMatchObject({ refused: undefined, end: { ok: true } });
    expect(count(body, 8)).toEqual({ refused: 'too large', end: { ok: false, why: 'too large' } });
    // In one value that is not split (an item's result): counted all the same.
    expect(count('[1,{"r":[[],[],[]]}]', 5)).toEqual({ refused: 'too large', end: { ok: false, why: 'too large' } });
    expect(count('{"a":[[[[1]]]]', 99).refused).toBeUndefined();
  });

  it('never takes a server-sent object for one of its markers', () => {
    const body = { success: true, data: { items: [{ '0': 0 }], x: { k: 0 } } };
    expect(parse(JSON.stringify(body), 2)).toEqual({ ok: true, value: body });
  });
});
