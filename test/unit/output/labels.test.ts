import { describe, expect, it } from 'vitest';
import { humanLabel } from '../../../src/output/labels.js';

describe('humanLabel', () => {
  it('turns machine keys into labels for people', () => {
    expect(humanLabel('base_url_source')).toBe('Base URL source');
    expect(humanLabel('price_per_item')).toBe('Price per item');
    expect(humanLabel('balance_after')).toBe('Balance after');
    expect(humanLabel('id')).toBe('ID');
    expect(humanLabel('key_works')).toBe('Key works');
  });

  it('leaves labels already written for people alone', () => {
    expect(humanLabel('Created at')).toBe('Created at');
    expect(humanLabel('ETag')).toBe('ETag');
  });
});
