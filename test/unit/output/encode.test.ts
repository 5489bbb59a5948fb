import { describe, expect, it } from 'vitest';
import { csvField, jsonText, toSnakeKey, tsvField } from '../../../src/output/encode.js';

describe('csvField', () => {
  it('leaves plain fields alone and quotes fields with commas, quotes or line breaks', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('line1\r\nline2')).toBe('"line1\nline2"');
    expect(csvField('')).toBe('');
  });

  it('neutralises terminal controls inside fields', () => {
    expect(csvField('\x1b[31mx')).toBe('\\x1b[31mx');
    expect(csvField('cr\ronly')).toBe('cr\\ronly');
  });
});

describe('tsvField', () => {
  it('replaces tabs and line breaks with spaces and neutralises the rest', () => {
    expect(tsvField('a\tb\nc\rd')).toBe('a b c d');
    expect(tsvField('\x1b[0m\u202e')).toBe('\\x1b[0m\\u202e');
  });
});

describe('toSnakeKey', () => {
  it('derives csv keys from headers', () => {
    expect(toSnakeKey('ID')).toBe('id');
    expect(toSnakeKey('Created At')).toBe('created_at');
    expect(toSnakeKey('createdAt')).toBe('created_at');
    expect(toSnakeKey('Cost (coins)')).toBe('cost_coins');
    expect(toSnakeKey('items/s')).toBe('items_s');
  });
});

describe('jsonText', () => {
  it('escapes DEL, C1 and bidi controls that JSON.stringify leaves raw, and stays parseable', () => {
    const value = { s: 'a\u009bb\u202ec\x7fd\x1b' };
    const text = jsonText(value, false, (s) => s);
    expect(text).toBe('{"s":"a\\u009bb\\u202ec\\u007fd\\u001b"}');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('applies the filter and prints undefined as null', () => {
    expect(jsonText({ k: 'secret' }, true, (s) => s.replace('secret', '[REDACTED]'))).toBe('{\n  "k": "[REDACTED]"\n}');
    expect(jsonText(undefined, true, (s) => s)).toBe('null');
  });
});

describe('jsonText depth bound', () => {
  const nested = (levels: number, leaf: unknown = 'x'): unknown => {
    let value = leaf;
    for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
    return value;
  };

  it('keeps 512 levels of containers and cuts the 513th with a marker, whatever the mix of lists and objects', () => {
    for (const leaf of ['x', { last: 1 }]) {
      const kept = nested(leaf === 'x' ? 512 : 511, leaf);
      expect(jsonText(kept, false, (text) => text)).toBe(JSON.stringify(kept));
      const cut = jsonText(nested(leaf === 'x' ? 513 : 512, leaf), false, (text) => text);
      expect(cut).toContain('"…"');
      expect(cut).not.toContain(leaf === 'x' ? '"x"' : '"last"');
    }
  });

  it('leaves a shallow value as it is, and counts only own fields', () => {
    const shallow = Object.assign(Object.create({ inherited: nested(600) }) as object, { id: 1, tags: ['a'] });
    expect(jsonText(shallow, false, (text) => text)).toBe('{"id":1,"tags":["a"]}');
  });
});
