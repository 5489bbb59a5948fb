/** A side's partitions (by the target hash's first bits): the order they give, in memory, spilled, and merged. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiffTally, walkSides, type Change } from '../../../../src/core/diff/compare.js';
import { SideItems } from '../../../../src/core/diff/side-items.js';
import { itemTarget, SortedSide, targetHash, type ItemCursor } from '../../../../src/core/diff/sort.js';
import { RunFiles } from '../../../../src/store/sorted-runs.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function files(): RunFiles {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-partitions-test-'));
  const runs = new RunFiles(dir);
  cleanups.push(() => {
    runs.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return runs;
}

const partitionOf = (target: string) => targetHash(target) >>> 24;

/** Targets `t<i>` by partition, the first `count` found for each wanted partition. */
function targetsIn(wanted: Record<number, number>): string[] {
  const found = new Map<number, string[]>();
  for (let i = 0; Object.entries(wanted).some(([p, n]) => (found.get(Number(p))?.length ?? 0) < n); i++) {
    const target = `t${i}`;
    const p = partitionOf(target);
    const list = found.get(p) ?? [];
    if (list.length < (wanted[p] ?? 0)) found.set(p, [...list, target]);
  }
  return [...found.values()].flat();
}

/** The sort's order: by hash, then target, then place (targets are ASCII: JavaScript's `<` is the bytes' order). */
const expectedOrder = (targets: string[]) =>
  targets
    .map((target, place) => ({ target, place, hash: targetHash(target) }))
    .sort((x, y) => x.hash - y.hash || (x.target < y.target ? -1 : x.target > y.target ? 1 : x.place - y.place))
    .map((item) => item.target);

type Rec = Record<string, unknown>;
interface Limits {
  runItems?: number;
  runBytes?: number;
}

/** A side of `records` (which it takes: reading a record takes its target out). */
function side(name: string, records: Rec[], limits: Limits = {}): SideItems {
  const items = new SideItems(name, new SortedSide(files(), limits.runItems, limits.runBytes), 'json');
  records.forEach((record, index) => items.record(record, index + 1));
  items.sorted.finish();
  return items;
}

function drain(cursor: ItemCursor): string[] {
  const out: string[] = [];
  for (let item = cursor.next(); item !== undefined; item = cursor.next()) out.push(itemTarget(item));
  return out;
}

async function walk(a: SideItems, b: SideItems, fields: string[]): Promise<Change[]> {
  const changes: Change[] = [];
  await walkSides(a.sorted.sorted(), b.sorted.sorted(), {
    fields,
    tally: new DiffTally(),
    emit: (change) => changes.push(change),
    pause: () => Promise.resolve(),
  });
  return changes;
}

const brief = (changes: Change[]) => changes.map((c) => [c.target, c.field, c.before ?? null, c.after ?? null]);

// The first and last partitions, two with an empty one between them, and thirty targets sharing one partition.
const targets = targetsIn({ 0: 2, 3: 2, 5: 2, 7: 30, 255: 2 });
const spilled: Limits = { runItems: 1 };
const merged: Limits = { runBytes: 64 }; // a partition of more than 256 bytes spilled is sorted in parts and merged

describe('partitions', () => {
  it('give the order by hash, target and place across partitions, in memory, spilled and merged', () => {
    expect(new Set(targets.map(partitionOf))).toEqual(new Set([0, 3, 5, 7, 255]));
    // Each target twice: repeats keep their place.
    const twice = [...targets, ...[...targets].reverse()];
    const expected = expectedOrder(twice);
    for (const limits of [{}, spilled, merged]) {
      const records = twice.map((target, n) => ({ target, n }));
      expect(drain(side('a', records, limits).sorted.sorted())).toEqual(expected);
    }
  });

  it('a change on the last item of a spilled partition is found after the walk reads the next one', async () => {
    // The last target of partition 3 in the order, and partition 5 next (4 empty): its lines are read while 3's pair
    // is still to be compared. Partition 3's lines are the longer: 5's would fit in the buffer that holds them.
    const last = expectedOrder(targets.filter((target) => partitionOf(target) === 3)).at(-1) ?? '';
    const records = (changed: string) =>
      targets.map((target) => ({
        target,
        status: target === changed ? 'failed' : 'completed',
        ...(partitionOf(target) === 3 ? { pad: 'x'.repeat(100) } : {}),
      }));
    for (const limits of [{}, spilled, merged]) {
      const changes = await walk(side('a', records('')), side('b', records(last), limits), ['status']);
      expect(brief(changes)).toEqual([[last, 'status', '"completed"', '"failed"']]);
    }
  });

  it('a target repeated past what a partition reads whole pairs its repeats in order (sorted in parts, merged)', async () => {
    const repeats = (changedAt: number[]) => [
      ...targets.slice(0, 4).map((target) => ({ target, n: -1 })),
      ...Array.from({ length: 200 }, (_, n) => ({ target: 'same', n: changedAt.includes(n) ? n + 1000 : n })),
    ];
    const expected = [
      ['same', 'n', '7', '1007'],
      ['same', 'n', '150', '1150'],
    ];
    const inMemory = await walk(side('a', repeats([])), side('b', repeats([7, 150])), ['n']);
    expect(brief(inMemory)).toEqual(expected);
    const parts = await walk(side('a', repeats([]), merged), side('b', repeats([7, 150]), merged), ['n']);
    expect(brief(parts)).toEqual(expected);
  });

  it('a merged partition whose runs are read back in several blocks pairs every repeat in order', async () => {
    // 20,000 repeats (650 KB of lines a side) past a read-whole limit of 256 KiB: three parts of at most 256 KiB, each
    // read back 85 KiB at a time, so the walk's items cross block after block (whose buffers are reused) on both
    // sides. (30,000 made four parts read 64 KiB at a time: the same crossings, more of them.)
    const big: Limits = { runBytes: 64 * 1024 };
    const changedAt = [0, 7, 6_553, 12_345, 19_999];
    const repeats = (changed: boolean, count: number) =>
      Array.from({ length: count }, (_, n) => ({
        target: 'same',
        n: changed && changedAt.includes(n) ? n + 1_000_000 : n,
      }));
    const changes = await walk(side('a', repeats(false, 20_000), big), side('b', repeats(true, 20_001), big), ['n']);
    expect(brief(changes)).toEqual([
      ...changedAt.map((n) => ['same', 'n', String(n), String(n + 1_000_000)]),
      ['same', 'item', null, null],
    ]);
    expect(changes.at(-1)?.kind).toBe('added');
  });

  it('lines longer than a block, in a partition sorted in parts, pair by target and in order', async () => {
    // Three targets of one partition, 70 KB lines: parts of three lines, read back 64 KiB at a time, so each line takes
    // two reads and a block ends inside a line; items read before must keep their bytes while the walk uses them. The
    // second side has one more repeat, so its blocks fall elsewhere.
    const big: Limits = { runBytes: 64 * 1024 };
    const three = targetsIn({ 9: 3 });
    const pad = (n: number) => `${String(n)}${'x'.repeat(70_000)}`;
    const changed = ['0.1', '1.3', '1.5', '2.0'];
    const records = (second: boolean) =>
      three.flatMap((target, t) =>
        Array.from({ length: second && t === 0 ? 7 : 6 }, (_, n) => ({
          target,
          pad: pad(second && changed.includes(`${String(t)}.${String(n)}`) ? n + 100 : n),
        })),
      );
    const changes = await walk(side('a', records(false), big), side('b', records(true), big), ['pad']);
    const seen = changes.map((c) =>
      c.field === 'item'
        ? `${String(three.indexOf(c.target))}.${c.kind ?? ''}`
        : `${String(three.indexOf(c.target))}.${c.before?.slice(1, 2) ?? ''}`,
    );
    expect(seen.sort()).toEqual([...changed, '0.added'].sort());
    for (const change of changes.filter((c) => c.field === 'pad'))
      expect(change.after?.slice(1, 4)).toBe(`10${change.before?.slice(1, 2) ?? ''}`);
  });

  it('a side of one item against an empty side, both spilled or not', async () => {
    for (const limits of [{}, spilled, merged]) {
      const one = side('a', [{ target: 'only', status: 'completed' }], limits);
      expect(drain(one.sorted.sorted())).toEqual(['only']);
      const changes = await walk(side('a', [{ target: 'only' }], limits), side('b', [], limits), ['status']);
      expect(changes.map((c) => [c.target, c.kind])).toEqual([['only', 'removed']]);
    }
  });
});
