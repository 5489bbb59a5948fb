import { describe, expect, it } from 'vitest';
import { plainCommandWord } from '../../../src/boot/plain-command.js';

describe('plainCommandWord: which runs boot.ts starts from dist/plain.cjs and main runs without commander', () => {
  it('a plain command typed alone', () => {
    expect(plainCommandWord(['balance'])).toBe('balance');
  });

  it('not with flags, help, other words or nothing (those need commander, so dist/taskctl.cjs)', () => {
    for (const argv of [
      ['balance', '-o', 'json'],
      ['balance', '--help'],
      ['-q', 'balance'],
      ['services'],
      ['help'],
      [],
    ])
      expect(plainCommandWord(argv), argv.join(' ')).toBeUndefined();
  });
});
