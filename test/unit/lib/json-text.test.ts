import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactJsonText, scalarTextAt } from '../../../src/lib/json-text.js';

const BIG = '1152921504606846977';

describe('scalarTextAt', () => {
  it('gives the text of a scalar at a path of keys, as sent (a number JSON.parse would round keeps its digits)', () => {
    const text = '{"event":"completed","task":{"service":"a","id": 1152921504606846977 ,"n":[1,{"id":2}]}}';
    expect(scalarTextAt(text, ['task', 'id'])).toBe('1152921504606846977');
    expect(scalarTextAt(text, ['event'])).toBe('"completed"');
    expect(scalarTextAt(text, ['task', 'missing'])).toBeUndefined();
    expect(scalarTextAt(text, ['task'])).toBeUndefined(); // an object, not a scalar
  });

  it('reads as JSON.parse does: the last of repeated keys wins, ids elsewhere are not taken, escaped keys match', () => {
    expect(scalarTextAt('{"other":{"id":1},"task":{"id":2,"id":3}}', ['task', 'id'])).toBe('3');
    expect(scalarTextAt('{"task":{"id":2},"task":{"x":1}}', ['task', 'id'])).toBeUndefined();
    expect(scalarTextAt('{"task":{"i\\u0064":1.5e18}}', ['task', 'id'])).toBe('1.5e18');
    expect(scalarTextAt('{"task":{"x":"\\"id\\":9","id":4}}', ['task', 'id'])).toBe('4');
    expect(scalarTextAt('[{"task":{"id":1}}]', ['task', 'id'])).toBeUndefined();
  });

  it('is undefined for text that is not JSON', () => {
    expect(scalarTextAt('{"task":{"id":', ['task', 'id'])).toBeUndefined();
    expect(scalarTextAt('nope', ['task', 'id'])).toBeUndefined();
  });

  it('matches keys written with any escape, and only the key itself', () => {
    const keys = `{"task":{"i\\"d":1,"id\\\\":2,"\\u0069\\u0064":${BIG},"x":"\\"id\\":3"}}`;
    expect(scalarTextAt(keys, ['task', 'id'])).toBe(BIG);
    expect(scalarTextAt(keys, ['task', 'i"d'])).toBe('1');
    expect(scalarTextAt(keys, ['task', 'id\\'])).toBe('2');
    expect(scalarTextAt('{"event":"a\\"b\\u00e9"}', ['event'])).toBe('"a\\"b\\u00e9"');
  });

  it('reads the id next to numbers with exponents, and an exponent as written', () => {
    const text = ` \n{"task":{"a":1E+400,"id":${BIG},"b":-2.5e-7,"c":-0}}\r\n `;
    expect(scalarTextAt(text, ['task', 'id'])).toBe(BIG);
    expect(scalarTextAt(text, ['task', 'a'])).toBe('1E+400');
    expect(scalarTextAt(text, ['task', 'b'])).toBe('-2.5e-7');
    expect(scalarTextAt(text, ['task', 'c'])).toBe('-0');
  });

  it('is undefined for a truncated or malformed document, a leading BOM (JSON.parse refuses it) and a container', () => {
    for (const text of [
      '',
      `{"task":{"id":${BIG}`,
      `{"task":{"id":${BIG}}`,
      `{"task":{"id":01}}`,
      `{"task":{"id":1.}}`,
      `{"task":{"id" ${BIG}}}`,
      `\uFEFF{"task":{"id":${BIG}}}`,
      `{"task":{"id":5,"id":[1]}}`,
    ])
      expect(scalarTextAt(text, ['task', 'id']), text).toBeUndefined();
  });

  it('agrees with JSON.parse: undefined where it refuses the text (trailing text, a bad escape), else the value it reads', () => {
    const insertion = fc.constantFrom('', ',', ']', '}', '"', '\\', ':', 'x', '\u0001', ' ');
    const id = fc.oneof(fc.json(), fc.constantFrom(BIG, '-1.5E+18', '"7"'));
    const event = fc.tuple(id, fc.json()).map(([value, rest]) => `{"task":{"x":${rest},"id":${value}},"y":${rest}}`);
    const mutated = fc.tuple(event, fc.nat(), insertion).map(([text, at, insert]) => {
      const cut = at % (text.length + 1);
      return text.slice(0, cut) + insert + text.slice(cut);
    });
    fc.assert(
      fc.property(fc.oneof(event, mutated), (text) => {
        let parsed: unknown;
        try {
          parsed = (JSON.parse(text) as { task?: { id?: unknown } }).task?.id;
        } catch {
          parsed = undefined;
        }
        const found = scalarTextAt(text, ['task', 'id']);
        if (parsed === undefined || (typeof parsed === 'object' && parsed !== null)) expect(found).toBeUndefined();
        else expect(JSON.parse(found ?? 'undefined')).toEqual(parsed);
      }),
      { numRuns: 200 },
    );
  });

  it('reads past nesting of any depth without recursion', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(scalarTextAt(`{"x":${deep},"task":{"id":${BIG}}}`, ['task', 'id'])).toBe(BIG);
    expect(scalarTextAt(`{"task":{"id":${BIG},"x":${deep.slice(0, -1)}}}`, ['task', 'id'])).toBeUndefined();
  });
});

describe('compactJsonText', () => {
  it('drops the whitespace between tokens and keeps every token as written', () => {
    expect(compactJsonText('{\n  "a": 1152921504606846977,\r\n  "b": "x y\\n"\n}\n')).toBe(
      '{"a":1152921504606846977,"b":"x y\\n"}',
    );
  });

  it('keeps white space inside strings and keys, past escaped quotes and backslashes', () => {
    expect(compactJsonText('{ "a" : "x\\" y\\\\" , "b\\n c":[ 1e5 ,\ttrue ] }')).toBe(
      '{"a":"x\\" y\\\\","b\\n c":[1e5,true]}',
    );
  });

  it('leaves the text from a string that never ends as it is', () => {
    expect(compactJsonText('{ "a" : "x y')).toBe('{"a":"x y');
  });
});
