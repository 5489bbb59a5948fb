import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode, systemErrorWords } from '../errors.js';

// Scratch storage that lets items stream: what a later pass needs (the items to send, the hashes for de-duplication,
// diff's sorted runs) is held in small buffers and, past them, in files of a private scratch directory made on first
// use. Small inputs never touch the disk; a 10,000,000-line input holds a few MB in memory.
//
// Every exit removes the directory (docs/behaviour.md#scratch): `dispose` on success, error and Ctrl-C, an exit hook
// when the process ends through process.exit (output that cannot be written, exit 14). A run killed outright (SIGKILL,
// a crash) cannot: its directory is swept by the next run that uses scratch, as soon as it starts, when no live run
// holds its lock. The lock is a FIFO in the directory that the owner keeps open for reading; the kernel closes it when
// the owner dies, however it dies, and opening the FIFO for writing without blocking then fails (ENXIO). Unlike a pid,
// this is right across pid namespaces that share the temp dir, and needs no waiting.

/** The scratch directories' names: `taskctl-scratch-` and mkdtemp's six characters. */
const PREFIX = 'taskctl-scratch-';
const NAME = /^taskctl-scratch-[A-Za-z0-9]{6}$/;
/** The lock in each directory: a FIFO its run holds open for reading. */
const LOCK = 'live.fifo';
/** A directory without its lock yet is being made (the lock follows its mkdir within milliseconds). */
const BIRTH_GRACE_MS = 10_000;

/** The directories of this process, removed by the exit hook if their `dispose` did not run. */
const live = new Map<string, number | undefined>();
let hooked = false;

/** A private directory under the system temp dir, made on first use and removed by `dispose` or at exit. */
export class Scratch {
  private dir: string | undefined;

  /** Sweeps what killed runs left in `parent` at once: a command that may spill clears them at its start. */
  constructor(private readonly parent: string = tmpdir()) {
    sweepScratch(parent);
  }

  path(name: string): string {
    this.dir ??= this.write(() => makeScratchDir(this.parent));
    return join(this.dir, name);
  }

  /**
   * Runs a file call of this scratch: a system error (a full disk, a read-only or missing TMPDIR, no permission)
   * becomes one the user can act on, exit 14 as for any file taskctl could not write; anything else goes on as it is.
   */
  write<T>(call: () => T): T {
    try {
      return call();
    } catch (error) {
      if (error instanceof CliError || typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
      throw new CliError(
        `cannot write temporary files in ${this.parent} (${systemErrorWords(error)})`,
        ExitCode.outputFailed,
        'Large inputs and diffs spill there: set TMPDIR to a directory with room that you can write to, then run the command again.',
      );
    }
  }

  dispose(): void {
    if (this.dir) removeScratchDir(this.dir);
    this.dir = undefined;
  }
}

function makeScratchDir(parent: string): string {
  const dir = mkdtempSync(join(parent, PREFIX));
  let fd: number | undefined;
  try {
    const lock = join(dir, LOCK);
    // Node cannot make a FIFO itself. Without one (no mkfifo), the directory is still removed on every exit but a
    // killed run's stays: never judged dead, never swept while it may be live.
    execFileSync('mkfifo', ['-m', '600', lock], { stdio: 'ignore', timeout: 5_000 });
    fd = openSync(lock, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    fd = undefined;
    try {
      // A plain file in its place: a lock that is not a FIFO marks a directory no sweeper may judge.
      closeSync(openSync(join(dir, LOCK), 'a', 0o600));
    } catch {
      // The directory itself is unusable: the first write into it says so.
    }
  }
  live.set(dir, fd);
  if (!hooked) {
    hooked = true;
    // process.exit (exit 14 on an unwritable stdout, a signal's exit code) runs no `finally`, but runs this.
    process.on('exit', () => {
      for (const path of [...live.keys()]) removeScratchDir(path);
    });
  }
  return dir;
}

function removeScratchDir(dir: string): void {
  const fd = live.get(dir);
  live.delete(dir);
  try {
    if (fd !== undefined) closeSync(fd);
  } catch {
    // Already closed.
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes the scratch directories under `parent` that no live run holds: their lock FIFO has no reader. A directory
 * whose lock is not made yet is left alone for BIRTH_GRACE_MS; one whose lock is not a FIFO (made without mkfifo),
 * another user's, or anything unreadable is left as it is.
 */
export function sweepScratch(parent: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!NAME.test(name)) continue;
    const dir = join(parent, name);
    if (live.has(dir)) continue;
    try {
      const stats = lstatSync(dir);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      if (isAbandoned(join(dir, LOCK), now - stats.mtimeMs)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}

function isAbandoned(lock: string, ageMs: number): boolean {
  let isFifo: boolean;
  try {
    isFifo = lstatSync(lock).isFIFO();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && ageMs > BIRTH_GRACE_MS;
  }
  if (!isFifo) return false;
  try {
    // Succeeds only while someone holds the read end: the owner is alive (running or stopped).
    closeSync(openSync(lock, constants.O_WRONLY | constants.O_NONBLOCK));
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENXIO';
  }
}

/**
 * Append-only bytes: a buffer of `size` bytes, then a scratch file it is flushed to. Read back in order. With
 * `firstSize`, the buffer starts that small and doubles up to `size` before its first flush (a create of a few items
 * does not allocate a MiB); the buffer `reserve` returns then changes as it grows, so a caller keeps no view of it.
 */
export class ByteLog {
  private buffer: Buffer;
  private used = 0;
  private fd: number | undefined;
  private flushed = 0;

  constructor(
    private readonly scratch: Scratch,
    private readonly name: string,
    private readonly size: number,
    private readonly onFlush?: (bytes: Buffer) => void,
    firstSize = size,
  ) {
    // Not from the shared pool: Uint32Array views of it need an aligned offset.
    this.buffer = Buffer.allocUnsafeSlow(Math.min(size, firstSize));
  }

  /** Room for `bytes` more in the buffer, growing it up to `size`, else flushing it first, when needed. */
  reserve(bytes: number): Buffer {
    if (this.used + bytes > this.buffer.length && this.buffer.length < this.size) this.grow(this.used + bytes);
    if (this.used + bytes > this.buffer.length) this.flush();
    if (bytes > this.buffer.length) throw new RangeError(`record of ${bytes} bytes exceeds the buffer`);
    return this.buffer;
  }

  private grow(needed: number): void {
    let length = this.buffer.length;
    while (length < needed && length < this.size) length = Math.min(this.size, length * 2);
    const grown = Buffer.allocUnsafeSlow(length);
    this.buffer.copy(grown, 0, 0, this.used);
    this.buffer = grown;
  }

  get offset(): number {
    return this.used;
  }

  /** Bytes written so far, flushed or not. */
  get length(): number {
    return this.flushed + this.used;
  }

  advance(bytes: number): void {
    this.used += bytes;
  }

  /** Every byte written, in order: the file's, then the buffer's (aligned chunks of at most `blockSize` bytes). */
  *read(blockSize: number): Generator<Buffer> {
    if (this.fd !== undefined) {
      const block = Buffer.allocUnsafeSlow(blockSize);
      for (let position = 0; position < this.flushed;) {
        const n = readSync(this.fd, block, 0, Math.min(blockSize, this.flushed - position), position);
        if (n <= 0) throw new Error(`scratch file ${this.name} ended early`);
        position += n;
        yield block.subarray(0, n);
      }
    }
    if (this.used > 0) yield this.buffer.subarray(0, this.used);
  }

  /** Hands what is still buffered to `onFlush` (e.g. a digest), without writing it out. */
  finish(): void {
    if (this.used > 0) this.onFlush?.(this.buffer.subarray(0, this.used));
  }

  dispose(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    if (this.used === 0) return;
    const bytes = this.buffer.subarray(0, this.used);
    this.onFlush?.(bytes);
    const fd = (this.fd ??= this.scratch.write(() => openSync(this.scratch.path(this.name), 'w+', 0o600)));
    this.scratch.write(() => {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    });
    this.flushed += bytes.length;
    this.used = 0;
  }
}
