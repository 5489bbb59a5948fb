/**
 * The journal file's locks: `FILE.lock` beside it, held while it is open, whoever opens it; a journal removed between
 * its open and its locks (by `jobs --prune`, which takes them to remove an empty journal) is opened again, so its
 * records never go to a file no one can find. Its lines are read as bytes: a torn last line is cut exactly, and a line
 * that is not UTF-8 is a damaged line, whatever JSON its bytes would decode to. A journal with a second name (a hard
 * link, whose lock would be beside that name) is refused by a run, counted once its lock is held; read, it is a journal.
 */
import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  glanceJournal,
  JournalFile,
  journalHolds,
  journalIo,
  readJournalRecords,
} from '../../../src/store/journal-file.js';
import { tryLock } from '../../../src/store/lock-file.js';
import { thisOwner } from '../../../src/store/process-owner.js';
import { notRunningPid } from '../pids.js';
import { T0 } from '../../clock.js';

/** Every record of the journal at `path` (undefined: no such file); the product never holds them all. */
function readJournal(path: string): unknown[] | undefined {
  const records: unknown[] = [];
  return readJournalRecords(path, (record) => records.push(record)) ? records : undefined;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-journal-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('JournalFile.open', () => {
  it('something other than a lock file at either lock (here a directory): exit 2 naming it, and the journal it made goes', () => {
    const path = join(dir, 'job.jsonl');
    const idLock = join(dir, 'j-1.lock');
    mkdirSync(idLock);
    expect(() => JournalFile.open(path, () => idLock)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining(`the lock file ${idLock} is a directory`),
      }),
    );
    expect(readdirSync(dir)).toEqual(['j-1.lock']); // no empty journal, no FILE.lock
    mkdirSync(`${path}.lock`);
    expect(() => JournalFile.open(path, () => undefined)).toThrow(/the lock file .*job\.jsonl\.lock is a directory/);
    expect(readdirSync(dir).sort()).toEqual(['j-1.lock', 'job.jsonl.lock']);
  });

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

describe('JournalFile.append', () => {
  it('several records go in whole or not at all: a disk that fills part-way leaves none of them, and exit 14', () => {
    const path = join(dir, 'job.jsonl');
    const file = JournalFile.open(path, () => undefined);
    file.append({ type: 'job', id: 'j-1' });
    const before = readFileSync(path);
    const write = journalIo.write;
    let room = 10; // bytes the disk takes before it is full: the first record's line, cut
    journalIo.write = (fd, bytes, offset) => {
      if (room === 0) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      const written = write(fd, bytes.subarray(0, offset + Math.min(room, bytes.length - offset)), offset);
      room -= written;
      return written;
    };
    try {
      expect(() => file.append({ type: 'lost', chunk: 1, task: 1, created_at: 'x' }, { type: 'done' })).toThrow(
        expect.objectContaining({ exitCode: 14 }),
      );
    } finally {
      journalIo.write = write;
    }
    expect(readFileSync(path)).toEqual(before);
    file.append({ type: 'lost', chunk: 1, task: 1, created_at: 'x' }, { type: 'done' });
    file.close();
    expect(readJournal(path)).toEqual([
      { type: 'job', id: 'j-1' },
      { type: 'lost', chunk: 1, task: 1, created_at: 'x' },
      { type: 'done' },
    ]);
  });
});

describe('a journal with more than one name (hard links)', () => {
  const record = '{"type":"job","id":"j-m5xunpc0abcd"}\n';

  it('is refused before its records are read or anything written, its lock released; read, it is a journal', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, record);
    linkSync(path, join(dir, 'copy.jsonl'));
    let named = false;
    const open = () => JournalFile.open(path, () => ((named = true), undefined), true);
    expect(open).toThrow(/the journal .*job\.jsonl has 2 names \(hard links\)/);
    expect(named).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(record);
    expect(readJournal(path)).toEqual([JSON.parse(record)]);
  });

  it('a name linked between the open and the lock is counted: the count is read under the lock', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, record);
    const lock = journalIo.lock;
    journalIo.lock = (lockPath) => {
      linkSync(path, join(dir, 'copy.jsonl')); // a `cp -al` between this run's open and its lock
      return tryLock(lockPath);
    };
    try {
      expect(() => JournalFile.open(path, () => undefined, true)).toThrow(/has 2 names/);
    } finally {
      journalIo.lock = lock;
    }
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe('a journal renamed while a run holds it', () => {
  it('its lock records the file; a run through the new name in the same directory is refused naming the holder', () => {
    const path = join(dir, 'job.jsonl');
    const moved = join(dir, 'moved.jsonl');
    const file = JournalFile.open(path, () => undefined);
    const held = JSON.parse(readFileSync(`${path}.lock`, 'utf8')) as { pid: number; journal: { ino: string } };
    expect(held.pid).toBe(process.pid);
    expect(held.journal.ino).toMatch(/^\d+$/);
    renameSync(path, moved);
    expect(() => JournalFile.open(moved, () => undefined)).toThrow(
      `the job in ${moved} is in use by another taskctl (process ${process.pid} on this machine) through its earlier name ${path}`,
    );
    expect(existsSync(`${moved}.lock`)).toBe(false); // its own lock released again
    // The holder stops before its next request, naming the new name.
    expect(() => file.refuseIfMoved('chunk 3')).toThrow(
      `the journal ${path} was renamed or removed while this run held it: stopped before sending chunk 3`,
    );
    file.close();
    JournalFile.open(moved, () => undefined).close();
  });

  it('removed, it says so, with no placeholder for a new name it does not have', () => {
    const path = join(dir, 'job.jsonl');
    const file = JournalFile.open(path, () => undefined);
    rmSync(path);
    let error: unknown;
    try {
      file.refuseIfMoved('chunk 3');
    } catch (thrown) {
      error = thrown;
    }
    file.close();
    expect(error).toMatchObject({
      message: `the journal ${path} was removed while this run held it: stopped before sending chunk 3`,
    });
    expect((error as { hint?: string }).hint).not.toMatch(/NEW-PATH|new name/);
  });

  it('an old name’s lock whose process has ended, or of another file, is no holder', () => {
    const path = join(dir, 'job.jsonl');
    JournalFile.open(path, () => undefined).close();
    const { ino, dev } = statSync(path, { bigint: true });
    const journal = { dev: String(dev), ino: String(ino) };
    const owner = { ...thisOwner(T0), token: 'x' };
    writeFileSync(join(dir, 'old.jsonl.lock'), JSON.stringify({ ...owner, pid: notRunningPid(), journal }));
    writeFileSync(join(dir, 'other.jsonl.lock'), JSON.stringify({ ...owner, journal: { dev: journal.dev, ino: '1' } }));
    const file = JournalFile.open(path, () => undefined);
    expect(() => file.refuseIfMoved('chunk 1')).not.toThrow();
    file.close();
  });

  it('a path that cannot be checked (an error other than no such file) is no move: the run goes on', () => {
    mkdirSync(join(dir, 'sub'));
    const path = join(dir, 'sub', 'job.jsonl');
    const file = JournalFile.open(path, () => undefined);
    // The directory renamed and its old name made a loop: stat fails with neither ENOENT nor ENOTDIR.
    renameSync(join(dir, 'sub'), join(dir, 'sub2'));
    symlinkSync('sub', join(dir, 'sub'));
    expect(() => statSync(path)).toThrow(/ELOOP/);
    expect(() => file.refuseIfMoved('chunk 2')).not.toThrow();
    file.close();
  });

  it('the new name it offers is the file itself, never a symbolic link to it; a directory renamed is found too', () => {
    const path = join(dir, 'sub', 'job.jsonl');
    mkdirSync(join(dir, 'sub'));
    const file = JournalFile.open(path, () => undefined);
    const hint = () => {
      try {
        file.refuseIfMoved('chunk 2');
      } catch (error) {
        return (error as { hint?: string }).hint;
      }
      return 'went on';
    };
    renameSync(path, join(dir, 'sub', 'moved.jsonl'));
    symlinkSync('moved.jsonl', join(dir, 'sub', 'a-latest'));
    expect(hint()).toBe(`Continue the job by its new name: taskctl resume ${join(dir, 'sub', 'moved.jsonl')}`);
    renameSync(join(dir, 'sub'), join(dir, 'sub2'));
    expect(hint()).toBe(`Continue the job by its new name: taskctl resume ${join(dir, 'sub2', 'moved.jsonl')}`);
    file.close();
  });

  it('its own lock, listed under another spelling of its name (a file system that rewrites names), is its own', () => {
    // The directory lists `job.jsonl.lock`; the run took `DIR/./job.jsonl.lock`: the same file, told by its token.
    JournalFile.open(`${dir}/./job.jsonl`, () => undefined).close();
  });

  it('other files named *.lock beside it (a FIFO, a large file, a symlink) are skipped without being read whole', () => {
    execFileSync('mkfifo', [join(dir, 'pipe.lock')]);
    writeFileSync(join(dir, 'yarn.lock'), Buffer.alloc(1 << 20, 0x20));
    symlinkSync(join(dir, 'yarn.lock'), join(dir, 'link.lock'));
    JournalFile.open(join(dir, 'job.jsonl'), () => undefined).close();
  });
});

/** The journal at `path` opened for appending, with the records its open read through. */
function openRecording(path: string): { file: JournalFile; records: unknown[] } {
  const records: unknown[] = [];
  const file = JournalFile.open(
    path,
    () => undefined,
    false,
    (record) => records.push(record),
  );
  return { file, records };
}

describe('the lines of a journal, as bytes', () => {
  const job = '{"type":"job","id":"j-m5xunpc0abcd"}\n';
  /** A complete line a bad copy left with bytes that are not UTF-8 (inside a JSON string: it would parse, decoded). */
  const notUtf8 = Buffer.concat([
    Buffer.from('{"type":"created","chunk":1,"task":7,"how":"'),
    Buffer.from([0xff, 0xe2, 0x82]),
    Buffer.from('"}\n'),
  ]);
  const torn = Buffer.concat([Buffer.from('{"type":"send","chunk":2,"x":"'), Buffer.from([0xfe, 0xff])]);

  it('a torn last line holding bytes that are not UTF-8 is cut: the file is exactly the lines before it', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from(job), torn]));
    JournalFile.open(path, () => undefined).close();
    expect(readFileSync(path)).toEqual(Buffer.from(job));
  });

  it('after a complete line that is not UTF-8, a torn line is cut exactly after the last complete line', () => {
    const path = join(dir, 'job.jsonl');
    const kept = Buffer.concat([Buffer.from(job), notUtf8]);
    writeFileSync(path, Buffer.concat([kept, torn]));
    const file = JournalFile.open(path, () => undefined);
    file.append({ type: 'done' });
    file.close();
    expect(readFileSync(path)).toEqual(Buffer.concat([kept, Buffer.from('{"type":"done"}\n')]));
  });

  it('zero bytes after the last line (a crash where records were) are kept as a damaged line, never cut', () => {
    const path = join(dir, 'job.jsonl');
    const zeros = Buffer.alloc(300);
    writeFileSync(path, Buffer.concat([Buffer.from(job), zeros]));
    const { file, records } = openRecording(path);
    expect(records).toEqual([
      { type: 'job', id: 'j-m5xunpc0abcd' },
      { type: '(unreadable)', line: 2, zeroed: true },
    ]);
    file.append({ type: 'done' });
    file.close();
    // Every later read still meets the damage (a chunk it may have recorded stays in doubt until it is settled).
    expect(readFileSync(path)).toEqual(Buffer.concat([Buffer.from(job), zeros, Buffer.from('\n{"type":"done"}\n')]));
    expect(readJournal(path)).toEqual([
      { type: 'job', id: 'j-m5xunpc0abcd' },
      { type: '(unreadable)', line: 2, zeroed: true },
      { type: 'done' },
    ]);
  });

  it('a complete line that is not UTF-8 is a damaged line (by its number), never a record with its bytes replaced', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from('\uFEFF' + job), notUtf8, Buffer.from('{"type":"done"}\n')]));
    const expected = [{ type: 'job', id: 'j-m5xunpc0abcd' }, { type: '(unreadable)', line: 2 }, { type: 'done' }];
    expect(readJournal(path)).toEqual(expected);
    const { file, records } = openRecording(path);
    expect(records).toEqual(expected);
    file.close();
  });

  it('a journal that is a symbolic link, read for show --job, wait --job or diff: the advice is what to give instead', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, job);
    const link = join(dir, 'link.jsonl');
    symlinkSync(path, link);
    let said: { message: string; hint?: string } | undefined;
    try {
      readJournal(link);
    } catch (error) {
      said = error as { message: string; hint?: string };
    }
    expect(said?.message).toBe(
      `the journal ${link} is a symbolic link, not a regular file; taskctl does not follow or read it`,
    );
    // These commands only read: nothing is written there, and nobody is told to move their link away.
    expect(said?.hint).toBe(`Give the file it points to (readlink -f ${link}), or the job's id.`);
  });

  it('a journal larger than what is read at a time (1 MiB) is read line by line: every record, the torn line cut', () => {
    const path = join(dir, 'job.jsonl');
    // ~2.5 MB of send records of the size a big job writes (100 task ids each), lines falling across the pieces read.
    const before = Array.from({ length: 100 }, (_, i) => 1_000_000 + i);
    const sends = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: 'send', chunk: i + 1, before }) + '\n');
    const body = Buffer.from('\uFEFF' + job + sends.join(''));
    writeFileSync(path, Buffer.concat([body, torn]));
    const records = readJournal(path);
    expect(records).toHaveLength(2001);
    expect(records?.[0]).toEqual({ type: 'job', id: 'j-m5xunpc0abcd' });
    expect(records?.[2000]).toEqual({ type: 'send', chunk: 2000, before });
    JournalFile.open(path, () => undefined).close();
    // Buffer.equals: a deep comparison of 2.5 MB byte by byte takes seconds.
    expect(readFileSync(path).equals(body)).toBe(true);
  });

  it('readJournalRecords hands each record on as its piece is read: the first before the file is read through', () => {
    const path = join(dir, 'job.jsonl');
    const before = Array.from({ length: 100 }, (_, i) => 1_000_000 + i);
    const sends = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ type: 'send', chunk: i + 1, before }) + '\n');
    writeFileSync(path, job + sends.join(''));
    const chunks: unknown[] = [];
    const found = readJournalRecords(path, (record) => {
      // Appended while the first is handed on: read too, since the lines past the first 1 MiB are not read yet.
      if (chunks.length === 0) appendFileSync(path, '{"type":"done"}\n');
      chunks.push((record as { chunk?: number; type: string }).chunk ?? (record as { type: string }).type);
    });
    expect(found).toBe(true);
    expect(chunks).toHaveLength(2002);
    expect(chunks.at(-1)).toBe('done');
    expect(readJournalRecords(join(dir, 'none.jsonl'), () => undefined)).toBe(false);
  });

  it('glanceJournal reads the first record and the last complete line, and says when there is no record', () => {
    const path = join(dir, 'job.jsonl');
    writeFileSync(path, `${job}{"type":"send","chunk":1}\n{"type":"done"}\n\n\n{"type":"cre`);
    expect(glanceJournal(path)).toEqual({
      first: { type: 'job', id: 'j-m5xunpc0abcd' },
      last: { type: 'done' },
      empty: false,
    });
    writeFileSync(path, `\n\n{"type":"jo`);
    expect(glanceJournal(path)).toMatchObject({ first: undefined, last: undefined, empty: true });
    writeFileSync(path, job);
    expect(glanceJournal(path)).toMatchObject({ last: { type: 'job' }, empty: false });
    expect(glanceJournal(join(dir, 'none.jsonl'))).toBeUndefined();
  });

  it('glanceJournal parses the first line and the last, none of the lines between them in the piece it reads', () => {
    // Every create glances at every journal of its state directory (core/submit/same-work.ts): a small journal's
    // lines all sit in the first piece, and only its first and last are wanted.
    const path = join(dir, 'job.jsonl');
    const sends = Array.from({ length: 20 }, (_, i) => `{"type":"send","chunk":${i + 1}}\n`).join('');
    writeFileSync(path, `${job}${sends}{"type":"done"}\n`);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(glanceJournal(path)).toMatchObject({ first: { type: 'job' }, last: { type: 'done' } });
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('journalHolds finds a marker anywhere in the bytes, across the pieces they are read in', () => {
    const path = join(dir, 'job.jsonl');
    const marker = '"type":"lost"';
    // The marker across the first 1 MiB piece's end, then far past it; a string's escaped quotes are no match.
    const filler = `{"type":"send","note":"${'x'.repeat(1024 * 1024 - 40)}"}\n`;
    writeFileSync(path, `${job}${filler.slice(0, 1024 * 1024 - job.length - 5)}${marker}`);
    expect(journalHolds(path, marker)).toBe(true);
    writeFileSync(path, `${job}${filler}${filler}{${marker},"chunk":1}\n`);
    expect(journalHolds(path, marker)).toBe(true);
    writeFileSync(path, `${job}{"type":"send","note":${JSON.stringify(marker)}}\n{"type":"done"}\n`);
    expect(journalHolds(path, marker)).toBe(false);
    expect(journalHolds(join(dir, 'none.jsonl'), marker)).toBe(false);
  });
});
