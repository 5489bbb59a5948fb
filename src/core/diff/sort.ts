/**
 * One side of a diff sorted in bounded memory (an external merge sort): items are encoded as text lines and gathered
 * in runs of at most RUN_ITEMS items or RUN_BYTES bytes; each run is sorted and, when a second one starts,
 * spilled to a run file (store/sorted-runs.ts); reading back merges the runs.
 *
 * The order is any order both sides share in which equal targets are adjacent: by a 32-bit hash of the target, then
 * the target, then the item's place in its side. A line is the hash (6 characters), the target as JSON, NUL, the
 * place (6 characters), NUL, the task, NUL, the fields as JSON: JSON text holds no raw NUL, so comparing two lines as
 * strings follows that order, and a numeric sort of the hashes does the work of a run (string comparisons of targets
 * with long common prefixes cost 4 s of 10 s at 1,000,000 items). Equal targets keep their input order, so repeats of
 * a target pair up in order.
 */
import { hash128 } from '../items/hash128.js';
import type { RunFiles, RunReader } from '../../store/sorted-runs.js';
import { stringifyJson } from '../../output/encode.js';
import type { DiffItem } from './values.js';

/**
 * Items per run at most (2^21 is what a run's numeric sort key leaves room for): about 8 MB of lines. Runs of 100,000
 * took 312 MB peak RSS at 1,000,000 items, runs of 50,000 233 MB (lines outlive young-generation GCs).
 */
const RUN_ITEMS = 50_000;
/** Bytes of lines per run at most: 8 MiB, whatever the size of an item's results. */
const RUN_BYTES = 8 * 1024 * 1024;
const INDEX_BITS = 2 ** 21;

/** Lines in order: `peek` looks at the next one, `next` takes it. */
export interface LineCursor {
  peek: () => string | undefined;
  next: () => string | undefined;
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

function targetHash(target: string): number {
  hash128(target, hashWords);
  return hashWords[0] ?? 0;
}

/** An item as a line of the sort (see the module comment); `place`: its index in its side. */
function encodeItem(item: DiffItem, place: number, hash = targetHash(item.target)): string {
  const target = JSON.stringify(item.target);
  const fields = stringifyJson(item.fields) ?? '{}';
  return `${fixed6(hash)}${target}${SEP}${fixed6(place)}${SEP}${item.task ?? ''}${SEP}${fields}`;
}

/** A line read back: its sort key (hash and target), task and fields (as JSON, parsed on demand). */
export interface SortedItem {
  key: string;
  task: number | null;
  fieldsText: string;
}

export function decodeLine(line: string): SortedItem {
  const keyEnd = line.indexOf(SEP);
  const taskStart = keyEnd + 8; // past NUL, the place's 6 characters, NUL
  const taskEnd = line.indexOf(SEP, taskStart);
  const task = line.slice(taskStart, taskEnd);
  return { key: line.slice(0, keyEnd), task: task === '' ? null : Number(task), fieldsText: line.slice(taskEnd + 1) };
}

/** The target of a key (hash + JSON). */
export function keyTarget(key: string): string {
  return JSON.parse(key.slice(6)) as string;
}

export class SortedSide {
  /** The run's lines, copied in as they are made (outside the JS heap: no line outlives a young-generation GC). */
  private buffer = Buffer.allocUnsafeSlow(RUN_BYTES);
  /** The run sorted, before it is written. */
  private out = Buffer.allocUnsafeSlow(0);
  private used = 0;
  /** The run's items: where each line starts in `buffer`, and its target's hash. */
  private readonly starts: Uint32Array;
  private readonly hashes: Uint32Array;
  private items = 0;
  private readonly spilled: string[] = [];
  /** Items taken so far. */
  count = 0;

  constructor(
    private readonly files: RunFiles,
    private readonly runItems = RUN_ITEMS,
  ) {
    this.runItems = Math.min(runItems, INDEX_BITS);
    this.starts = new Uint32Array(this.runItems);
    this.hashes = new Uint32Array(this.runItems);
  }

  add(item: DiffItem): void {
    const hash = targetHash(item.target);
    const line = encodeItem(item, this.count++, hash);
    const most = line.length * 3 + 1; // UTF-8 bytes at most, and the line break
    if (this.used + most > this.buffer.length) {
      this.spill();
      if (most > this.buffer.length) this.buffer = Buffer.allocUnsafeSlow(most);
    }
    this.starts[this.items] = this.used;
    this.hashes[this.items] = hash;
    this.items++;
    this.used = writeLine(this.buffer, line, this.used);
    if (this.items >= this.runItems) this.spill();
  }

  /** The lines in order: from memory when they fit one run, else merged from the run files. */
  sorted(): LineCursor {
    if (this.spilled.length === 0) {
      const lines = Array.from(this.order(), (index) => this.line(index));
      this.release();
      return arrayCursor(lines);
    }
    this.spill();
    this.release();
    return mergeRuns(this.spilled.map((path) => runCursor(this.files.read(path))));
  }

  /** The run's item indexes in order: by hash (a numeric sort), then by line for targets sharing a hash (rare). */
  private order(): Uint32Array {
    const keys = new Float64Array(this.items);
    for (let i = 0; i < this.items; i++) keys[i] = (this.hashes[i] ?? 0) * INDEX_BITS + i;
    keys.sort();
    const order = new Uint32Array(this.items);
    for (let i = 0; i < this.items; i++) order[i] = (keys[i] ?? 0) % INDEX_BITS;
    for (let start = 0; start < order.length;) {
      const hash = this.hashes[order[start] ?? 0];
      let end = start + 1;
      while (end < order.length && this.hashes[order[end] ?? 0] === hash) end++;
      if (end - start > 1) {
        const group = Array.from(order.subarray(start, end)).sort((x, y) => compareText(this.line(x), this.line(y)));
        order.set(group, start);
      }
      start = end;
    }
    return order;
  }

  /** Item `index`'s line, without its line break. */
  private line(index: number): string {
    return this.buffer.toString('utf8', this.starts[index], this.end(index) - 1);
  }

  private end(index: number): number {
    return index + 1 < this.items ? (this.starts[index + 1] ?? this.used) : this.used;
  }

  private spill(): void {
    if (this.items === 0) return;
    if (this.out.length < this.used) this.out = Buffer.allocUnsafeSlow(Math.max(this.used, RUN_BYTES));
    let at = 0;
    for (const index of this.order())
      at = copyBytes(this.buffer, this.starts[index] ?? 0, this.end(index), this.out, at);
    this.spilled.push(this.files.write(this.out.subarray(0, at)));
    this.items = 0;
    this.used = 0;
  }

  /** The buffers are not needed once the side is read. */
  private release(): void {
    this.items = 0;
    this.used = 0;
    this.buffer = Buffer.allocUnsafeSlow(0);
    this.out = this.buffer;
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

/** Copies bytes `start`..`end` of `from` into `to` at `at`; returns where the copy ends. */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  if (end - start >= SHORT_LINE) return at + from.copy(to, at, start, end);
  let out = at;
  for (let i = start; i < end; i++) to[out++] = from[i] ?? 0;
  return out;
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function arrayCursor(lines: string[]): LineCursor {
  let at = 0;
  return { peek: () => lines[at], next: () => lines[at++] };
}

function runCursor(reader: RunReader): LineCursor {
  let head = reader.next();
  return {
    peek: () => head,
    next: () => {
      const current = head;
      head = reader.next();
      return current;
    },
  };
}

interface HeapEntry {
  cursor: LineCursor;
  head: string;
}

/** Restores the heap below `from` (a binary min-heap by line). */
function siftDown(heap: HeapEntry[], from: number): void {
  let at = from;
  for (;;) {
    const current = heap[at];
    const left = heap[2 * at + 1];
    const right = heap[2 * at + 2];
    if (current === undefined || left === undefined) return;
    const useRight = right !== undefined && right.head < left.head;
    const least = useRight ? right : left;
    if (!(least.head < current.head)) return;
    const child = useRight ? 2 * at + 2 : 2 * at + 1;
    heap[at] = least;
    heap[child] = current;
    at = child;
  }
}

/** A k-way merge of sorted cursors by a binary heap (lines are unique: each holds its place in its side). */
function mergeRuns(cursors: LineCursor[]): LineCursor {
  const heap: HeapEntry[] = [];
  for (const cursor of cursors) {
    const head = cursor.peek();
    if (head !== undefined) heap.push({ cursor, head });
  }
  for (let at = Math.floor(heap.length / 2) - 1; at >= 0; at--) siftDown(heap, at);
  return {
    peek: () => heap[0]?.head,
    next: () => {
      const top = heap[0];
      if (top === undefined) return undefined;
      const line = top.cursor.next();
      const head = top.cursor.peek();
      if (head !== undefined) top.head = head;
      else {
        const last = heap.pop();
        if (last !== undefined && heap.length > 0) heap[0] = last;
      }
      siftDown(heap, 0);
      return line;
    },
  };
}
