/**
 * The journal file's locks: `FILE.lock` beside it, held while it is open, whoever opens it; a journal removed between
 * its open and its locks (by `jobs --prune`, which takes them to remove an empty journal) is opened again, so its
 * records never go to a file no one can find.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalFile } from '../../../src/store/journal-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-journal-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('JournalFile.open', () => {
  it('holds FILE.lock while open, and a second open is refused naming the holder', () => {
    const path = join(dir, 'job.jsonl');
    const file = JournalFile.open(path, () => undefined);
    expect(existsSync(`${path}.lock`)).toBe(true);
    expect(() => JournalFile.open(path, () => undefined)).toThrow(
      new RegExp(`in use by another taskctl \\(process ${process.pid} on `),
    );
    file.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('close(whileLocked): what it runs (removing the journal) is done before the locks go, so no run can take them first', () => {
    const path = join(dir, 'job.jsonl');
    const file = JournalFile.open(path, () => undefined);
    let refused = '';
    file.close(() => {
      try {
        JournalFile.open(path, () => undefined).close();
      } catch (error) {
        refused = (error as Error).message;
      }
    });
    expect(refused).toMatch(/in use by another taskctl/);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a journal removed between its open and its locks is opened again: records go to the file at the path', () => {
    const path = join(dir, 'job.jsonl');
    let opens = 0;
    const file = JournalFile.open(path, () => {
      if (++opens === 1) rmSync(path); // what a prune of an empty journal does under its locks
      return undefined;
    });
    file.append({ type: 'job', id: 'j-m5xunpc0abcd' });
    file.close();
    expect(opens).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{"type":"job","id":"j-m5xunpc0abcd"}\n');
  });
});
