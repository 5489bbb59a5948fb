/**
 * The journal file of `create --journal FILE` (core/submit/journaled-run.ts gives the records their meaning): JSON lines,
 * append-only, each record written and fsynced before the step it guards, and two locks so that one process at a time
 * continues a job: `FILE.lock` beside the file (every process that can write it meets this one, whatever its state
 * directory; a file with a second name, a hard link, is refused) and one named by the caller (the job's id, in the state directory: store/job-files.ts). Also the copy of
 * stdin (or of arguments) that a resume reads back.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { NotRegularFileError, readRegularEnds, readRegularPieces } from './atomic-file.js';
import { shellWord } from '../lib/shell-word.js';
import { heldLockHint, holderWords, lockHolder, tryLock, type HeldLock } from './lock-file.js';
import { CliError, JournalMovedError, JournalWriteError, systemErrorWords, UsageError } from '../errors.js';
import { writeAdvice, writeCause } from './write-advice.js';

/**
 * What a read of a journal's lines found: its records (unless handed on as read), its size, where its last complete
 * line ends, and whether what follows is zeros (a crash's damage, not a torn append).
 */
interface LinesRead {
  records: unknown[];
  size: number;
  goodBytes: number;
  zeroedTail: boolean;
}

/** The `type` of a line that could not be read as JSON (its `line` is its number in the file). */
const UNREADABLE_LINE = '(unreadable)';

/**
 * The most read of a journal: its records are handed on one at a time as read, never held (`JournalFile.open`,
 * `readJournalRecords`), and create refuses a job that could outgrow it (`maxJobChunks`), so every job's journal can
 * be read back.
 */
const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;
/**
 * What a chunk can take in the journal, at most: its `send` lists up to 100 task ids (~1.2 KB with 7-digit ids, ~2 KB
 * with 16), its `created`, and room for a settlement and a second send (docs/behaviour.md#records).
 */
const JOURNAL_BYTES_PER_CHUNK = 4096;

/** The most chunks a job may have: its journal then stays within what is read back (one chunk's room for the job record). */
export function maxJobChunks(): number {
  return Math.floor(journalLimits.maxBytes / JOURNAL_BYTES_PER_CHUNK) - 1;
}

export class JournalFile {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
    private readonly locks: readonly HeldLock[],
    /** How many records it holds: read at open (a torn last line, never acted on, is dropped) and appended since. */
    private count: number,
    /** The `type` of every record it holds (what the caller asks: whether a `send` was ever written). */
    private readonly types: Set<string>,
  ) {}

  /** True when it holds no record. */
  get empty(): boolean {
    return this.count === 0;
  }

  /** Whether a record of this `type` was read at open or appended since. */
  holds(type: string): boolean {
    return this.types.has(type);
  }

  /**
   * Opens `path` (creating it when missing), then locks it twice: the file itself (`FILE.lock` beside it, met by every
   * process that can write it, whatever its state directory), then the job it holds, where `lockOf` names it from the
   * first record (a job is locked by its id, so a copy and its original exclude each other; undefined: no such lock).
   * A job in use by another process, a path that cannot be written or locked, or a file with another name (a hard link,
   * whose lock is beside that name), is exit 2 before anything is sent.
   * `existing`: the journal must be there already (`resume`): a path with none is exit 2, and nothing is made there.
   * `onRecord`: each record read under the locks, in order, handed on as its line is read and not kept (the caller
   * folds them into the job's state: core/submit/journal-records.ts `JobFold`).
   */
  static open(
    path: string,
    lockOf: (first: unknown) => string | undefined,
    existing = false,
    onRecord: (record: unknown) => void = () => undefined,
    attempt = 1,
  ): JournalFile {
    let fd: number;
    const made = !existing && !isThere(path);
    try {
      // O_NONBLOCK: a FIFO there would block the open until someone reads it (deaf to Ctrl-C); it fails, or opens at
      // once and is refused below. On a regular file the flag changes nothing.
      const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | (existing ? 0 : constants.O_CREAT);
      fd = openSync(path, flags | constants.O_NONBLOCK, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENXIO: a FIFO nobody reads; EISDIR: a directory; ELOOP: a symbolic link.
      if (code === 'ENXIO' || code === 'EISDIR' || code === 'ELOOP') throw notRegular(path);
      // Never "nothing was sent": a mistyped path is not a job that sent nothing (its real journal may hold tasks).
      if (existing && code === 'ENOENT') throw noJournal(path);
      // A job that started (`resume`): there is no --journal to pass, and where it goes on is the caller's to say.
      if (existing && code !== undefined && UNWRITABLE.has(code))
        throw new JobUnwritableError(`cannot write the journal ${path}: ${systemErrorWords(error)}; nothing was sent`, {
          path,
          code,
        });
      const message = `cannot write the journal ${path}: ${code === 'ENOENT' ? 'its directory does not exist' : systemErrorWords(error)}`;
      // A new job whose directory refuses the file (read-only, no permission): as its lock refused, a job that never
      // started; in the state directory the create goes on without a journal (docs/behaviour.md#jobs).
      if (!existing && code !== undefined && UNWRITABLE.has(code))
        throw new NewJobLockError(message, openAdvice(error, existing), systemErrorWords(error));
      throw new UsageError(message, openAdvice(error, existing));
    }
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw notRegular(path);
    }
    const locks: HeldLock[] = [];
    try {
      // The journal is never a symlink (O_NOFOLLOW): FILE.lock is one file whatever directories lead to it. It holds
      // the file's identity, so a run through a name given to the file later (`mv` in its directory) meets it.
      const journal = identityOf(fd);
      const own = lockJob(path, `${path}.lock`, { journal });
      locks.push(own);
      // Counted under that lock: a name linked after the open, before the lock, is met here.
      refuseOtherNames(fd, path);
      refuseHeldByAnotherName(path, journal, own.token);
      const byId = lockOf(readFirstRecord(path));
      if (byId !== undefined) locks.push(lockJob(path, byId));
      // Removed between its open and its locks (`jobs --prune` takes them to remove an empty journal): opened again.
      if (!samePlace(fd, path)) throw new Reopen();
      // Read again under the locks: a run that held them may have appended meanwhile.
      let count = 0;
      const types = new Set<string>();
      const { size, goodBytes, zeroedTail } = readRecords(path, (record) => {
        count++;
        types.add(typeOf(record));
        onRecord(record);
      });
      // A torn last line (killed mid-append) is cut so the next record starts on a line of its own. Zeros there are
      // no torn append but records a crash lost: they are ended as a line, so every later read still meets the damage
      // (a chunk they may have recorded stays in doubt until it is settled), and the next record starts after them.
      if (goodBytes < size && zeroedTail) journalIo.write(fd, Buffer.from('\n'), 0);
      else if (goodBytes < size) ftruncateSync(fd, goodBytes);
      return new JournalFile(path, fd, locks, count, types);
    } catch (error) {
      for (const lock of locks.reverse()) lock.release();
      closeSync(fd);
      // The empty file this open made for a job that cannot start goes again (never an "unfinished start" left behind).
      // So does one met by something that is not a lock file at a lock's path (a FIFO: `NotRegularFileError`).
      if ((error instanceof NewJobLockError || error instanceof NotRegularFileError) && made) removeQuietly(path);
      if (error instanceof Reopen && attempt < 3)
        return JournalFile.open(path, lockOf, existing, onRecord, attempt + 1);
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot open the journal ${path}: ${systemErrorWords(error)}`, openAdvice(error, existing));
    }
  }

  /**
   * Appends the records in one write and fsyncs them: on disk before this returns. Records that cannot all be written
   * (a full disk) are cut off again where possible, so no torn line and no first record alone is left, and is exit 14.
   */
  append(...records: object[]): void {
    if (this.fd === undefined) throw new Error('journal closed');
    // Several records go in one write and one fsync, whole or not at all: a full disk never leaves the first alone.
    const line = Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    let start: number | undefined;
    try {
      start = fstatSync(this.fd).size;
      for (let done = 0; done < line.length;) done += writeJournal(this.fd, line, done);
      fsyncSync(this.fd);
    } catch (error) {
      if (start !== undefined) {
        try {
          ftruncateSync(this.fd, start);
        } catch {
          // The torn line stays; it is the last, and a later open drops it.
        }
      }
      // The system's error kept as the cause: the next step is chosen by it (a full disk, a permission).
      throw Object.assign(new JournalWriteError(`cannot write the journal ${this.path}: ${systemErrorWords(error)}`), {
        cause: error,
      });
    }
    this.count += records.length;
    for (const record of records) this.types.add(typeOf(record));
    this.onAppend?.(start + line.length, records);
  }

  /** Told after each append that reached the disk: the journal's size then, and the records (never throws). */
  onAppend: ((size: number, records: readonly object[]) => void) | undefined;

  /** Its size in bytes now (where the next record starts). */
  get size(): number {
    if (this.fd === undefined) throw new Error('journal closed');
    return fstatSync(this.fd).size;
  }

  /**
   * Takes back the last `records` records, appended from byte `from` on (the file is then as it was before them), and
   * fsyncs it: a record this run wrote that must not stand (hand-over.ts `handBack`).
   */
  cutBack(from: number, records: number): void {
    if (this.fd === undefined) throw new Error('journal closed');
    ftruncateSync(this.fd, from);
    fsyncSync(this.fd);
    this.count -= records;
  }

  /**
   * Before each request: the journal's path must still name the file this run holds (its lock is beside that name).
   * Renamed or removed meanwhile, a run through its new name would not meet this run's lock, so this one stops:
   * exit 2, naming the new name when it is in the same directory (docs/behaviour.md#jobs).
   */
  refuseIfMoved(next: string): void {
    if (this.fd === undefined || !movedFrom(this.fd, this.path)) return;
    const now = newNameOf(this.fd, this.path);
    // Removed (no name left), it cannot be resumed: no placeholder for a name it does not have.
    if (now === undefined && fstatSync(this.fd).nlink === 0)
      throw new JournalMovedError(
        `the journal ${this.path} was removed while this run held it: stopped before sending ${next}`,
        'The job cannot be resumed without its journal: the tasks created so far are named above, and the items of the chunks after them have no task.',
      );
    throw new JournalMovedError(
      `the journal ${this.path} was renamed or removed while this run held it: stopped before sending ${next}`,
      `Continue the job by its new name: taskctl resume ${now === undefined ? 'NEW-PATH' : shellWord(now)}`,
      now,
    );
  }

  /** Empties the journal (a job of which nothing was sent, started again with other inputs or options). */
  restart(): void {
    if (this.fd === undefined) throw new Error('journal closed');
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.count = 0;
    this.types.clear();
  }

  /**
   * Closes the journal, then runs `whileLocked` (removing it, say) before its locks are released: between the two, a
   * `resume` could otherwise take them and go on writing a journal about to be removed.
   */
  close(whileLocked?: () => void): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    try {
      whileLocked?.();
    } finally {
      for (const lock of [...this.locks].reverse()) lock.release();
    }
  }
}

/** A journal must be a regular file: a FIFO, device, socket, directory or symbolic link is exit 2, never opened for real. */
function notRegular(path: string): UsageError {
  let kind = 'not a regular file';
  try {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) kind = 'a symbolic link';
    else if (stats.isFIFO()) kind = 'a FIFO (named pipe)';
    else if (stats.isDirectory()) kind = 'a directory';
    else if (stats.isSocket()) kind = 'a socket';
    else if (stats.isCharacterDevice() || stats.isBlockDevice()) kind = 'a device';
  } catch {
    // Gone meanwhile: the plain words stand.
  }
  return new UsageError(
    `the journal ${path} is ${kind === 'not a regular file' ? kind : `${kind}, not a regular file`}`,
    'A journal is a regular file taskctl appends to: name one that is (or none yet), or resume the job by its id.',
  );
}

/**
 * A journal with another name (a hard link: `ln`, `cp -al`, `rsync --link-dest`) has a `FILE.lock` beside each name, so
 * a run through the other name, under another state directory, would not meet this one's lock and would send the same
 * chunks (docs/behaviour.md#jobs). Where hard links are unsupported the count is 1: nothing changes there.
 */
function refuseOtherNames(fd: number, path: string): void {
  const names = fstatSync(fd).nlink;
  if (names <= 1) return;
  const file = shellWord(path);
  throw new UsageError(
    `the journal ${path} has ${names} names (hard links): a run locks a journal by its name, so a run through another name could send the same chunks and pay twice; nothing was sent`,
    `Give this name a file of its own (cp ${file} ${shellWord(`${path}.new`)} && mv ${shellWord(`${path}.new`)} ${file}), then resume the job from one place; or remove the other name.`,
  );
}

/**
 * The records of the journal at `path`, read without its lock and without creating it (`show --job`, `wait --job`;
 * a resume appending meanwhile leaves a prefix, which is a valid journal), a record at a time: each is handed to
 * `onRecord` as its line is read and not kept, so the caller holds what it makes of them, never the lines
 * (core/submit/journal-records.ts `JobFold`). False when there is no such file.
 */
export function readJournalRecords(path: string, onRecord: (record: unknown) => void): boolean {
  // These commands only read: the advice is what to give them instead, never to move the user's file or link away.
  const refusedHint = (kind: string) =>
    kind === 'a symbolic link'
      ? `Give the file it points to (readlink -f ${shellWord(path)}), or the job's id.`
      : "Give the job's journal (a regular file), or the job's id.";
  return readLines(path, refusedHint, Infinity, onRecord) !== undefined;
}

function readRecords(path: string, onRecord: (record: unknown) => void): LinesRead {
  return readLines(path, undefined, Infinity, onRecord) ?? { records: [], size: 0, goodBytes: 0, zeroedTail: false };
}

/** A record's `type` ('' when it has none). */
function typeOf(record: unknown): string {
  const type = (record as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : '';
}

/** The journal's lines, read a piece at a time (never the whole file in memory: docs/behaviour.md#records). */
function readLines(
  path: string,
  refusedHint?: (kind: string) => string,
  wanted = Infinity,
  onRecord?: (record: unknown) => void,
): LinesRead | undefined {
  const lines = new LineParser(onRecord, wanted);
  // Never "move it away": a job started again in its place would send every chunk again.
  const tooLargeHint =
    'Keep it: it is the record of what the job sent, and sending its chunks again pays twice. Its tasks are on the service (taskctl list).';
  const options = {
    what: 'journal',
    maxBytes: journalLimits.maxBytes,
    tooLargeHint,
    ...(refusedHint && { refusedHint }),
  };
  return readRegularPieces(path, options, (piece) => lines.add(piece) < wanted) ? lines.end() : undefined;
}

/** A first line read as a record (a JSON object with a type), or none at all (an empty file): what a journal starts with. */
function startsWithRecord(first: unknown): boolean {
  if (first === undefined) return true;
  if (typeof first !== 'object' || first === null) return false;
  const { type } = first as { type?: unknown };
  return typeof type === 'string' && type !== UNREADABLE_LINE;
}

/** The journal's first record (what its lock is named by), read no further; undefined when it holds none. */
function readFirstRecord(path: string): unknown {
  return readLines(path, undefined, 1)?.records[0];
}

/** What a glance reads of a journal's start at a time, and of its end: a job record fits the first, a `done` the second. */
const GLANCE_PIECE_BYTES = 16 * 1024;
const GLANCE_TAIL_BYTES = 4096;
/** The most a glance reads for the first record (a job of many `-f` inputs has a long one); past it, none is known. */
const GLANCE_FIRST_BYTES = 4 * 1024 * 1024;

/**
 * A journal's first record and its last complete line's, read without its lock and without the lines between them
 * (TAB completion, `jobs`' look for journals with no record: the work is the same for a journal of any size).
 * Undefined when there is no such file; `empty` when it holds no record (`readJournalRecords` would hand on none); `first` is
 * undefined when its line is longer than the glance reads, `last` when the last line is longer than the tail read (it
 * is then no `done` record). Refuses what `readJournalRecords` refuses, by the same words.
 */
export function glanceJournal(path: string): { first: unknown; last: unknown; empty: boolean } | undefined {
  const lines = new LineParser(undefined, 1);
  let read = 0;
  const onPiece = (piece: Buffer) => {
    read += piece.length;
    return lines.add(piece) < 1 && read < GLANCE_FIRST_BYTES;
  };
  const options = { what: 'journal', maxBytes: journalLimits.maxBytes };
  const ends = readRegularEnds(path, options, { pieceBytes: GLANCE_PIECE_BYTES, onPiece }, GLANCE_TAIL_BYTES);
  if (ends === undefined) return undefined;
  const [first] = lines.end().records;
  return { first, last: lastLine(ends.tail, ends.whole), empty: first === undefined && read < GLANCE_FIRST_BYTES };
}

/**
 * Whether the journal's bytes hold `marker` anywhere: read through a piece at a time, nothing parsed (a glance's look
 * for one kind of record, as `"type":"lost"`, in a journal whose last line does not tell). False when there is no
 * such file. A marker the bytes hold by chance (in a string, escaped quotes never match) only asks for a full read.
 */
export function journalHolds(path: string, marker: string): boolean {
  const needle = Buffer.from(marker);
  let carried = Buffer.alloc(0);
  let found = false;
  readRegularPieces(path, { what: 'journal', maxBytes: journalLimits.maxBytes }, (piece) => {
    // The end of the piece before with this one's start, in case the marker spans the two; then this piece alone.
    const seam = Buffer.concat([carried, piece.subarray(0, needle.length - 1)]);
    found = seam.includes(needle) || piece.includes(needle);
    carried = Buffer.from(piece.subarray(Math.max(0, piece.length - needle.length + 1)));
    return !found;
  });
  return found;
}

/**
 * The record of the last complete line in `tail` that is not empty (what follows its last line break is a torn line,
 * never a record; empty lines are skipped, as when the journal is read through).
 */
function lastLine(tail: Buffer, whole: boolean): unknown {
  let end = tail.lastIndexOf(LINE_BREAK);
  while (end > 0 && tail[end - 1] === LINE_BREAK) end--;
  if (end === -1) return undefined;
  const start = end === 0 ? -1 : tail.lastIndexOf(LINE_BREAK, end - 1);
  if (start === -1 && !whole) return undefined;
  return parseLine(tail.subarray(start + 1, end));
}

/** The bound on what is read of a journal (a test seam: tests lower it): create refuses a job that could outgrow it. */
export const journalLimits = { maxBytes: MAX_JOURNAL_BYTES };

/** Test seams: a write of the journal, and the taking of its locks (a fake full disk in tests replaces them). */
export const journalIo = {
  write: (fd: number, bytes: Buffer, offset: number): number => writeSync(fd, bytes, offset, bytes.length - offset),
  lock: (path: string, content?: Record<string, unknown>): ReturnType<typeof tryLock> =>
    tryLock(path, content === undefined ? {} : { content }),
};

/** Why a file cannot be written that no retry fixes: a read-only file system, or no permission. */
const UNWRITABLE: ReadonlySet<string> = new Set(['EROFS', 'EACCES', 'EPERM']);

/**
 * The next step after a journal that cannot be opened: a create's is another `--journal` path; a `resume`'s (`existing`:
 * the job's journal, which it cannot move, and which takes no `--journal`) is the same resume once the cause is gone.
 */
function openAdvice(error: unknown, existing: boolean): string {
  if (!existing)
    return writeAdvice(
      error,
      'pass a --journal path in another directory',
      'Pass a --journal path in a writable directory.',
    );
  return writeCause(error) === 'full'
    ? 'Free space there, then run the same resume again.'
    : 'Check the disk and the directory permissions, then run the same resume again.';
}

/**
 * A job that started (its journal holds records) cannot be continued here: its journal, or one of its locks, cannot be
 * written (`path`, with the system's `code`). Nothing was sent; the caller names where it can go on
 * (core/submit/journaled-run.ts), as it alone knows the state directory.
 */
export class JobUnwritableError extends UsageError {
  constructor(
    message: string,
    readonly where: { path: string; code: string | undefined },
  ) {
    super(
      message,
      'Without its lock another run could send the same chunks: resume it as a user who can write that directory.',
    );
  }
}

/**
 * The journal or the lock of a new job (its journal holds no record) cannot be written (a full disk, a read-only
 * directory): nothing of it was sent, nor will be. A job of the state directory goes on without a journal (core/submit/journaled-run.ts).
 */
export class NewJobLockError extends UsageError {
  constructor(
    message: string,
    hint: string,
    /** What went wrong, in words (`the disk is full`). */
    readonly reason: string,
  ) {
    super(message, hint);
  }
}

function writeJournal(fd: number, bytes: Buffer, offset: number): number {
  return journalIo.write(fd, bytes, offset);
}

class Reopen extends Error {}

function isThere(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Left as an empty journal: a later create or `jobs --prune` deals with it.
  }
}

/** True while `path` names the file open as `fd`. */
function samePlace(fd: number, path: string): boolean {
  try {
    const open = fstatSync(fd);
    const named = statSync(path);
    return open.ino === named.ino && open.dev === named.dev;
  } catch {
    return false;
  }
}

/** A journal file's identity, as its lock records it: device and inode, as text (exact beyond 2^53). */
interface JournalIdentity {
  dev: string;
  ino: string;
}

function identityOf(fd: number): JournalIdentity {
  const stats = fstatSync(fd, { bigint: true });
  return { dev: String(stats.dev), ino: String(stats.ino) };
}

/**
 * Whether `path` provably no longer names the file open as `fd`: it names another file, or none (ENOENT, ENOTDIR).
 * A path that cannot be checked (EACCES, a network file system's ESTALE or EIO) is no proof: the run goes on.
 */
function movedFrom(fd: number, path: string): boolean {
  try {
    const open = fstatSync(fd);
    const named = statSync(path);
    return open.ino !== named.ino || open.dev !== named.dev;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/** Whether `path` is a regular file, not a symbolic link to one, and is the file open as `fd`. */
function isTheFile(fd: number, path: string): boolean {
  try {
    return lstatSync(path).isFile() && samePlace(fd, path);
  } catch {
    return false;
  }
}

/**
 * The name that now names the file open as `fd`: where the system tells it (Linux: its directory renamed too), else a
 * name in `path`'s directory (a rename there). Never a symbolic link: `resume` refuses a journal that is one.
 */
function newNameOf(fd: number, path: string): string | undefined {
  try {
    const now = readlinkSync(`/proc/self/fd/${fd}`);
    if (isTheFile(fd, now)) return now;
  } catch {
    // Not Linux, or no /proc: the directory is looked through.
  }
  try {
    const dir = dirname(path);
    return readdirSync(dir)
      .map((name) => join(dir, name))
      .find((other) => !other.endsWith('.lock') && isTheFile(fd, other));
  } catch {
    return undefined;
  }
}

/**
 * The other `*.lock` files of the journal's directory whose holder is alive and whose journal is this very file: a
 * run holds it under a name it had before (`mv OLD NEW` while that run ran). Exit 2 naming that run, as for a lock
 * beside this name. A rename into another directory is not met here (docs/behaviour.md#jobs).
 */
function refuseHeldByAnotherName(path: string, journal: JournalIdentity, ownToken: string): void {
  const dir = dirname(path);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.lock'));
  } catch {
    return; // the directory cannot be listed: only the lock beside this name counts
  }
  for (const name of names) {
    const lockPath = join(dir, name);
    // This run's own lock is told by its token: a file system may list its name in another form than it was given.
    const held = lockContent(lockPath);
    if (held?.token === ownToken || held?.journal?.dev !== journal.dev || held.journal.ino !== journal.ino) continue;
    const holder = lockHolder(lockPath);
    if (holder === undefined) continue; // its run has ended: nothing holds the file through that name
    throw new UsageError(
      `the job in ${path} is in use by another taskctl (${holderWords(holder)}) through its earlier name ${lockPath.slice(0, -'.lock'.length)}`,
      heldLockHint(holder, lockPath, 'Wait for that run to end, then resume the job by this name'),
    );
  }
}

/** A lock is a few hundred bytes: more than this is not one of ours, and is not read on. */
const LOCK_READ_BYTES = 4096;

/**
 * What the lock file at `lockPath` records (its token and the journal it guards), or undefined when it is not one of
 * a journal. Any `*.lock` of the user's directory passes here (yarn.lock, a FIFO): opened without following a link or
 * waiting for a writer, only a regular file is read, and only its first few KiB.
 */
function lockContent(lockPath: string): { token?: unknown; journal?: Partial<JournalIdentity> } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(lockPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(LOCK_READ_BYTES);
    const length = readSync(fd, buffer, 0, LOCK_READ_BYTES, 0);
    if (length === LOCK_READ_BYTES) return undefined;
    const content: unknown = JSON.parse(buffer.toString('utf8', 0, length));
    return typeof content === 'object' && content !== null ? content : undefined;
  } catch {
    return undefined; // not a lock of a journal, or gone
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A lock that cannot be written is refused, never skipped: a run without it could send the chunks another run is
 * sending (paying twice). `content`: what the lock records beside its owner.
 */
function lockJob(path: string, lockPath: string, content?: Record<string, unknown>): HeldLock {
  let lock;
  try {
    lock = journalIo.lock(lockPath, content);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw error; // named, with what to do; the empty journal made goes (open)
    const reason = systemErrorWords(error);
    const first = readFirstRecord(path);
    // A file whose first line is no record (a /proc file, whose directory takes no lock) is no journal: said so, not
    // advice to lock it as another user.
    if (!startsWithRecord(first)) {
      throw new UsageError(
        `${path} is not a taskctl journal (it does not start with a job record); nothing was sent`,
        'Pass the file given to `taskctl create --journal`.',
      );
    }
    const message = `cannot lock the journal ${path} (${lockPath}): ${reason}; nothing was sent`;
    // A job that never started has nothing to resume: the same command, once the directory can take its lock.
    if (first === undefined) {
      throw new NewJobLockError(
        message,
        writeAdvice(error, 'pass a --journal path in another directory, then run the same command again'),
        reason,
      );
    }
    throw new JobUnwritableError(message, { path: lockPath, code: (error as NodeJS.ErrnoException).code });
  }
  if ('release' in lock) return lock;
  throw new UsageError(
    `the job in ${path} is in use by another taskctl (${holderWords(lock.heldBy)})`,
    heldLockHint(lock.heldBy, lockPath, 'Wait for that run to end'),
  );
}

/**
 * Each line on its own, found in the bytes as they are read: a line that is not JSON, or not UTF-8 (a bad copy, a
 * flipped byte: never read with its bytes replaced), before the last is kept as `{ type: UNREADABLE, line }`, so that
 * the records around it still count (core/submit/journal-records.ts says what it may have been). What follows the last
 * line break is a torn line, never a record (unless it holds a zero byte: then a damaged line): `goodBytes` ends at
 * that line break. A UTF-8 BOM is skipped.
 */
class LineParser {
  private readonly records: unknown[] = [];
  private count = 0;
  /** The start of a line not ended yet (copies: the pieces' buffer is reused). */
  private partial: Buffer[] = [];
  private size = 0;
  private goodBytes = 0;
  private lineNumber = 0;

  /** Reads the lines `piece` ends, none past the `wanted`th record; the number of records so far. */
  add(piece: Buffer): number {
    let from = 0;
    for (
      let end = piece.indexOf(LINE_BREAK);
      end !== -1 && this.count < this.wanted;
      end = piece.indexOf(LINE_BREAK, from)
    ) {
      const part = piece.subarray(from, end);
      this.line(this.partial.length === 0 ? part : Buffer.concat([...this.partial, part]));
      this.partial = [];
      from = end + 1;
      this.goodBytes = this.size + from;
    }
    if (from < piece.length) this.partial.push(Buffer.from(piece.subarray(from)));
    this.size += piece.length;
    return this.count;
  }

  /**
   * `onRecord`: each record is handed on as read, not kept (`end` then gives none). `wanted`: the records read, the
   * lines after them left unparsed (a glance at a journal's first record parses none of the lines its piece also holds).
   */
  constructor(
    private readonly onRecord: (record: unknown) => void = (record) => this.records.push(record),
    private readonly wanted = Infinity,
  ) {}

  end(): LinesRead {
    const tail = Buffer.concat(this.partial);
    const bomOnly = this.lineNumber === 0 && tail.subarray(0, UTF8_BOM.length).equals(UTF8_BOM);
    // A torn append is the start of a record, never a zero byte: zeros after the last line break are what a crash
    // leaves where records were written (the size recorded, the data not), so they count as a damaged line.
    const zeroedTail = tail.includes(0);
    if (zeroedTail && this.count < this.wanted) this.line(tail);
    const goodBytes = bomOnly ? UTF8_BOM.length : this.goodBytes;
    return { records: this.records, size: this.size, goodBytes, zeroedTail };
  }

  private line(bytes: Buffer): void {
    const line =
      ++this.lineNumber === 1 && bytes.subarray(0, UTF8_BOM.length).equals(UTF8_BOM)
        ? bytes.subarray(UTF8_BOM.length)
        : bytes;
    if (line.length === 0) return;
    this.count++;
    this.onRecord(
      parseLine(line) ?? { type: UNREADABLE_LINE, line: this.lineNumber, ...(line.includes(0) && { zeroed: true }) },
    );
  }
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LINE_BREAK = 0x0a;

/** The record a complete line holds; undefined when it is not UTF-8 or not JSON. */
function parseLine(line: Buffer): unknown {
  if (!isUtf8(line)) return undefined;
  try {
    return JSON.parse(line.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A copy written as bytes arrive (stdin beside the journal: `FILE.input`), fsynced before anything is sent. Its owner
 * calls `close` on every path (a `finally`): a read or a write that fails between the open and `finish` leaves no
 * descriptor behind.
 */
export class InputCopy {
  private fd: number | undefined;
  size = 0;

  constructor(readonly path: string) {
    this.fd = openCopy(path, (failure) => copyError('input', path, failure));
  }

  write(bytes: Uint8Array): void {
    if (this.fd === undefined) throw new Error('copy closed');
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
      this.size += bytes.length;
    } catch (error) {
      throw copyError('input', this.path, error);
    }
  }

  /** Fsyncs the copy, then closes it. */
  finish(): void {
    if (this.fd === undefined) throw new Error('copy closed');
    try {
      fsyncSync(this.fd);
    } catch (error) {
      throw copyError('input', this.path, error);
    } finally {
      this.close();
    }
  }

  /** Closes the copy if still open (after `finish`, nothing to do). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The copy of a job's input (piped items, or its arguments) not written, before anything was sent. A full disk or an
 * I/O error is exit 14, as the journal's own write is (docs/behaviour.md#exit-codes), with the same next step: room,
 * then the same command again; a place that is not a file, or one this user may not write, is a usage error.
 */
function copyError(what: 'input' | 'arguments', path: string, failure: unknown): CliError {
  const words = typeof failure === 'string' ? failure : systemErrorWords(failure);
  const message = `cannot write the copy of the ${what} (${path}): ${words}; nothing was sent`;
  const cause = typeof failure === 'string' ? 'place' : writeCause(failure);
  if (cause === 'full' || cause === 'other')
    return new JournalWriteError(
      message,
      `${cause === 'full' ? 'Free space in' : 'Check the disk of'} ${dirname(path)} (or pass --journal FILE on another disk), then run the same command again.`,
    );
  return new UsageError(
    message,
    cause === 'place'
      ? 'Pass a --journal path that is a regular file, or none.'
      : writeAdvice(failure, 'pass --journal FILE where you can write'),
  );
}

/** The copy of a create's arguments (`FILE.args`): one JSON string a line, so a resume reads them back as NDJSON. */
export function writeArgumentsCopy(path: string, values: readonly string[]): void {
  const fd = openCopy(path, (failure) => copyError('arguments', path, failure));
  try {
    writeFileSync(fd, values.map((value) => `${JSON.stringify(value)}\n`).join(''));
  } catch (error) {
    throw copyError('arguments', path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * A copy beside the journal, truncated, opened so that a FIFO there never blocks (O_NONBLOCK: it fails at once or opens
 * and is refused) and a symbolic link is not followed. `failed` is given the system's error, or the words for a place
 * that is no regular file.
 */
function openCopy(path: string, failed: (failure: unknown) => CliError): number {
  let fd: number;
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
    fd = openSync(path, flags | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const other = code === 'ENXIO' || code === 'ELOOP' || code === 'EISDIR';
    throw failed(other ? 'it is not a regular file' : error);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw failed('it is not a regular file');
  }
  return fd;
}

/** The size in bytes of a job's input now (resume compares it with the recorded size); throws the fs error. */
export function inputSize(path: string): number {
  return statSync(path).size;
}

/** No journal where a job's was named (a typo, or a finished job's journal removed): one wording for every command. */
export function noJournal(path: string): UsageError {
  return new UsageError(`no journal at ${path}`, 'Check the path: `taskctl jobs` lists the jobs of this machine.');
}
