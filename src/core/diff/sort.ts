/**
 * One side of a diff sorted in bounded memory (an external merge sort): items are encoded as lines of bytes and
 * gathered in runs bounded by RUN_LIMITS (items and bytes); each run is sorted and, when a second one starts,
 * spilled to a run file (store/sorted-runs.ts); reading back merges the runs, a block of bytes per run.
 *
 * The order is any order both sides share in which equal targets are adjacent: by a 32-bit hash of the target, then
 * the target, then the item's place in its side. A line is the hash (6 characters), the target as JSON, NUL, the
 * place (6 characters), NUL, the task, NUL, the fields as JSON: JSON text holds no raw NUL, so comparing two lines as
 * strings follows that order (bytes are compared as the UTF-16 strings they encode, `compareUtf16`), and a numeric
 * sort of the hashes does the work of a run (string comparisons of targets with long common prefixes cost 4 s of
 * 10 s at 1,000,000 items). Equal targets keep their input order, so repeats of a target pair up in order.
 */
import { hash128, hash128Ascii } from '../items/hash128.js';
import type { RunFiles, RunReader } from '../../store/sorted-runs.js';
import { stringifyJson } from '../../output/encode.js';
import type { ScannedLine } from './fast-line.js';
import type { DiffItem } from './values.js';

/**
 * A run's bounds: items at most (a run's numeric sort key leaves room for 2^21) and bytes of lines at most, whatever
 * the size of an item's results. 8 MiB: a run is put in order by copying its lines in the sort's order, which waits on
 * memory all over the run; runs of 64 MiB took 8.3 s of CPU for two 1,000,000-item sides, 16 MiB 6.9 s, 8 MiB and
 * 4 MiB 6.5 s (merging more runs costs less than the copy saves). Tests lower them to make a small side spill.
 */
export const RUN_LIMITS = { items: 1_000_000, bytes: 8 * 1024 * 1024 };
const INDEX_BITS = 2 ** 21;
/** Bytes of blocks a side's merge reads its runs in, shared by its runs: 16 MiB, each block 64 KiB to 1 MiB. */
const MERGE_BUDGET = 16 * 1024 * 1024;
const MIN_BLOCK = 64 * 1024;
const MAX_BLOCK = 1024 * 1024;
/** Bytes of a run's buffer at first: it doubles as it fills. */
const FIRST_BUFFER = 256 * 1024;
/** A sorted run is written out through a buffer this size. */
const WRITE_BLOCK = 1024 * 1024;

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

/** Two items of a side (or a side's runs) in the sort's order. */
function compareItems(x: SortedItem, y: SortedItem): number {
  if (x.hash !== y.hash) return x.hash < y.hash ? -1 : 1;
  return compareUtf16(x.buf, x.start + 6, x.end, y.buf, y.start + 6, y.end);
}

/** The order of two items' targets: by hash, then as strings. 0: the same target. */
export function compareKeys(x: SortedItem, y: SortedItem): number {
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

export class SortedSide {
  /** The run's lines, copied in as they are made (outside the JS heap: no line outlives a young-generation GC). */
  private buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;
  /** The run's items: where each line starts in `buffer`, and its target's hash. */
  private starts = new Uint32Array(0);
  private hashes = new Uint32Array(0);
  private items = 0;
  private readonly spilled: string[] = [];
  /** The last run, sorted, kept in memory when it is the only one. */
  private kept: { buffer: Buffer; starts: Uint32Array; order: Uint32Array; used: number } | undefined;
  private finished = false;
  /** Items taken so far. */
  count = 0;

  constructor(
    private readonly files: RunFiles,
    private readonly runItems = RUN_LIMITS.items,
    private readonly runBytes = RUN_LIMITS.bytes,
  ) {
    this.runItems = Math.min(runItems, INDEX_BITS);
  }

  /** An item read by the exact parser. */
  add(item: DiffItem): void {
    const hash = targetHash(item.target);
    const line = encodeItem(item, this.count, hash);
    const at = this.room(line.length * 3 + 1); // UTF-8 bytes at most, and the line break
    this.used = writeLine(this.buffer, line, at);
    this.commit(at, hash);
  }

  /** An item scanned from the bytes of an ndjson line (fast-line.ts): the same line as `add` makes of it. */
  addScanned(hash: number, scan: ScannedLine): void {
    const src = scan.buf;
    let at = this.room(scan.end - scan.start + 40);
    const buffer = this.buffer;
    const start = at;
    putFixed6(buffer, at, hash);
    at = copy(src, scan.targetStart, scan.targetEnd, buffer, at + 6);
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
    this.used = at;
    this.commit(start, hash);
  }

  /** Where a line of at most `most` bytes goes: a new run when this one is full. */
  private room(most: number): number {
    if (this.items >= this.runItems || this.used + most > this.runBytes) {
      if (this.items > 0) this.spill();
    }
    if (this.used + most > this.buffer.length) {
      // The buffer grows to the run's bound as it fills: a small side takes little memory.
      const grown = Buffer.allocUnsafeSlow(
        Math.max(this.used + most, Math.min(this.runBytes, this.buffer.length * 2 || FIRST_BUFFER)),
      );
      this.buffer.copy(grown, 0, 0, this.used);
      this.buffer = grown;
    }
    if (this.starts.length === this.items) {
      const size = Math.min(this.runItems, Math.max(1024, this.items * 2));
      const starts = new Uint32Array(size);
      const hashes = new Uint32Array(size);
      starts.set(this.starts);
      hashes.set(this.hashes);
      this.starts = starts;
      this.hashes = hashes;
    }
    return this.used;
  }

  private commit(start: number, hash: number): void {
    this.starts[this.items] = start;
    this.hashes[this.items] = hash;
    this.items++;
    this.count++;
  }

  /**
   * The side is read: its last run is sorted, and spilled when there are others, its buffers freed for the other
   * side's. Later calls do nothing.
   */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.spilled.length > 0) this.spill();
    else this.kept = { buffer: this.buffer, starts: this.starts, order: this.order(), used: this.used };
    this.items = 0;
    this.used = 0;
    this.buffer = Buffer.allocUnsafeSlow(0);
    this.starts = new Uint32Array(0);
    this.hashes = new Uint32Array(0);
  }

  /** The items in order: from memory when they fit one run, else merged from the run files. */
  sorted(): ItemCursor {
    this.finish();
    const kept = this.kept;
    if (kept !== undefined) {
      this.kept = undefined;
      return keptCursor(kept.buffer, kept.starts, kept.order, kept.used);
    }
    const block = Math.max(MIN_BLOCK, Math.min(MAX_BLOCK, Math.floor(MERGE_BUDGET / this.spilled.length)));
    return mergeRuns(this.spilled.map((path) => runCursor(this.files.read(path, block))));
  }

  /** The run's item indexes in order: by hash (a numeric sort), then by line for targets sharing a hash (rare). */
  private order(): Uint32Array {
    const keys = new Float64Array(this.items);
    for (let i = 0; i < this.items; i++) keys[i] = (this.hashes[i] ?? 0) * INDEX_BITS + i;
    keys.sort();
    const order = new Uint32Array(this.items);
    for (let i = 0; i < this.items; i++) order[i] = (keys[i] ?? 0) % INDEX_BITS;
    const buffer = this.buffer;
    for (let start = 0; start < order.length;) {
      const hash = this.hashes[order[start] ?? 0];
      let end = start + 1;
      while (end < order.length && this.hashes[order[end] ?? 0] === hash) end++;
      if (end - start > 1) {
        const group = Array.from(order.subarray(start, end)).sort((x, y) =>
          compareUtf16(buffer, this.starts[x] ?? 0, this.end(x) - 1, buffer, this.starts[y] ?? 0, this.end(y) - 1),
        );
        order.set(group, start);
      }
      start = end;
    }
    return order;
  }

  /** Where item `index`'s line ends, its line break included. */
  private end(index: number): number {
    return index + 1 < this.items ? (this.starts[index + 1] ?? this.used) : this.used;
  }

  private spill(): void {
    const out = Buffer.allocUnsafe(WRITE_BLOCK);
    const writer = this.files.writer();
    let at = 0;
    for (const index of this.order()) {
      const start = this.starts[index] ?? 0;
      const end = this.end(index);
      if (at + (end - start) > out.length) {
        writer.write(out.subarray(0, at));
        at = 0;
      }
      // A native copy: the lines are read in the sort's order, all over the run, and wait on memory more than on calls.
      if (end - start > out.length) writer.write(this.buffer.subarray(start, end));
      else at += this.buffer.copy(out, at, start, end);
    }
    writer.write(out.subarray(0, at));
    this.spilled.push(writer.close());
    this.items = 0;
    this.used = 0;
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

/** The one run kept in memory, in its order. */
function keptCursor(buffer: Buffer, starts: Uint32Array, order: Uint32Array, used: number): ItemCursor {
  const ends = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) ends[i] = i + 1 < order.length ? (starts[i + 1] ?? used) : used;
  let at = 0;
  return {
    next: () => {
      if (at >= order.length) return undefined;
      const index = order[at++] ?? 0;
      return itemAt(buffer, starts[index] ?? 0, (ends[index] ?? 1) - 1);
    },
  };
}

/** A run read back a block at a time: each line an item of its block. */
function runCursor(reader: RunReader): ItemCursor {
  let block: Buffer = Buffer.alloc(0);
  let at = 0;
  return {
    next: () => {
      for (;;) {
        const end = block.indexOf(10, at);
        if (end !== -1) {
          const item = itemAt(block, at, end);
          at = end + 1;
          return item;
        }
        const next = reader.read(block.subarray(at));
        if (next === undefined) return undefined;
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
