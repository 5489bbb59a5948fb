/**
 * One side of a diff sorted by target, in bounded memory (an external merge sort): items are gathered in runs of
 * RUN_ITEMS, each run sorted and, when a second one starts, spilled to a run file (store/sorted-runs.ts); reading
 * back merges the runs. The sort is stable (Array.prototype.sort is, and equal targets from different runs come out
 * in run order), so a target repeated within one side keeps its input order: repeats pair up in order.
 */
import type { RunFiles, RunReader } from '../../store/sorted-runs.js';
import type { DiffItem } from './values.js';

/** Items held in memory per run: about 25 MB of small items; a 10,000,000-item side spills 100 runs. */
export const RUN_ITEMS = 100_000;

/** Items in target order: `peek` looks at the next one, `next` takes it. */
export interface ItemCursor {
  peek: () => DiffItem | undefined;
  next: () => DiffItem | undefined;
}

const byTarget = (a: DiffItem, b: DiffItem): number => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

export class SortedSide {
  private run: DiffItem[] = [];
  private readonly spilled: string[] = [];

  constructor(
    private readonly files: RunFiles,
    private readonly runItems = RUN_ITEMS,
  ) {}

  /** Items taken so far. */
  count = 0;

  add(item: DiffItem): void {
    this.run.push(item);
    this.count++;
    if (this.run.length >= this.runItems) this.spill();
  }

  /** The items in target order: from memory when they fit one run, else merged from the run files. */
  sorted(): ItemCursor {
    this.run.sort(byTarget);
    if (this.spilled.length === 0) return arrayCursor(this.run);
    this.spill();
    return mergeRuns(this.spilled.map((path) => runCursor(this.files.read(path))));
  }

  private spill(): void {
    if (this.run.length === 0) return;
    this.run.sort(byTarget);
    this.spilled.push(this.files.write(this.run.map((item) => JSON.stringify([item.target, item.task, item.fields]))));
    this.run = [];
  }
}

function arrayCursor(items: DiffItem[]): ItemCursor {
  let at = 0;
  return { peek: () => items[at], next: () => items[at++] };
}

function runCursor(reader: RunReader): ItemCursor {
  const parse = (line: string | undefined): DiffItem | undefined => {
    if (line === undefined) return undefined;
    const [target, task, fields] = JSON.parse(line) as [string, number | null, Record<string, string>];
    return { target, task, fields };
  };
  let head = parse(reader.next());
  return {
    peek: () => head,
    next: () => {
      const current = head;
      head = parse(reader.next());
      return current;
    },
  };
}

interface HeapEntry {
  /** The cursor's place in the input order: equal targets come out lowest first. */
  order: number;
  cursor: ItemCursor;
  head: DiffItem;
}

function before(a: HeapEntry, b: HeapEntry): boolean {
  return a.head.target < b.head.target || (a.head.target === b.head.target && a.order < b.order);
}

/** Restores the heap below `from` (a binary min-heap by target, then order). */
function siftDown(heap: HeapEntry[], from: number): void {
  let at = from;
  for (;;) {
    const current = heap[at];
    const left = heap[2 * at + 1];
    const right = heap[2 * at + 2];
    if (current === undefined || left === undefined) return;
    const child = right !== undefined && before(right, left) ? 2 * at + 2 : 2 * at + 1;
    const least = child === 2 * at + 2 && right !== undefined ? right : left;
    if (!before(least, current)) return;
    heap[at] = least;
    heap[child] = current;
    at = child;
  }
}

/** A k-way merge over sorted cursors by a binary heap; equal targets come out in cursor order (stable). */
function mergeRuns(cursors: ItemCursor[]): ItemCursor {
  const heap: HeapEntry[] = [];
  cursors.forEach((cursor, order) => {
    const head = cursor.peek();
    if (head !== undefined) heap.push({ order, cursor, head });
  });
  for (let at = Math.floor(heap.length / 2) - 1; at >= 0; at--) siftDown(heap, at);
  return {
    peek: () => heap[0]?.head,
    next: () => {
      const top = heap[0];
      if (top === undefined) return undefined;
      const item = top.cursor.next();
      const head = top.cursor.peek();
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
