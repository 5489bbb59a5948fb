/** The next step after a failed write of taskctl's own files, chosen by the cause (src/store/write-advice.ts). */
import { describe, expect, it } from 'vitest';
import { writeAdvice, writeCause } from '../../../src/store/write-advice.js';

const failure = (code: string) => Object.assign(new Error(`${code}: failed, open`), { code });
const ELSEWHERE = 'set TASKCTL_CONFIG_DIR to another directory';

describe('writeCause', () => {
  it.each([
    ['ENOSPC', 'full'],
    ['EDQUOT', 'full'],
    ['EACCES', 'permission'],
    ['EPERM', 'permission'],
    ['EROFS', 'read-only'],
    ['EIO', 'other'],
    ['ENOENT', 'other'],
  ])('%s is %s', (code, cause) => {
    expect(writeCause(failure(code))).toBe(cause);
    expect(writeCause(code)).toBe(cause);
    expect(writeCause({ code })).toBe(cause);
  });

  it('looks through a cause chain, and takes anything without a code as other', () => {
    expect(writeCause(new Error('wrapped', { cause: failure('ENOSPC') }))).toBe('full');
    expect(writeCause(new Error('no code'))).toBe('other');
    expect(writeCause(undefined)).toBe('other');
    expect(writeCause({ code: 42 })).toBe('other');
  });
});

describe('writeAdvice', () => {
  it('a full disk or quota: free space there, or the other place', () => {
    for (const code of ['ENOSPC', 'EDQUOT'])
      expect(writeAdvice(failure(code), ELSEWHERE)).toBe(
        'Free space there, or set TASKCTL_CONFIG_DIR to another directory.',
      );
  });

  it('no permission: the directory permissions, or the other place', () => {
    for (const code of ['EACCES', 'EPERM'])
      expect(writeAdvice(failure(code), ELSEWHERE)).toBe(
        'Check the directory permissions, or set TASKCTL_CONFIG_DIR to another directory.',
      );
  });

  it('a read-only file system: the other place alone (no permission fixes it)', () => {
    expect(writeAdvice(failure('EROFS'), ELSEWHERE)).toBe(
      'Its file system is read-only: set TASKCTL_CONFIG_DIR to another directory.',
    );
  });

  it("any other cause: the caller's advice, else the disk and the permissions", () => {
    expect(writeAdvice(failure('EIO'), ELSEWHERE)).toBe(
      'Check the disk and the directory permissions, or set TASKCTL_CONFIG_DIR to another directory.',
    );
    expect(writeAdvice({ code: 'ENOTDIR' }, ELSEWHERE, 'Set TASKCTL_CONFIG_DIR to a directory.')).toBe(
      'Set TASKCTL_CONFIG_DIR to a directory.',
    );
  });
});
