import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../src/output/bytes.js';

describe('formatBytes', () => {
  it('names exact multiples in the largest binary unit and everything else in bytes, grouped by thousands', () => {
    expect(formatBytes(8 * 1024 * 1024)).toBe('8 MiB');
    expect(formatBytes(1024 ** 3)).toBe('1 GiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3 GiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(1536 * 1024)).toBe('1536 KiB');
    expect(formatBytes(1500)).toBe('1,500 bytes');
    expect(formatBytes(127_952)).toBe('127,952 bytes');
    expect(formatBytes(0)).toBe('0 bytes');
  });
});
