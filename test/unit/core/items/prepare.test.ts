import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dedupeItems, prepareItems, validateItems } from '../../../../src/core/items/index.js';
import { HashSet128, hash128 } from '../../../../src/core/items/hash128.js';
import { inputError, makeTempDir, streamOf, type TempDir } from './item-sources.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

const service = 'domain_check_availability';

function collect(chunks: Iterable<string[]>): string[][] {
  return [...chunks];
}

describe('prepareItems: streaming read, check, de-duplication', () => {
  it('gives what readItems + validateItems + dedupeItems give, in chunks, with counts', async () => {
    const input = 'B.com\nnot a domain\na.com\nb.com\n# comment\nc.com\na.com\n';
    const prepared = await prepareItems([{ kind: 'stdin', stream: streamOf([input]) }], {
      service,
      scratchDir: temp.dir,
    });
    try {
      expect(prepared.count).toBe(3);
      expect(prepared.duplicates).toBe(2);
      expect(prepared.invalidCount).toBe(1);
      expect(prepared.invalid[0]?.where).toBe('stdin:2');
      expect(prepared.normalised).toEqual({ count: 1, first: [{ item: 'B.com', sent: 'b.com' }] });
      expect(collect(prepared.chunks(2))).toEqual([['b.com', 'a.com'], ['c.com']]);
      expect(collect(prepared.chunks(2, 1))).toEqual([['c.com']]);
      expect(collect(prepared.chunks(10))).toEqual([['b.com', 'a.com', 'c.com']]);
    } finally {
      prepared.dispose();
    }
  });

  it('spills to scratch files past its buffers, agrees with the in-memory path, and removes them', async () => {
    // 80,000 items, a third of them repeats (2.9 MB as UTF-16): past the 1 MiB spool buffer and past every one of the
    // 64 hash groups' buffers of 1,024 records (1,250 items a group on average; at 68,000, 9 groups stayed in memory).
    const items: string[] = [];
    for (let i = 0; i < 80_000; i++) items.push(`d${(i * 7919) % 53_003}.example.com`);
    const lines = items.join('\n');
    const blocks: string[] = [];
    for (let at = 0; at < lines.length; at += 65_536) blocks.push(lines.slice(at, at + 65_536));
    const prepared = await prepareItems([{ kind: 'stdin', stream: streamOf(blocks) }], {
      service,
      scratchDir: temp.dir,
    });
    try {
      const [scratch, ...others] = await readdir(temp.dir);
      expect(others).toEqual([]);
      // The scratch directory holds the spilled files: the items' spool and every hash group's.
      const spilled = await readdir(join(temp.dir, scratch ?? ''));
      expect(spilled).toContain('items');
      expect(spilled.filter((name) => name.startsWith('hashes-'))).toHaveLength(64);
      const expected = dedupeItems(validateItems(service, items).valid);
      expect(expected.duplicates).toBe(26_997);
      expect(prepared.count).toBe(expected.unique.length);
      expect(prepared.duplicates).toBe(expected.duplicates);
      // Compared as lines (an item never holds a line break): toEqual over 53,003 strings cost as much as reading them.
      const asLines = (chunks: Iterable<string[]>) => collect(chunks).flat().join('\n');
      expect(asLines(prepared.chunks(5000))).toBe(expected.unique.join('\n'));
      expect(asLines(prepared.chunks(5000, 10))).toBe(expected.unique.slice(10 * 5000).join('\n'));
    } finally {
      prepared.dispose();
    }
    expect(await readdir(temp.dir)).toEqual([]);
  });

  it('--keep-duplicates and --no-validate send the items as read; the digest depends only on what is sent', async () => {
    const read = (input: string, validate: boolean) =>
      prepareItems([{ kind: 'stdin', stream: streamOf([input]) }], {
        service,
        validate,
        keepDuplicates: true,
        scratchDir: temp.dir,
      });
    const raw = await read('A.com\nA.com\n', false);
    const same = await read('  A.com\r\nA.com', false);
    const folded = await read('A.com\nA.com\n', true);
    try {
      expect(collect(raw.chunks(5))).toEqual([['A.com', 'A.com']]);
      expect(raw.digest).toBe(same.digest);
      expect(folded.digest).not.toBe(raw.digest);
    } finally {
      for (const p of [raw, same, folded]) p.dispose();
    }
  });

  it('keeps only the first invalid items, with the count of all', async () => {
    const input = Array.from({ length: 50 }, (_, i) => `bad item ${i}`).join('\n');
    const prepared = await prepareItems([{ kind: 'stdin', stream: streamOf([input]) }], { service });
    expect(prepared.invalidCount).toBe(50);
    expect(prepared.invalid).toHaveLength(20);
    expect(prepared.count).toBe(0);
    prepared.dispose();
  });

  it("a CSV whose header row is one of the service's items (a file with no header) is refused, never read one short", async () => {
    const csvOf = (text: string, more: { column?: string; service?: string } = {}) =>
      prepareItems([{ kind: 'stdin', stream: streamOf([text]) }], { service, format: 'csv', ...more });
    await inputError(
      csvOf('a.com\nb.com\n'),
      /^stdin:1: the first row is read as the CSV's header, but its first cell, "a\.com", is an item/,
    );
    // Named as the header, it is one: the rows below it are the items.
    const named = await csvOf('a.com\nb.com\n', { column: 'a.com' });
    expect(named.count).toBe(1);
    named.dispose();
    // A header that is no item, or a service whose items can be anything: read as before.
    const headed = await csvOf('domain,note\na.com,x\n');
    expect(headed.count).toBe(1);
    headed.dispose();
    const anything = await csvOf('a.com\nb.com\n', { service: 'other_service' });
    expect(anything.count).toBe(1);
    anything.dispose();
  });

  it('an error while reading removes the scratch files and says where', async () => {
    // 100,000 items (1.2 MB as UTF-16): past the 1 MiB spool buffer, so there are scratch files to remove.
    const big = 'a.com\n'.repeat(100_000);
    let spilled: string[] = [];
    async function* stdin(): AsyncGenerator<string> {
      yield big;
      spilled = await readdir(temp.dir, { recursive: true });
      yield 'b.com\n\u0000';
    }
    await inputError(
      prepareItems([{ kind: 'stdin', stream: stdin() }], { service, scratchDir: temp.dir }),
      /^stdin:100002: NUL byte/,
    );
    expect(spilled.some((path) => path.endsWith('/items'))).toBe(true);
    expect(await readdir(temp.dir)).toEqual([]);
  });
});

describe('hash128 and HashSet128', () => {
  it('hashes every length and code unit into distinct 128-bit values', () => {
    const out = new Uint32Array(4);
    const seen = new Set<string>();
    const texts: string[] = [''];
    for (let n = 1; n <= 40; n++) texts.push('x'.repeat(n), 'y'.repeat(n), `${'x'.repeat(n - 1)}\u00e9`);
    for (let i = 0; i < 20_000; i++) texts.push(`item-${i}`, `\ud83d\ude00${i}`);
    for (const text of texts) {
      hash128(text, out);
      seen.add(`${out[0]},${out[1]},${out[2]},${out[3]}`);
    }
    expect(seen.size).toBe(texts.length);
  });

  it('a set of hashes answers membership exactly, across growth, including the all-zero hash', () => {
    const set = new HashSet128(16);
    const words = new Uint32Array(4);
    // The answers gathered and compared once: an expect() per add cost more than the set itself (20,000 of them).
    const added = (): boolean[] =>
      Array.from({ length: 10_000 }, (_, i) => {
        hash128(String(i), words);
        return set.add(words, 0);
      });
    expect(added()).toEqual(Array<boolean>(10_000).fill(true));
    expect(added()).toEqual(Array<boolean>(10_000).fill(false));
    const zero = new Uint32Array(4);
    expect(set.add(zero, 0)).toBe(true);
    expect(set.add(zero, 0)).toBe(false);
  });
});
