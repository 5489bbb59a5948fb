import { describe, expect, it } from 'vitest';
import { DEDUPE_MINIMUM_MS, RecentKeys } from '../../../src/webhook/recent-keys.js';

describe('RecentKeys (the duplicate filter)', () => {
  it('remembers a key for the window, then forgets it', () => {
    let t = 0;
    const keys = new RecentKeys(() => t, 10, 60 * 60_000);
    expect(keys.add('7:completed')).toBe('added');
    t += 59 * 60_000;
    expect(keys.add('7:completed')).toBe('seen');
    t += 2 * 60_000;
    expect(keys.has('7:completed')).toBe(false);
    expect(keys.add('7:completed')).toBe('added');
  });

  it('is bounded: makes room by forgetting keys older than 30 minutes, never younger ones (then it is full)', () => {
    let t = 0;
    const keys = new RecentKeys(() => t, 3);
    for (const k of ['a', 'b', 'c']) expect(keys.add(k)).toBe('added');
    t += DEDUPE_MINIMUM_MS - 1;
    expect(keys.isFull()).toBe(true);
    expect(keys.add('d')).toBe('full');
    expect(keys.has('a')).toBe(true);
    t += 1;
    expect(keys.isFull()).toBe(false);
    expect(keys.add('d')).toBe('added');
    expect(keys.has('a')).toBe(false);
    expect(keys.size).toBe(3);
  });
});
