/** The matching and comparison rules of `taskctl diff`, in process: pairing, no-value, canonical JSON, csv text. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/errors.js';
import { chooseFields } from '../../../../src/core/diff/index.js';
import { DiffTally, walkSides, type Change } from '../../../../src/core/diff/compare.js';
import { summaryText } from '../../../../src/core/diff/print.js';
import { SideItems } from '../../../../src/core/diff/side-items.js';
import { SortedSide } from '../../../../src/core/diff/sort.js';
import { canonicalJson, fromCsvRow, type CompareMode } from '../../../../src/core/diff/values.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { createPrinter } from '../../../../src/output/printer.js';
import { RunFiles } from '../../../../src/store/sorted-runs.js';

const dirs: string[] = [];
const runFiles: RunFiles[] = [];
afterEach(() => {
  for (const files of runFiles.splice(0)) files.dispose();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-test-'));
  dirs.push(dir);
  return dir;
}

type Rec = Record<string, unknown>;

function side(name: string, records: Rec[], options: { mode?: CompareMode; runItems?: number; files?: RunFiles } = {}) {
  const files = options.files ?? new RunFiles(tempDir());
  runFiles.push(files);
  const items = new SideItems(name, new SortedSide(files, options.runItems), options.mode ?? 'json');
  records.forEach((record, index) => items.record(record, index + 1));
  return items;
}

/** The changes, by target (the walk's own order is by a hash of the target). */
async function diff(a: SideItems, b: SideItems, fields: string[]) {
  const changes: Change[] = [];
  const tally = new DiffTally();
  await walkSides(a.sorted.sorted(), b.sorted.sorted(), {
    fields,
    tally,
    emit: (change) => changes.push(change),
    pause: () => Promise.resolve(),
  });
  changes.sort((x, y) => (x.target < y.target ? -1 : x.target > y.target ? 1 : 0));
  return { changes, tally };
}

const brief = (changes: Change[]) => changes.map((c) => [c.target, c.field, c.before ?? null, c.after ?? null]);

describe('matching', () => {
  it('by target exactly: no case folding, and an item on one side only is one "item" change', async () => {
    const a = side('a', [
      { target: 'A.com', status: 'completed' },
      { target: 'gone.com', status: 'completed' },
    ]);
    const b = side('b', [
      { target: 'a.com', status: 'completed' },
      { target: 'A.com', status: 'completed' },
    ]);
    const { changes, tally } = await diff(a, b, ['status']);
    expect(changes.map((c) => [c.target, c.field, c.kind, c.before, c.after])).toEqual([
      ['a.com', 'item', 'added', undefined, undefined],
      ['gone.com', 'item', 'removed', undefined, undefined],
    ]);
    expect([tally.items, tally.changed, tally.added, tally.removed]).toEqual([3, 2, 1, 1]);
  });

  it('a target repeated within a side pairs in order, as (target, n)', async () => {
    const a = side('a', [
      { target: 'x', available: true },
      { target: 'y', available: true },
      { target: 'x', available: false },
      { target: 'x', available: true },
    ]);
    const b = side('b', [
      { target: 'x', available: true },
      { target: 'x', available: true },
    ]);
    const { changes } = await diff(a, b, ['available']);
    expect(brief(changes)).toEqual([
      ['x', 'available', 'false', 'true'],
      ['x', 'item', null, null],
      ['y', 'item', null, null],
    ]);
    expect(changes[1]?.kind).toBe('removed');
  });

  it('a target repeated many times is paired as the sides are read, with Ctrl-C heard within it', async () => {
    // 45,000 repeats on one side, 44,999 on the other: the walk pauses (where Ctrl-C stops it) every 20,000 pairs, also
    // inside one target, which it pairs as it goes instead of holding all its repeats first.
    const a = side(
      'a',
      Array.from({ length: 45_000 }, () => ({ target: 'same.com', n: 1 })),
    );
    const b = side(
      'b',
      Array.from({ length: 44_999 }, () => ({ target: 'same.com', n: 1 })),
    );
    const changes: Change[] = [];
    const pausedAfter: number[] = [];
    await walkSides(a.sorted.sorted(), b.sorted.sorted(), {
      fields: ['n'],
      tally: new DiffTally(),
      emit: (change) => changes.push(change),
      pause: () => Promise.resolve(void pausedAfter.push(changes.length)),
    });
    expect(pausedAfter).toEqual([0, 0]);
    expect(brief(changes)).toEqual([['same.com', 'item', null, null]]);
    expect(changes[0]?.kind).toBe('removed');
  });

  it('spilled runs merge to the same changes as one run in memory, and dispose removes them', async () => {
    const records = (seed: number) =>
      Array.from({ length: 40 }, (_, i) => ({ target: `t${(i * 7 + seed) % 13}`, n: i % 3, status: 'completed' }));
    const dir = tempDir();
    const files = new RunFiles(dir);
    const spilled = await diff(
      side('a', records(1), { runItems: 3, files }),
      side('b', records(2), { runItems: 4, files }),
      ['n'],
    );
    expect(readdirSync(dir)).toHaveLength(1); // the scratch dir with the runs
    const inMemory = await diff(side('a', records(1)), side('b', records(2)), ['n']);
    expect(spilled.changes).toEqual(inMemory.changes);
    expect(spilled.changes.length).toBeGreaterThan(0);
    for (const files of runFiles.splice(0)) files.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('lines with non-ASCII text and lines over 512 bytes survive a spill byte for byte', async () => {
    const long = 'x'.repeat(600);
    const records = (changed: boolean) => [
      { target: 'café.example', note: 'ascii first, then é', status: 'completed' },
      { target: 'plain.example', note: changed ? `${long}!` : long, status: 'completed' },
      { target: '日本.example', note: changed ? 'après' : 'avant', status: 'completed' },
      { target: 'same.example', note: `ü${long}`, status: 'completed' },
    ];
    const spilled = await diff(side('a', records(false), { runItems: 1 }), side('b', records(true), { runItems: 2 }), [
      'note',
    ]);
    expect(brief(spilled.changes)).toEqual([
      ['plain.example', 'note', JSON.stringify(long), JSON.stringify(`${long}!`)],
      ['日本.example', 'note', '"avant"', '"après"'],
    ]);
    expect(spilled.tally.items).toBe(4);
  });
});

describe('values', () => {
  it('null, an absent field and an empty csv cell are the same', async () => {
    const a = side('a', [{ target: 'a', status: 'completed', available: null }]);
    const b = side('b', [{ target: 'a', status: 'completed' }]);
    expect((await diff(a, b, ['status', 'available'])).changes).toEqual([]);
    const row = fromCsvRow(['task', 'target', 'status', 'available', 'error'], ['1', 'a', 'completed', '', ''], 1);
    expect(row).toEqual({ target: 'a', task: 1, fields: { status: 'completed' } });
  });

  it('canonical JSON: object keys in any order are equal, arrays in order are not', async () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    const a = side('a', [
      { target: 'k', records: { b: 1, a: 2 } },
      { target: 'l', records: [1, 2] },
    ]);
    const b = side('b', [
      { target: 'k', records: { a: 2, b: 1 } },
      { target: 'l', records: [2, 1] },
    ]);
    expect(brief((await diff(a, b, ['records'])).changes)).toEqual([['l', 'records', '[1,2]', '[2,1]']]);
  });

  it('types count in json mode: true and "true" differ', async () => {
    const a = side('a', [{ target: 'a', available: true }]);
    const b = side('b', [{ target: 'a', available: 'true' }]);
    expect(brief((await diff(a, b, ['available'])).changes)).toEqual([['a', 'available', 'true', '"true"']]);
  });

  it('csv mode: values are the text csv prints, nested fields by their dotted column', async () => {
    const a = side(
      'a',
      [{ target: 'a', status: 'completed', available: true, whois: { registrar: 'X' }, error: null }],
      {
        mode: 'csv',
      },
    );
    const b = side('b', [], { mode: 'csv' });
    b.add(
      fromCsvRow(['target', 'status', 'available', 'whois.registrar', 'error'], ['a', 'completed', 'true', 'X', ''], 0),
    );
    expect((await diff(a, b, ['status', 'available', 'whois.registrar', 'error'])).changes).toEqual([]);
    expect([...a.fields]).toEqual(['status', 'available', 'whois.registrar', 'error']);
  });
});

describe('fields', () => {
  const printer = () => {
    const memory = createMemoryIO();
    return { printer: createPrinter({ io: memory.io, format: 'ndjson', color: false }), memory };
  };

  it('default: status and every result field, not the error; a field on one side only is skipped with a warning', () => {
    const a = side('a', [{ target: 'a', status: 'completed', available: true, error: null, extra: 1 }]);
    const b = side('b', [{ target: 'a', status: 'completed', available: true, error: 'x' }]);
    const { printer: p, memory } = printer();
    expect(chooseFields(a, b, undefined, p)).toEqual(['status', 'available']);
    expect(memory.stderr.text()).toBe('warning: "extra" is only in a: not compared\n');
    expect(chooseFields(a, b, ['error'], p)).toEqual(['error']);
  });

  it('no result field in common while both sides have some: exit 2, the longest lists cut short', () => {
    const many = Object.fromEntries(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'].map((name) => [name, 1]));
    const a = side('a', [{ target: 'a', status: 'completed', available: true, error: null }]);
    const b = side('b', [{ target: 'a', status: 'completed', error: null, ...many }]);
    const { printer: p, memory } = printer();
    expect(() => chooseFields(a, b, undefined, p)).toThrow(
      'no result field in common: a has available, b has r1, r2, r3, r4, r5 and 2 more',
    );
    expect(memory.stderr.text()).toBe('');
    expect(chooseFields(a, b, ['status'], p)).toEqual(['status']);
    // One side without results (every item failed, or no items): its statuses are still compared.
    const none = side('c', [{ target: 'a', status: 'failed', error: 'x' }]);
    expect(chooseFields(a, none, undefined, p)).toEqual(['status']);
    expect(() => chooseFields(a, side('d', []), undefined, p)).not.toThrow();
  });

  it('--fields naming a field one side lacks while it has other results (a renamed field): exit 2', () => {
    const a = side('last', [{ target: 'a', status: 'completed', available: true, error: null }]);
    const b = side('tonight', [{ target: 'a', status: 'completed', is_available: true, error: null }]);
    const { printer: p, memory } = printer();
    expect(() => chooseFields(a, b, ['status', 'available'], p)).toThrow(
      '"available" is only in last: tonight has is_available',
    );
    // A side with no results at all (every item failed): the field is skipped with a warning, statuses compared.
    const failed = side('failed', [{ target: 'a', status: 'failed', error: 'x' }]);
    expect(chooseFields(a, failed, ['status', 'available'], p)).toEqual(['status']);
    expect(memory.stderr.text()).toBe('warning: "available" is only in last: not compared\n');
  });

  it('--fields naming a field neither side has, while a side has results (a typo), is exit 2, listing the fields', () => {
    const a = side('a', [{ target: 'a', status: 'completed', available: true }]);
    const b = side('b', [{ target: 'a', status: 'failed', error: 'x' }]);
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      expect(() => chooseFields(x, y, ['avaliable'], printer().printer)).toThrow(UsageError);
      expect(() => chooseFields(x, y, ['status', 'avaliable'], printer().printer)).toThrow(
        'no field "avaliable" on either side',
      );
    }
  });

  it('--fields naming a field neither side has because neither has results (every item failed): a warning, statuses compared', () => {
    const a = side('last', [{ target: 'a', status: 'failed', error: 'x' }]);
    const b = side('tonight', [{ target: 'a', status: 'failed', error: 'y' }]);
    const { printer: p, memory } = printer();
    expect(chooseFields(a, b, ['status', 'available'], p)).toEqual(['status']);
    expect(memory.stderr.text()).toBe(
      'warning: no field "available" on either side (neither has results): not compared\n',
    );
  });
});

describe('summary', () => {
  it('counts over the union of targets and names boolean flips first', async () => {
    const a = side('a', [
      { target: 'a', available: false, status: 'completed' },
      { target: 'b', available: false, status: 'completed' },
      { target: 'c', available: true, status: 'completed' },
      { target: 'd', available: true, status: 'failed' },
      { target: 'e', available: true, status: 'completed' },
    ]);
    const b = side('b', [
      { target: 'a', available: true, status: 'completed' },
      { target: 'b', available: true, status: 'completed' },
      { target: 'c', available: false, status: 'completed' },
      { target: 'd', available: true, status: 'completed' },
      { target: 'f', available: true, status: 'completed' },
    ]);
    const { tally } = await diff(a, b, ['status', 'available']);
    expect(summaryText(tally)).toBe(
      '6 of 6 items changed: 2 became available, 1 became unavailable, 1 added, 1 removed, 1 changed status',
    );
  });
});
