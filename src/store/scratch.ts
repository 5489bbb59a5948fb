import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Scratch storage that lets items stream: what a later pass needs (the items to send, the hashes for de-duplication)
// is held in small buffers and, past them, in files of a private scratch directory made on first use. Small inputs
// never touch the disk; a 10,000,000-line input holds a few MB in memory.

/** A private directory under the system temp dir, made on first use and removed by `dispose`. */
export class Scratch {
  private dir: string | undefined;

  constructor(private readonly parent: string = tmpdir()) {}

  path(name: string): string {
    if (this.dir === undefined) {
      removeStaleScratch(this.parent);
      // The pid in the name tells a later run whether the dir's owner is still alive.
      this.dir = mkdtempSync(join(this.parent, `taskctl-items-${process.pid}-`));
    }
    return join(this.dir, name);
  }

  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

/** A scratch dir this old whose process is gone is left from a run that was killed (SIGKILL, a crash). */
const STALE_SCRATCH_MS = 5 * 60_000;

/**
 * Removes the scratch dirs under `parent` that runs killed before `dispose` left behind: named with a pid that is no
 * longer alive, and untouched for STALE_SCRATCH_MS (a pid reused by another process keeps its dir: only safe
 * mistakes). Best effort: anything unreadable is left as it is.
 */
export function removeStaleScratch(parent: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^taskctl-items-(\d+)-[^-]+$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
    const dir = join(parent, name);
    try {
      if (now - statSync(dir).mtimeMs < STALE_SCRATCH_MS) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Append-only bytes: a buffer of `size` bytes, then a scratch file it is flushed to. Read back in order. */
export class ByteLog {
  private readonly buffer: Buffer;
  private used = 0;
  private fd: number | undefined;
  private flushed = 0;

  constructor(
    private readonly scratch: Scratch,
    private readonly name: string,
    size: number,
    private readonly onFlush?: (bytes: Buffer) => void,
  ) {
    // Not from the shared pool: Uint32Array views of it need an aligned offset.
    this.buffer = Buffer.allocUnsafeSlow(size);
  }

  /** Room for `bytes` more in the buffer, flushing it first when needed. */
  reserve(bytes: number): Buffer {
    if (this.used + bytes > this.buffer.length) this.flush();
    if (bytes > this.buffer.length) throw new RangeError(`record of ${bytes} bytes exceeds the buffer`);
    return this.buffer;
  }

  get offset(): number {
    return this.used;
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
    this.fd ??= openSync(this.scratch.path(this.name), 'w+', 0o600);
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
    this.flushed += bytes.length;
    this.used = 0;
  }
}
