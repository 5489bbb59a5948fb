/**
 * The one guarded "make this directory": a path under /proc, through a dangling symlink or under a file ends at once
 * with the component and what is wrong with it (Node's recursive mkdir spins forever on the first). It is synchronous
 * and never sleeps: "at once" is that it returns its answer at all, not a timing (timing lives in `npm run bench`).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeDirectoryProblem, makeDirectory } from '../../../src/store/make-dir.js';
import { withFailingFs, writesFailUnder } from './failing-fs.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'taskctl-make-dir-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('makes every missing component, private, and is content with one that exists', () => {
    const path = join(base, 'a', 'b', 'c');
    expect(makeDirectory(path)).toBeUndefined();
    expect(statSync(path).isDirectory()).toBe(true);
    expect(statSync(join(base, 'a')).mode & 0o777).toBe(0o700);
    expect(makeDirectory(path)).toBeUndefined();
  });

  it('follows a symlink to a directory', () => {
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    expect(makeDirectory(join(base, 'link', 'x'))).toBeUndefined();
    expect(statSync(join(base, 'real', 'x')).isDirectory()).toBe(true);
  });

  it('ends at once under /proc, naming the component that cannot be made', { timeout: 2_000 }, () => {
    for (const path of ['/proc/nope/c', '/proc/nope/x.d', '/proc/self/nope/deeper']) {
      const problem = makeDirectory(path);
      expect(problem?.path).toBe(path);
      expect(problem && describeDirectoryProblem(problem)).toMatch(/^\/proc\/\S+ cannot be made: its file system/);
    }
  });

  it('ends at once through a dangling symlink', { timeout: 2_000 }, () => {
    symlinkSync(join(base, 'missing'), join(base, 'dangling'));
    const problem = makeDirectory(join(base, 'dangling', 'c', 'd'));
    expect(problem).toEqual({
      path: join(base, 'dangling', 'c', 'd'),
      at: join(base, 'dangling'),
      reason: 'is a symlink to nothing (dangling)',
    });
  });

  it('ends at once under a file, and when the path itself is a file', { timeout: 2_000 }, () => {
    writeFileSync(join(base, 'file'), 'x');
    expect(makeDirectory(join(base, 'file', 'c'))).toMatchObject({
      at: join(base, 'file'),
      reason: 'is a file, not a directory',
    });
    expect(makeDirectory(join(base, 'file'))?.reason).toBe('is a file, not a directory');
  });

  it('names a looping symlink', { timeout: 2_000 }, () => {
    symlinkSync(join(base, 'loop'), join(base, 'loop'));
    expect(makeDirectory(join(base, 'loop', 'c'))?.reason).toBe('is a symlink that loops');
  });

  it.each([
    ['ENOSPC', 'cannot be made: the disk is full'],
    ['EROFS', 'cannot be made: the file system is read-only'],
  ])('a mkdir failing with %s keeps its code, for the advice (write-advice.ts)', (code, reason) => {
    const path = join(base, 'a', 'b');
    expect(withFailingFs(writesFailUnder(base, code), () => makeDirectory(path))).toEqual({
      path,
      at: join(base, 'a'),
      reason,
      code,
    });
  });
});
