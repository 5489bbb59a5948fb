import { describe, expect, it } from 'vitest';
import { BURST, RequestBucket, SUSTAINED_PER_MINUTE } from '../../../../src/core/follow/bucket.js';

describe('RequestBucket', () => {
  it('lets a burst go at once, then paces rounds at the sustained rate', () => {
    const bucket = new RequestBucket(0);
    for (let i = 0; i < BURST; i++) {
      expect(bucket.readyAt(0)).toBe(0);
      bucket.spend(0);
    }
    expect(bucket.readyAt(0)).toBeCloseTo(60_000 / SUSTAINED_PER_MINUTE);
  });

  it('a round of three waits until three tokens are back, so rounds come apart', () => {
    const bucket = new RequestBucket(0);
    for (let i = 0; i < 3; i++) bucket.spend(0);
    expect(bucket.readyAt(0, 3)).toBeCloseTo((2 * 60_000) / SUSTAINED_PER_MINUTE);
    expect(bucket.readyAt(0, 1)).toBe(0);
  });

  it('never holds more than the burst, however long it was idle', () => {
    const bucket = new RequestBucket(0);
    expect(bucket.readyAt(3_600_000, 100)).toBeCloseTo(3_600_000);
    for (let i = 0; i < BURST + 1; i++) bucket.spend(3_600_000);
    expect(bucket.readyAt(3_600_000)).toBeGreaterThan(3_600_000);
  });
});
