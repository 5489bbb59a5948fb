/**
 * Files that hold state (the config, the cache, the sandbox's --state): read only when they are what they claim to be,
 * written so that a crash at any instant leaves either the old or the new content, never a mix.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { systemErrorWords, UsageError } from '../errors.js';
import { randomHex } from './random-hex.js';

/** A state file that is a symlink, FIFO, device or directory: exit 2, and never opened for real. */
export class NotRegularFileError extends UsageError {}
/** A state file larger than its reader's bound: it is not read (bounded memory); the message says the size. */
class TooLargeFileError extends UsageError {}

/** What a path is when it is not a regular file, for the refusal message. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** What is at `path` (not followed), when it is there and no regular file. */
function kindAt(path: string): string | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isFile() ? undefined : kindOf(stats);
  } catch {
    return undefined;
  }
}

export interface ReadRegularOptions {
  /** Names the file in messages: "config file", "cache file", "state file". */
  what: string;
  /** Tighten the file itself (fchmod on the open descriptor, never chmod through a path) to this mode when group or
   * others have any bit; `onTightened` receives the old mode. Best effort: a file that cannot be changed (a read-only
   * file system, another user's file) is read as it is, and `onNotTightened` receives the old mode and the error. */
  tightenTo?: number;
  onTightened?: (oldMode: number) => void;
  onNotTightened?: (oldMode: number, error: unknown) => void;
  /** Refuse anything larger (bounded memory); default 16 MiB (`STATE_FILE_MAX_BYTES`). */
  maxBytes?: number;
  /** The advice when the file is larger than `maxBytes`; by default, for a file taskctl writes anew: move it away. */
  tooLargeHint?: string;
  /** The advice when the path is no regular file (`kind`: "a symbolic link", "a directory"…); by default, for a file
   * taskctl writes: move it away. A reader that never writes there says what to give instead. */
  refusedHint?: (kind: string) => string;
}

/** What taskctl reads back of a state file by default, and so the most it writes of one (never a file it cannot read). */
export const STATE_FILE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The file's text, or undefined when it does not exist. A symlink, FIFO, device or directory is refused with a usage
 * error (exit 2): opened with O_NOFOLLOW (a link is never followed, so never chmodded) and O_NONBLOCK (a FIFO cannot hang).
 */
export function readRegularFile(path: string, options: ReadRegularOptions): string | undefined {
  return withRegularFile(path, options, (fd) => readFileSync(fd).toString('utf8'));
}

/** What `readRegularPieces` reads at a time, at most; at least MIN_PIECE_BYTES. */
const PIECE_BYTES = 1024 * 1024;
const MIN_PIECE_BYTES = 16 * 1024;

/**
 * `readRegularFile`'s bytes a piece at a time, in bounded memory (a journal read as lines): `onPiece` gets each piece in turn,
 * in a buffer reused once it returns (copy what is kept), and returns false to read no further. False when the file
 * does not exist.
 */
export function readRegularPieces(
  path: string,
  options: ReadRegularOptions,
  onPiece: (piece: Buffer) => boolean,
): boolean {
  const done = withRegularFile(path, options, (fd, size) => {
    // No larger than the file (a journal of a few records is read into a few KiB, not a fresh MiB each time); a file
    // that grows meanwhile is still read to its end, in more pieces.
    const buffer = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(size + 1, MIN_PIECE_BYTES)));
    for (let read = readSync(fd, buffer); read > 0 && onPiece(buffer.subarray(0, read)); read = readSync(fd, buffer));
    return true;
  });
  return done === true;
}

/**
 * The two ends of a regular file, opened as `readRegularFile` does: its start a piece of `pieceBytes` at a time to
 * `onHead` (as `readRegularPieces`; false reads no further), then its last `tailBytes` bytes (fewer in a smaller file),
 * returned with whether they start at the file's start. Undefined when the file does not exist. What lies between is
 * never read: the work is bounded whatever the file's size.
 */
export function readRegularEnds(
  path: string,
  options: ReadRegularOptions,
  head: { pieceBytes: number; onPiece: (piece: Buffer) => boolean },
  tailBytes: number,
): { tail: Buffer; whole: boolean } | undefined {
  return withRegularFile(path, options, (fd) => {
    const buffer = Buffer.allocUnsafe(head.pieceBytes);
    let at = 0;
    for (
      let read = readSync(fd, buffer, 0, buffer.length, at);
      read > 0;
      read = readSync(fd, buffer, 0, buffer.length, at)
    ) {
      at += read;
      if (!head.onPiece(buffer.subarray(0, read))) break;
    }
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - tailBytes);
    const tail = Buffer.allocUnsafe(size - start);
    let got = 0;
    for (let read = -1; got < tail.length && read !== 0; got += read) {
      read = readSync(fd, tail, got, tail.length - got, start + got);
    }
    return { tail: tail.subarray(0, got), whole: start === 0 };
  });
}

/** Opens `path` as `readRegularFile` does (refusals, tightening, the bound) and gives `read` the open descriptor. */
function withRegularFile<T>(
  path: string,
  options: ReadRegularOptions,
  read: (fd: number, size: number) => T,
): T | undefined {
  const refuse = (kind: string) =>
    new NotRegularFileError(
      `the ${options.what} ${path} is ${kind}, not a regular file; taskctl does not follow or read it`,
      options.refusedHint?.(kind) ?? 'Move it away (taskctl writes a regular file there), or point taskctl elsewhere.',
    );
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refuse('a symbolic link');
    // ENXIO: a socket (or a device with nothing behind it), which open() never opens: what it is, said as for the rest.
    const kind = code === 'ENXIO' ? kindAt(path) : undefined;
    if (kind !== undefined) throw refuse(kind);
    throw new UsageError(
      `cannot read the ${options.what} ${path}: ${systemErrorWords(error)}`,
      'Check its permissions and its directory.',
    );
  }
  try {
    return read(fd, checkOpenFile(fd, path, options, refuse));
  } catch (error) {
    // A disk that fails under the read (EIO), a file swapped for something else: words naming the file, never a bug.
    if (!isSystemError(error)) throw error;
    throw new UsageError(
      `cannot read the ${options.what} ${path}: ${systemErrorWords(error)}`,
      'Check the file and the disk it is on, then try again.',
    );
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Only read: what it held is read already, or the read failed and says so.
    }
  }
}

/** What a system call throws (a code and the call), as opposed to an error of taskctl's own. */
function isSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Refuses the open `fd` when it is no regular file or above the bound; tightens it on the way. Its size in bytes. */
function checkOpenFile(
  fd: number,
  path: string,
  options: ReadRegularOptions,
  refuse: (kind: string) => NotRegularFileError,
): number {
  const stats = fstatSync(fd);
  if (!stats.isFile()) throw refuse(kindOf(stats));
  const maxBytes = options.maxBytes ?? STATE_FILE_MAX_BYTES;
  if (stats.size > maxBytes) {
    const size = (n: number) => n.toLocaleString('en');
    throw new TooLargeFileError(
      `the ${options.what} ${path} is ${size(stats.size)} bytes, more than the ${size(maxBytes)} taskctl reads`,
      options.tooLargeHint ?? 'Move it away (keep it if you need what it holds); taskctl writes it anew.',
    );
  }
  const mode = stats.mode & 0o777;
  if (options.tightenTo !== undefined && (mode & 0o077) !== 0) {
    const refused = changeModeIfAllowed(fd, options.tightenTo);
    if (refused === undefined) options.onTightened?.(mode);
    else options.onNotTightened?.(mode, refused);
  }
  return stats.size;
}

/**
 * fchmod on `fd`, best effort: undefined when done, else why not (a read-only file system, another user's file, a file
 * system that keeps no modes or has no such call). The file is then used as it is: a mode it cannot take is never a
 * reason to stop a command, and the caller says so where it matters (a config file readable by others).
 */
export function changeModeIfAllowed(fd: number, mode: number): unknown {
  try {
    fchmodSync(fd, mode);
    return undefined;
  } catch (error) {
    return error;
  }
}

const TEMP_SUFFIX = '.tmp';

/** `.config.json.<pid>.<random>.tmp` beside the target: same file system, so the rename is atomic. */
function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomHex(4)}${TEMP_SUFFIX}`);
}

/** Whether `name` is a temp file `writeFileAtomicSync` writes (tempPathFor), of any target. */
export function isAtomicTempName(name: string): boolean {
  return /^\..+\.\d+\.[0-9a-f]+\.tmp$/.test(name);
}

/** Makes a rename in `dir` survive a power cut; some platforms cannot open a directory, which is fine to skip. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Best effort: the data itself was fsynced before the rename.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Replaces `path` with `data` atomically: a new temp file in the same directory (O_EXCL, `mode`), written and fsynced,
 * then renamed over the target (a symlink at `path` is replaced, never followed); the temp is removed on failure.
 * `durable: false` skips the two fsyncs: still never a mix after a crash of the process (the rename is atomic), but a
 * power cut may bring back the previous content (the create ledger: its entries only matter to runs alive together).
 */
export function writeFileAtomicSync(
  path: string,
  data: string,
  mode = 0o600,
  options: { durable?: boolean; maxBytes?: number } = {},
): void {
  const durable = options.durable !== false;
  const bytes = Buffer.from(data, 'utf8');
  // Bounded on write as on read: a file taskctl would refuse to read back is never written.
  if (options.maxBytes !== undefined && bytes.length > options.maxBytes) {
    const size = (n: number) => n.toLocaleString('en');
    throw new TooLargeFileError(
      `${path} would be ${size(bytes.length)} bytes, more than the ${size(options.maxBytes)} taskctl reads back; nothing was written`,
      'Remove what it no longer needs (e.g. `taskctl config unset`), then try again.',
    );
  }
  const temp = tempPathFor(path);
  let fd: number | undefined;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    // The umask may have removed bits we asked for; never adds any beyond `mode`, so a refusal leaves it tighter.
    changeModeIfAllowed(fd, mode);
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Not created, or already renamed.
    }
    throw error;
  }
  if (durable) syncDirectory(dirname(path));
}

/**
 * Removes temp files of `path` left by a writer killed mid-write. Call it only while holding `path`'s lock: every
 * writer writes its temp under that lock, so any temp found then belongs to a dead writer.
 */
export function removeLeftoverTemps(path: string): void {
  const prefix = `.${basename(path)}.`;
  removeSiblings(path, (name) => name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX));
}

/** Removes the files beside `path` (in its directory) whose names `leftover` picks; one already gone is skipped. */
function removeSiblings(path: string, leftover: (name: string) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!leftover(name)) continue;
    try {
      unlinkSync(join(dirname(path), name));
    } catch {
      // Gone already.
    }
  }
}
