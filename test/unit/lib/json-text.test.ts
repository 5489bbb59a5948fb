import { describe, expect, it } from 'vitest';
import { compactJsonText, scalarTextAt } from '../../../src/lib/json-text.js';

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
});

describe('compactJsonText', () => {
  it('drops the whitespace between tokens and keeps every token as written', () => {
    expect(compactJsonText('{\n  "a": 1152921504606846977,\r\n  "b": "x y\\n"\n}\n')).toBe(
      '{"a":1152921504606846977,"b":"x y\\n"}',
    );
  });
});
