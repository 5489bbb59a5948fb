import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { readRegularFile, readRegularPieces, writeFileAtomicSync } from '../../../src/store/atomic-file.js';
import { chmodFails, withFailingFs } from './failing-fs.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomicSync', () => {
  it('refuses to write more than maxBytes (a file it would not read back), keeping the old content', () => {
    const path = join(dir, 'config.json');
    writeFileAtomicSync(path, 'old', 0o600, { maxBytes: 10 });
    expect(() => {
      writeFileAtomicSync(path, 'é'.repeat(6), 0o600, { maxBytes: 10 }); // 12 bytes in UTF-8
    }).toThrow(/would be 12 bytes, more than the 10 taskctl reads back; nothing was written/);
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('replaces the file whole with the given mode, leaving no temp file', () => {
    const path = join(dir, 'f.json');
    writeFileSync(path, 'old');
    writeFileAtomicSync(path, 'new', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('removes its temp file when the replace fails, and says why', () => {
    const path = join(dir, 'taken');
    mkdirSync(path);
    writeFileSync(join(path, 'x'), '');
    expect(() => writeFileAtomicSync(path, 'data')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('writes on a file system that keeps no modes (its chmod refused): the umask only ever removed bits', () => {
    const path = join(dir, 'f.json');
    withFailingFs(chmodFails('EPERM'), () => {
      writeFileAtomicSync(path, 'new', 0o600);
    });
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o077).toBe(0);
    expect(readdirSync(dir)).toEqual(['f.json']);
  });

  it('replaces a symlink at the path instead of writing through it', () => {
    const target = join(dir, 'target');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(dir, 'link'));
    writeFileAtomicSync(join(dir, 'link'), 'mine');
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(join(dir, 'link')).isFile()).toBe(true);
  });
});

describe('readRegularPieces', () => {
  it('reads a file to its end in pieces no larger than the file, even one that grows while it is read', () => {
    const path = join(dir, 'f');
    const start = 'a'.repeat(40_000);
    writeFileSync(path, start);
    const pieces: number[] = [];
    const read: Buffer[] = [];
    const done = readRegularPieces(path, { what: 'test file' }, (piece) => {
      if (pieces.length === 0) appendFileSync(path, 'b'.repeat(100_000));
      pieces.push(piece.length);
      read.push(Buffer.from(piece));
      return true;
    });
    expect(done).toBe(true);
    expect(Buffer.concat(read).toString()).toBe(start + 'b'.repeat(100_000));
    // The buffer is sized by the file when it was opened (40,001 bytes), not a MiB.
    expect(Math.max(...pieces)).toBe(40_001);
    expect(readRegularPieces(join(dir, 'absent'), { what: 'test file' }, () => true)).toBe(false);
  });
});

describe('readRegularFile', () => {
  it('reads a regular file, undefined when absent, refuses one above its size cap', () => {
    const path = join(dir, 'f');
    expect(readRegularFile(path, { what: 'test file' })).toBeUndefined();
    writeFileSync(path, 'hello');
    expect(readRegularFile(path, { what: 'test file' })).toBe('hello');
    expect(() => readRegularFile(path, { what: 'test file', maxBytes: 4 })).toThrow(
      /is 5 bytes, more than the 4 taskctl reads$/,
    );
  });

  it.each([
    ['readFileSync', 'EIO', 'an input/output error'],
    ['readFileSync', 'EISDIR', 'it is a directory'],
    ['fstatSync', 'EIO', 'an input/output error'],
    ['readFileSync', 'ENOSYS', 'an unexpected system error'],
  ])(
    'a read that fails once the file is open (%s: %s) is a usage error in words naming the file',
    (call, code, words) => {
      const path = join(dir, 'f');
      writeFileSync(path, 'hello');
      let thrown: unknown;
      withFailingFs(
        (name) => (name === call ? code : undefined),
        () => {
          try {
            readRegularFile(path, { what: 'test file' });
          } catch (error) {
            thrown = error;
          }
        },
      );
      expect(thrown).toBeInstanceOf(UsageError);
      expect(thrown).toMatchObject({
        message: `cannot read the test file ${path}: ${words}`,
        hint: 'Check the file and the disk it is on, then try again.',
      });
      expect((thrown as Error).message).not.toContain(code);
    },
  );

  it.each(['EROFS', 'EPERM', 'EACCES', 'ENOSYS', 'EIO'])(
    'reads a looser file it cannot tighten (%s) as it is, and says why instead of tightening',
    (code) => {
      const path = join(dir, 'f');
      writeFileSync(path, 'hello', { mode: 0o644 });
      chmodSync(path, 0o644);
      const seen: string[] = [];
      const text = withFailingFs(chmodFails(code), () =>
        readRegularFile(path, {
          what: 'test file',
          tightenTo: 0o600,
          onTightened: () => seen.push('tightened'),
          onNotTightened: (mode, error) => seen.push(`${mode.toString(8)} ${(error as NodeJS.ErrnoException).code}`),
        }),
      );
      expect(text).toBe('hello');
      expect(seen).toEqual([`644 ${code}`]);
      expect(statSync(path).mode & 0o777).toBe(0o644);
    },
  );
});
