import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashSet128, hash128 } from './hash128.js';

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

const GROUP_BITS = 6;
const RECORD_WORDS = 5; // the hash's 4 words, then the item's index
const RECORD_BYTES = RECORD_WORDS * 4;

/**
 * Finds repeated items without holding them: each item's 128-bit hash and index go to one of 64 groups by the hash's
 * top bits (20 bytes on disk per item); at the end each group is replayed in input order through a set of the hashes
 * seen (16–48 bytes per distinct item of that group, so about 1/64 of the distinct items at a time). The result is one
 * bit per item: set when an earlier item had the same hash, i.e. (128 bits) the same text.
 */
export class RepeatFinder {
  private readonly groups: Array<{ log: ByteLog; words: Uint32Array }> = [];
  private readonly hash = new Uint32Array(4);
  private count = 0;

  constructor(scratch: Scratch) {
    for (let g = 0; g < 1 << GROUP_BITS; g++) {
      const log = new ByteLog(scratch, `hashes-${g}`, 1024 * RECORD_BYTES);
      const buffer = log.reserve(0);
      // Records are written as native 32-bit words and read back by the same process: byte order cannot differ.
      this.groups.push({ log, words: new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4) });
    }
  }

  add(item: string): void {
    const hash = this.hash;
    hash128(item, hash, 0);
    const group = this.groups[(hash[0] ?? 0) >>> (32 - GROUP_BITS)];
    if (!group) return; // unreachable: the top bits index the groups
    group.log.reserve(RECORD_BYTES);
    const at = group.log.offset >>> 2;
    const words = group.words;
    words[at] = hash[0] ?? 0;
    words[at + 1] = hash[1] ?? 0;
    words[at + 2] = hash[2] ?? 0;
    words[at + 3] = hash[3] ?? 0;
    words[at + 4] = this.count++;
    group.log.advance(RECORD_BYTES);
  }

  /** One bit per item added, set for repeats; and how many there are. */
  finish(): { repeats: Uint8Array; duplicates: number } {
    const repeats = new Uint8Array(Math.ceil(this.count / 8));
    let duplicates = 0;
    for (const { log } of this.groups) {
      const seen = new HashSet128();
      for (const block of log.read(4096 * RECORD_BYTES)) {
        const words = new Uint32Array(block.buffer, block.byteOffset, block.length / 4);
        for (let at = 0; at < words.length; at += RECORD_WORDS) {
          if (seen.add(words, at)) continue;
          const index = words[at + 4] ?? 0;
          repeats[index >>> 3] = (repeats[index >>> 3] ?? 0) | (1 << (index & 7));
          duplicates++;
        }
      }
      log.dispose();
    }
    return { repeats, duplicates };
  }

  dispose(): void {
    for (const { log } of this.groups) log.dispose();
  }
}
