import { describe, expect, it } from 'vitest';
import { CreationTimes } from '../../../../src/core/follow/creation-times.js';
import { parseTimestamp } from '../../../../src/lib/timestamp.js';
import { T0 } from '../../../clock.js';

const text = (i: number) => new Date(T0 + i * 1000).toISOString();

describe("a watch's parsed creation times", () => {
  it('reads a text as parseTimestamp does, again from memory, and keeps no text that is not a time', () => {
    const times = new CreationTimes();
    expect(times.of(text(1))).toBe(parseTimestamp(text(1)));
    expect(times.of(text(1))).toBe(T0 + 1000);
    expect(times.of('2025-01-15T12:00:00')).toBeUndefined(); // no zone: not a time
    expect(times.size).toBe(1);
  });

  it('keeps at most its limit, however many texts come, and still reads each right', () => {
    const times = new CreationTimes(2000);
    const misread: number[] = [];
    let most = 0;
    for (let i = 0; i < 5000; i++) {
      if (times.of(text(i)) !== T0 + i * 1000) misread.push(i);
      most = Math.max(most, times.size);
    }
    expect(misread).toEqual([]);
    expect(most).toBe(2000);
  });
});
