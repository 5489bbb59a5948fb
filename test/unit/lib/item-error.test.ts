/** An item's `error`, which the contract leaves unnamed, as text: whatever JSON value the service sent. */
import { describe, expect, it } from 'vitest';
import { errorText } from '../../../src/lib/item-error.js';

describe('errorText', () => {
  it('a string is itself; null or nothing is no error', () => {
    expect(errorText('Lookup failed')).toBe('Lookup failed');
    expect(errorText('')).toBe('');
    expect(errorText(null)).toBeUndefined();
    expect(errorText(undefined)).toBeUndefined();
  });

  it('an object is its message, else its code, else its compact JSON', () => {
    expect(errorText({ code: 'timeout', message: 'Lookup timed out' })).toBe('Lookup timed out');
    expect(errorText({ code: 'timeout', message: '' })).toBe('timeout');
    expect(errorText({ code: 'timeout' })).toBe('timeout');
    expect(errorText({ message: 5, detail: 'x' })).toBe('{"message":5,"detail":"x"}');
    expect(errorText({})).toBe('{}');
  });

  it('any other value is its compact JSON', () => {
    expect(errorText([1, 'two'])).toBe('[1,"two"]');
    expect(errorText(42)).toBe('42');
    expect(errorText(false)).toBe('false');
  });
});
