import { describe, expect, it } from 'vitest';
import { MAX_JSON_CONTAINERS, MAX_JSON_DEPTH } from '../../../src/api/constants.js';
import { jsonBeyondBounds, jsonDepthExceeds, parseResponseJson } from '../../../src/api/response-json.js';

describe('parseResponseJson: bounded nesting, no recursion', () => {
  it('accepts nesting up to the limit and refuses one level more', () => {
    const at = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(parseResponseJson(at).ok).toBe(true);
    expect(parseResponseJson(`[${at}]`)).toEqual({ ok: false, why: 'too deep' });
  });

  it('refuses 1,000,000 levels without a stack overflow, closed or not', () => {
    const deep = '{"a":'.repeat(1_000_000);
    expect(parseResponseJson(`${deep}1${'}'.repeat(1_000_000)}`)).toEqual({ ok: false, why: 'too deep' });
    expect(parseResponseJson('['.repeat(1_000_000))).toEqual({ ok: false, why: 'too deep' });
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: '['.repeat(1000) + '\\"{{{' + '"'.repeat(3) });
    expect(jsonDepthExceeds(text, 2)).toBe(false);
    expect(parseResponseJson(text).ok).toBe(true);
  });

  it('refuses more objects and arrays than MAX_JSON_CONTAINERS, counting none inside strings', () => {
    const wide = (n: number) => `[${'{},'.repeat(n - 2)}[]]`; // n - 1 inside, one around them
    expect(parseResponseJson(wide(MAX_JSON_CONTAINERS)).ok).toBe(true);
    expect(parseResponseJson(wide(MAX_JSON_CONTAINERS + 1))).toEqual({ ok: false, why: 'too large' });
    expect(jsonBeyondBounds('["{{{{{{", {}]', 10, 2)).toBeUndefined();
    expect(jsonBeyondBounds('["{{{{{{", {}, []]', 10, 2)).toBe('too large');
    expect(jsonBeyondBounds('[[[]]]', 2, 10)).toBe('too deep');
  });

  it('tells empty and invalid bodies apart', () => {
    expect(parseResponseJson('  \n')).toEqual({ ok: false, why: 'empty' });
    expect(parseResponseJson('<html>')).toEqual({ ok: false, why: 'invalid' });
  });
});
