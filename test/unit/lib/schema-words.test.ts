import { describe, expect, it } from 'vitest';
import { typeWords } from '../../../src/lib/schema-words.js';

describe('typeWords', () => {
  it('names what came instead, once', () => {
    expect(typeWords('number', 'x')).toBe('should be a number, not a string');
    expect(typeWords('string', undefined)).toBe('missing (should be a string)');
  });

  it('says a number JSON could not hold is not finite, without "not not"', () => {
    // 1e400 in JSON reads as Infinity.
    expect(typeWords('number', Infinity)).toBe('should be a finite number, not Infinity');
    expect(typeWords('number', -Infinity)).toBe('should be a finite number, not -Infinity');
    expect(typeWords('int', Number.NaN)).toBe('should be a finite number, not NaN');
  });
});
