/** The parser behind `diff`'s exact integers: JSON.parse's result for any JSON, integers past 2^53 by their digits. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../src/lib/exact-json.js';
import { ExactInteger } from '../../../src/lib/exact-json.js';
import { encodeJson } from '../../../src/output/encode.js';

describe('parseJsonExact', () => {
  it('reads any JSON as JSON.parse does (texts with long digit runs take the slow path)', () => {
    const long = fc.oneof(fc.jsonValue(), fc.constant('1234567890123456789'), fc.constant(1234567890123456));
    fc.assert(
      fc.property(fc.array(long), fc.constantFrom('', ' ', '\n  '), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(encodeJson(parseJsonExact(text))).toBe(JSON.stringify(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps integers past 2^53 as their digits, anywhere, and writes them back as written', () => {
    const text = '{"a":9007199254740993,"b":[-123456789012345678901,{"c":1e400}],"d":"12345678901234567","e":1.5}';
    const value = parseJsonExact(text) as { a: unknown; b: unknown[] };
    expect(value.a).toEqual(new ExactInteger('9007199254740993'));
    expect(encodeJson(value)).toBe(text.replace('1e400', 'null'));
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    const text = '{"page":"100012345678901234","q":"\\"12345678901234567890\\"","n":9007199254740991}';
    expect(parseJsonExact(text)).toEqual(JSON.parse(text));
  });

  it('is written as its digits by the encoders, and as the double it rounds to by any other JSON.stringify', () => {
    const value = parseJsonExact('{"n":9007199254740993}');
    expect(encodeJson(value)).toBe('{"n":9007199254740993}');
    // A journal line or a cache of a task the service sent: what JSON.parse would have read, never an exception.
    expect(JSON.stringify(value)).toBe('{"n":9007199254740992}');
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of [
      '[1,]',
      '{"a":1,}',
      '{"a" 1}',
      '[01234567890123456]',
      '"\\"',
      '[9007199254740993',
      '{}x',
      '"a\nb1234567890123456"',
    ])
      expect(() => parseJsonExact(bad), bad).toThrow(SyntaxError);
  });

  it('any depth', () => {
    const depth = 20_000;
    const text = `${'[{"a":'.repeat(depth)}12345678901234567890${'}]'.repeat(depth)}`;
    expect(encodeJson(parseJsonExact(text))).toBe(text);
  });
});
