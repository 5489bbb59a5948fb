/**
 * One side of a diff sorted in bounded memory: items are encoded as lines of bytes and put in one of 256 partitions
 * by their target hash's first 8 bits as they are read; past RUN_LIMITS (items and bytes held) every partition's lines
 * are appended to the side's spill file (store/sorted-runs.ts). Reading back takes the partitions in order, each read
 * whole and put in order alone: a few thousand items, no merge of runs, and no copy of a line to gather it.
 *
 * The order is any order both sides share in which equal targets are adjacent: by a 32-bit hash of the target, then
 * the target, then the item's place in its side. A line is the hash (6 characters), the target as JSON, NUL, the
 * place (6 characters), NUL, the task, NUL, the fields as JSON: JSON text holds no raw NUL, so comparing two lines as
 * strings follows that order (bytes are compared as the UTF-16 strings they encode, `compareUtf16`), and a numeric
 * sort of the hashes does the work of a partition (string comparisons of targets with long common prefixes cost 4 s of
 * 10 s at 1,000,000 items). Equal targets keep their input order, so repeats of a target pair up in order.
 */
import { hash128, hash128Ascii } from '../items/hash128.js';
import type { RunFiles, SpillFile } from '../../store/sorted-runs.js';
import { stringifyJson } from '../../output/encode.js';
import type { ScannedLine } from './fast-line.js';
import type { DiffItem } from './values.js';

/**
 * What a side holds in memory before it spills: items at most, and bytes of lines at most, whatever the size of an
 * item's results. Past them every partition's lines go to the side's spill file. Tests lower them to make a small
 * side spill.
 */
export const RUN_LIMITS = { items: 1_000_000, bytes: 8 * 1024 * 1024 };
/** Partitions by the hash's first bits: walked in order, each put in order alone (a few thousand items each). */
const PARTITION_BITS = 8;
const PARTITIONS = 2 ** PARTITION_BITS;
const LOW_BITS = 32 - PARTITION_BITS;
const LOW = 2 ** LOW_BITS;
/** Items a partition can hold: its sort key is the hash's low bits and the item's place, in 53 bits. */
const PLACES = 2 ** (53 - LOW_BITS);
/**
 * A spilled partition is read whole when it holds at most this many times RUN_LIMITS.bytes (32 MiB, about 8 times
 * what a partition of a 10,000,000-item side holds); a larger one is sorted in parts and merged (`mergedPartition`).
 */
const LOAD_FACTOR = 4;
/** The least block a merged partition's run is read in. */
const MIN_BLOCK = 64 * 1024;
/** Bytes of a partition's buffer at first: it doubles as it fills. */
const FIRST_BUFFER = 4 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);

/** A line read back, as bytes of its block: its target's hash, where its key, task and fields are. */
export interface SortedItem {
  hash: number;
  buf: Buffer;
  /** The line: `start` (its hash) to `end` (before its line break). */
  start: number;
  end: number;
  /** The NUL after the target's JSON (the key is `start + 6` to here). */
  keyEnd: number;
  /** The task's digits, `keyEnd + 8` to `fieldsStart - 1`. */
  fieldsStart: number;
}

/** Items in order. */
export interface ItemCursor {
  next: () => SortedItem | undefined;
}

const SEP = '\u0000';
const hashWords = new Uint32Array(4);

/** A number below 2^36 as 6 ASCII characters (6 bits each, from `0`) that sort as the numbers do. */
function fixed6(value: number): string {
  const high = Math.floor(value / 2 ** 18);
  const low = value % 2 ** 18;
  return String.fromCharCode(
    48 + (high >>> 12),
    48 + ((high >>> 6) & 63),
    48 + (high & 63),
    48 + (low >>> 12),
    48 + ((low >>> 6) & 63),
    48 + (low & 63),
  );
}

/** fixed6 written as bytes at `at`. */
function putFixed6(buffer: Buffer, at: number, value: number): void {
  const high = Math.floor(value / 2 ** 18);
  const low = value % 2 ** 18;
  buffer[at] = 48 + (high >>> 12);
  buffer[at + 1] = 48 + ((high >>> 6) & 63);
  buffer[at + 2] = 48 + (high & 63);
  buffer[at + 3] = 48 + (low >>> 12);
  buffer[at + 4] = 48 + ((low >>> 6) & 63);
  buffer[at + 5] = 48 + (low & 63);
}

function readFixed6(buffer: Buffer, at: number): number {
  const high = ((buffer[at] ?? 48) - 48) * 4096 + ((buffer[at + 1] ?? 48) - 48) * 64 + ((buffer[at + 2] ?? 48) - 48);
  const low = ((buffer[at + 3] ?? 48) - 48) * 4096 + ((buffer[at + 4] ?? 48) - 48) * 64 + ((buffer[at + 5] ?? 48) - 48);
  return high * 2 ** 18 + low;
}

export function targetHash(target: string): number {
  hash128(target, hashWords);
  return hashWords[0] ?? 0;
}

/** targetHash of the ASCII target in bytes `start..end` of `buf`, without making a string of it. */
export function asciiTargetHash(buf: Uint8Array, start: number, end: number): number {
  hash128Ascii(buf, start, end, hashWords);
  return hashWords[0] ?? 0;
}

/** An item as a line of the sort (see the module comment); `place`: its index in its side. */
function encodeItem(item: DiffItem, place: number, hash: number): string {
  const target = JSON.stringify(item.target);
  const fields = stringifyJson(item.fields) ?? '{}';
  return `${fixed6(hash)}${target}${SEP}${fixed6(place)}${SEP}${item.task ?? ''}${SEP}${fields}`;
}

/** The target of an item (its key's JSON). */
export function itemTarget(item: SortedItem): string {
  return JSON.parse(item.buf.toString('utf8', item.start + 6, item.keyEnd)) as string;
}

/** The item's task, when its side knows it. */
export function itemTask(item: SortedItem): number | null {
  const from = item.keyEnd + 8;
  return item.fieldsStart - 1 === from ? null : Number(item.buf.toString('latin1', from, item.fieldsStart - 1));
}

export function itemFields(item: SortedItem): string {
  return item.buf.toString('utf8', item.fieldsStart, item.end);
}

/** The order of two items' targets: by hash, then as strings. 0: the same target. */
export function compareKeys(x: SortedItem, y: SortedItem): number {
  if (x === y) return 0; // the walk compares the key it took with itself
  if (x.hash !== y.hash) return x.hash < y.hash ? -1 : 1;
  return compareUtf16(x.buf, x.start + 6, x.keyEnd, y.buf, y.start + 6, y.keyEnd);
}

/** Bytes `xs..xe` of `x` and `ys..ye` of `y` are the same. */
export function sameBytes(x: Buffer, xs: number, xe: number, y: Buffer, ys: number, ye: number): boolean {
  const length = xe - xs;
  if (length !== ye - ys) return false;
  if (length > 64) return x.compare(y, ys, ye, xs, xe) === 0;
  for (let i = 0; i < length; i++) if (x[xs + i] !== y[ys + i]) return false;
  return true;
}

/**
 * Two UTF-8 byte ranges in the order of the UTF-16 strings they encode (JavaScript's `<`). Byte order is code point
 * order, which differs only where a character from U+E000 to U+FFFF (lead byte EE or EF) meets one beyond U+FFFF (lead
 * byte F0 to F4, a surrogate pair in UTF-16): there the string order is the reverse. Equal bytes up to a difference
 * mean the difference is at the same place in a character, so checking the two bytes found is enough.
 */
export function compareUtf16(x: Buffer, xs: number, xe: number, y: Buffer, ys: number, ye: number): number {
  const length = Math.min(xe - xs, ye - ys);
  for (let i = 0; i < length; i++) {
    const a = x[xs + i] ?? 0;
    const b = y[ys + i] ?? 0;
    if (a === b) continue;
    if (a >= 0xee && b >= 0xee && a < 0xf0 !== b < 0xf0) return a < 0xf0 ? 1 : -1;
    return a < b ? -1 : 1;
  }
  return xe - xs - (ye - ys);
}

/** The item of the line `start`..`end` (before its line break) of `buf`. */
function itemAt(buf: Buffer, start: number, end: number): SortedItem {
  let keyEnd = start + 6;
  while (buf[keyEnd] !== 0) keyEnd++;
  let taskEnd = keyEnd + 8;
  while (buf[taskEnd] !== 0) taskEnd++;
  return { hash: readFixed6(buf, start), buf, start, end, keyEnd, fieldsStart: taskEnd + 1 };
}

/** A side's lines, by partition (the hash's first bits), as they are added; spilled to its file past the bounds. */
export class SortedSide {
  /** Each partition's lines not yet spilled, copied in as they are made (outside the JS heap). */
  private buffers: Buffer[] = [];
  private readonly used = new Int32Array(PARTITIONS);
  /** Each partition's blocks in the spill file: where each starts and its length, in pairs. */
  private readonly blocks: number[][] = Array.from({ length: PARTITIONS }, () => []);
  private file: SpillFile | undefined;
  /** Items and bytes held in the buffers. */
  private heldItems = 0;
  private heldBytes = 0;
  private finished = false;
  /** Items taken so far. */
  count = 0;

  constructor(
    private readonly files: RunFiles,
    private readonly runItems = RUN_LIMITS.items,
    private readonly runBytes = RUN_LIMITS.bytes,
  ) {
    for (let p = 0; p < PARTITIONS; p++) this.buffers.push(EMPTY);
  }

  /** An item read by the exact parser. */
  add(item: DiffItem): void {
    const hash = targetHash(item.target);
    const line = encodeItem(item, this.count, hash);
    const p = hash >>> LOW_BITS;
    const at = this.room(p, line.length * 3 + 1); // UTF-8 bytes at most, and the line break
    this.commit(p, at, writeLine(this.buffers[p] ?? EMPTY, line, at));
  }

  /** An item scanned from the bytes of an ndjson line (fast-line.ts): the same line as `add` makes of it. */
  addScanned(hash: number, scan: ScannedLine): void {
    const src = scan.buf;
    const p = hash >>> LOW_BITS;
    const start = this.room(p, scan.end - scan.start + 40);
    const buffer = this.buffers[p] ?? EMPTY;
    putFixed6(buffer, start, hash);
    let at = copy(src, scan.targetStart, scan.targetEnd, buffer, start + 6);
    buffer[at++] = 0;
    putFixed6(buffer, at, this.count);
    at += 6;
    buffer[at++] = 0;
    if (scan.task !== null) at = putInteger(buffer, at, scan.task);
    buffer[at++] = 0;
    buffer[at++] = 123; // {
    const members = scan.members;
    for (let m = 0; m < scan.memberCount; m++) {
      if (m > 0) buffer[at++] = 44; // ,
      const k = m * 4;
      at = copy(src, members[k] ?? 0, members[k + 1] ?? 0, buffer, at);
      buffer[at++] = 58; // :
      at = copy(src, members[k + 2] ?? 0, members[k + 3] ?? 0, buffer, at);
    }
    buffer[at++] = 125; // }
    buffer[at++] = 10;
    this.commit(p, start, at);
  }

  /** Where a line of at most `most` bytes goes in partition `p`: the buffers are spilled first when they are full. */
  private room(p: number, most: number): number {
    if (this.heldItems > 0 && (this.heldItems >= this.runItems || this.heldBytes + most > this.runBytes)) this.spill();
    const used = this.used[p] ?? 0;
    const buffer = this.buffers[p] ?? EMPTY;
    if (used + most > buffer.length) {
      // Each buffer grows as it fills and is kept after a spill: a small side takes little memory.
      const grown = Buffer.allocUnsafeSlow(Math.max(used + most, buffer.length * 2 || FIRST_BUFFER));
      buffer.copy(grown, 0, 0, used);
      this.buffers[p] = grown;
    }
    return used;
  }

  private commit(p: number, start: number, end: number): void {
    this.used[p] = end;
    this.heldBytes += end - start;
    this.heldItems++;
    this.count++;
  }

  /** Every partition's lines appended to the side's spill file, a block each. */
  private spill(): void {
    this.file ??= this.files.file();
    for (let p = 0; p < PARTITIONS; p++) {
      const used = this.used[p] ?? 0;
      if (used === 0) continue;
      const at = this.file.append((this.buffers[p] ?? EMPTY).subarray(0, used));
      this.blocks[p]?.push(at, used);
      this.used[p] = 0;
    }
    this.heldItems = 0;
    this.heldBytes = 0;
  }

  /**
   * The side is read: when it spilled, the rest is spilled too and its buffers freed for the other side's. Later
   * calls do nothing.
   */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.file === undefined) return;
    this.spill();
    this.buffers = this.buffers.map(() => EMPTY);
  }

  /** The items in order: partition by partition, each put in order (from memory, or read back from the file). */
  sorted(): ItemCursor {
    this.finish();
    const file = this.file;
    const sorter = new PartitionSorter();
    const loadLimit = this.runBytes * LOAD_FACTOR;
    // Two buffers in turn: the items of a partition stay valid while the walk takes the next one's first item.
    const loaded: Buffer[] = [EMPTY, EMPTY];
    let turn = 0;
    const load = (p: number): { buf: Buffer; length: number } => {
      const blocks = this.blocks[p] ?? [];
      if (file === undefined || blocks.length === 0)
        return { buf: this.buffers[p] ?? EMPTY, length: this.used[p] ?? 0 };
      let length = 0;
      for (let k = 1; k < blocks.length; k += 2) length += blocks[k] ?? 0;
      if (length > loadLimit) return { buf: EMPTY, length };
      turn ^= 1;
      let buf = loaded[turn] ?? EMPTY;
      // Doubled to spare a reallocation per partition, but never past the most a partition is read whole.
      if (buf.length < length)
        buf = loaded[turn] = Buffer.allocUnsafeSlow(Math.min(loadLimit, Math.max(length, buf.length * 2)));
      readBlocks(file, blocks, 0, blocks.length, buf);
      return { buf, length };
    };
    let p = -1;
    let buf = EMPTY;
    let at = 0;
    let n = 0;
    let merged: ItemCursor | undefined;
    return {
      next: () => {
        for (;;) {
          if (merged !== undefined) {
            const item = merged.next();
            if (item !== undefined) return item;
            merged = undefined;
          }
          if (at < n) break;
          if (++p >= PARTITIONS) return undefined;
          const part = load(p);
          at = 0;
          n = 0;
          if (part.buf === EMPTY && part.length > 0 && file !== undefined)
            merged = mergedPartition(file, this.blocks[p] ?? [], loadLimit, sorter);
          else {
            buf = part.buf;
            n = sorter.sort(buf, part.length);
          }
        }
        const index = sorter.order[at++] ?? 0;
        return itemAt(buf, sorter.starts[index] ?? 0, (sorter.starts[index + 1] ?? 1) - 1);
      },
    };
  }
}

/** Blocks `from..to` (pairs of where and how long) of the spill file read one after the other into `into`. */
function readBlocks(file: SpillFile, blocks: number[], from: number, to: number, into: Buffer): number {
  let at = 0;
  for (let k = from; k < to; k += 2) {
    const size = blocks[k + 1] ?? 0;
    file.read(into, at, size, blocks[k] ?? 0);
    at += size;
  }
  return at;
}

/**
 * A partition too large to read whole (a target repeated a great many times, or many hashes that share their first
 * bits): read in parts of at most `limit` bytes, each put in order and appended to the spill file as a run, then the
 * runs merged, a block of each at a time.
 */
function mergedPartition(file: SpillFile, blocks: number[], limit: number, sorter: PartitionSorter): ItemCursor {
  const runs: Array<[number, number]> = [];
  let buf = EMPTY;
  // One buffer for every sorted part, reused: a new one per part left each to the collector (the whole partition).
  let out = EMPTY;
  for (let k = 0; k < blocks.length;) {
    const from = k;
    let length = 0;
    do {
      length += blocks[k + 1] ?? 0;
      k += 2;
    } while (k < blocks.length && length + (blocks[k + 1] ?? 0) <= limit);
    if (buf.length < length) buf = Buffer.allocUnsafeSlow(length);
    readBlocks(file, blocks, from, k, buf);
    const n = sorter.sort(buf, length);
    if (out.length < length) out = Buffer.allocUnsafeSlow(length);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const index = sorter.order[i] ?? 0;
      at += buf.copy(out, at, sorter.starts[index] ?? 0, sorter.starts[index + 1] ?? 0);
    }
    runs.push([file.append(out.subarray(0, length)), length]);
  }
  const block = Math.max(MIN_BLOCK, Math.floor(limit / runs.length));
  return mergeRuns(runs.map(([position, length]) => runCursor(file, position, length, block)));
}

/** A run of the spill file read back a block at a time: each line an item of its block. */
function runCursor(file: SpillFile, position: number, length: number, blockSize: number): ItemCursor {
  let block = EMPTY;
  let at = 0;
  let done = 0;
  return {
    next: () => {
      for (;;) {
        const end = block.indexOf(10, at);
        if (end !== -1) {
          const item = itemAt(block, at, end);
          at = end + 1;
          return item;
        }
        if (done >= length) return undefined;
        // A new block each time, which starts with the unfinished end of the last: items taken stay valid.
        const size = Math.min(blockSize, length - done);
        const next = Buffer.allocUnsafeSlow(block.length - at + size);
        block.copy(next, 0, at);
        file.read(next, block.length - at, size, position + done);
        done += size;
        block = next;
        at = 0;
      }
    },
  };
}

interface HeapEntry {
  cursor: ItemCursor;
  head: SortedItem;
}

/** Two items of a partition in the sort's order. */
function compareItems(x: SortedItem, y: SortedItem): number {
  if (x.hash !== y.hash) return x.hash < y.hash ? -1 : 1;
  return compareUtf16(x.buf, x.start + 6, x.end, y.buf, y.start + 6, y.end);
}

/** Restores the heap below `from` (a binary min-heap by line). */
function siftDown(heap: HeapEntry[], from: number): void {
  let at = from;
  for (;;) {
    const current = heap[at];
    const left = heap[2 * at + 1];
    const right = heap[2 * at + 2];
    if (current === undefined || left === undefined) return;
    const useRight = right !== undefined && compareItems(right.head, left.head) < 0;
    const least = useRight ? right : left;
    if (!(compareItems(least.head, current.head) < 0)) return;
    const child = useRight ? 2 * at + 2 : 2 * at + 1;
    heap[at] = least;
    heap[child] = current;
    at = child;
  }
}

/** A k-way merge of sorted cursors by a binary heap (lines are unique: each holds its place in its side). */
function mergeRuns(cursors: ItemCursor[]): ItemCursor {
  const heap: HeapEntry[] = [];
  for (const cursor of cursors) {
    const head = cursor.next();
    if (head !== undefined) heap.push({ cursor, head });
  }
  for (let at = Math.floor(heap.length / 2) - 1; at >= 0; at--) siftDown(heap, at);
  return {
    next: () => {
      const top = heap[0];
      if (top === undefined) return undefined;
      const item = top.head;
      const head = top.cursor.next();
      if (head !== undefined) top.head = head;
      else {
        const last = heap.pop();
        if (last !== undefined && heap.length > 0) heap[0] = last;
      }
      siftDown(heap, 0);
      return item;
    },
  };
}

/**
 * A partition's lines put in order: by the hash's bits below the partition's (a numeric sort of the hash and the
 * line's place in the partition, in one float), then by line for targets sharing a hash (rare). Its arrays are
 * reused from one partition to the next.
 */
class PartitionSorter {
  /** Where each line starts, and after the last, where the lines end. */
  starts = new Uint32Array(1024);
  order = new Uint32Array(1024);
  private keys = new Float64Array(1024);

  /** Indexes and sorts the lines in `buf[0..length]`; returns how many. */
  sort(buf: Buffer, length: number): number {
    let n = 0;
    for (let at = 0; at < length; n++) {
      if (n + 1 >= this.starts.length) this.grow();
      this.starts[n] = at;
      this.keys[n] = (readFixed6(buf, at) % LOW) * PLACES + n;
      at = buf.indexOf(10, at) + 1;
    }
    this.starts[n] = length;
    if (n >= PLACES) throw new Error('a partition of a diff side holds too many items');
    const keys = this.keys.subarray(0, n);
    keys.sort();
    const order = this.order;
    for (let i = 0; i < n; i++) order[i] = (keys[i] ?? 0) % PLACES;
    for (let start = 0; start < n;) {
      const low = Math.floor((keys[start] ?? 0) / PLACES);
      let end = start + 1;
      while (end < n && Math.floor((keys[end] ?? 0) / PLACES) === low) end++;
      if (end - start > 1) this.sortGroup(buf, start, end);
      start = end;
    }
    return n;
  }

  /** Lines `start..end` of the order share a hash: put them in order by their bytes. */
  private sortGroup(buf: Buffer, start: number, end: number): void {
    const starts = this.starts;
    const group = Array.from(this.order.subarray(start, end)).sort((x, y) =>
      compareUtf16(buf, starts[x] ?? 0, (starts[x + 1] ?? 1) - 1, buf, starts[y] ?? 0, (starts[y + 1] ?? 1) - 1),
    );
    this.order.set(group, start);
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Uint32Array(size);
    starts.set(this.starts);
    const keys = new Float64Array(size);
    keys.set(this.keys);
    this.starts = starts;
    this.keys = keys;
    this.order = new Uint32Array(size);
  }
}

/**
 * Lines shorter than this are copied byte by byte in JS: Buffer's write and copy cost more in argument checks than
 * the copy itself for a line of about 100 bytes (a third of the time spent filling and spilling runs).
 */
const SHORT_LINE = 512;

/** Writes `line` and a line break into `buffer` at `at` (room for 3 bytes a character checked by the caller). */
function writeLine(buffer: Buffer, line: string, at: number): number {
  let to = at;
  if (line.length < SHORT_LINE) {
    let i = 0;
    for (; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c >= 0x80) break;
      buffer[to++] = c;
    }
    if (i < line.length) to = at + buffer.write(line, at); // non-ASCII: the whole line by the UTF-8 encoder
  } else to += buffer.write(line, at);
  buffer[to++] = 10;
  return to;
}

/** A safe integer's digits written at `at` (as String() writes it); returns where they end. */
function putInteger(buffer: Buffer, at: number, value: number): number {
  let to = at;
  let rest = value;
  if (rest < 0) {
    buffer[to++] = 45; // -
    rest = -rest;
  }
  let digits = 1;
  for (let m = rest; m >= 10; m = Math.floor(m / 10)) digits++;
  for (let k = digits - 1; k >= 0; k--) {
    buffer[to + k] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return to + digits;
}

/** Copies bytes `start`..`end` of `from` into `to` at `at`; returns where the copy ends. */
function copy(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  if (end - start >= SHORT_LINE) return at + from.copy(to, at, start, end);
  let out = at;
  for (let i = start; i < end; i++) to[out++] = from[i] ?? 0;
  return out;
}
