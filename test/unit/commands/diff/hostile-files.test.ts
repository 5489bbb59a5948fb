/**
 * `taskctl diff` against hostile files, in process: any depth, exact integers, encodings, binary data, Unicode
 * spellings of one target, csv rows and headers that cannot be compared, and the summary at a narrow terminal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { producer } from '../../core/items/item-sources.js';
import { runTaskctl } from '../run-in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;
function file(text: string | Buffer, ext = 'ndjson'): string {
  const path = join(dir, `side-${++count}.${ext}`);
  writeFileSync(path, text);
  return path;
}
const record = (target: string, rest: string) => `{"target":${JSON.stringify(target)},"status":"completed",${rest}}\n`;
const parsed = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('depth', () => {
  const deep = (depth: number, leaf: string) => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

  // 5,000 is already past JSON.stringify's reach (the iterative encoder takes over); 50,000 is past any recursion's.
  it.each([5_000, 50_000])('a value %i deep on either side is compared, never a crash', async (depth) => {
    const a = file(record('a.com', `"x":${deep(depth, '1')}`));
    const b = file(record('a.com', `"x":${deep(depth, '2')}`));
    const same = await runTaskctl(['diff', a, a]);
    expect(same.code, same.stderr).toBe(0);
    const result = await runTaskctl(['diff', a, b, '-o', 'csv']);
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout.split('\n')[1]).toMatch(/^a\.com,x,/);
  });

  it('deep values in a json document and a csv side: compared, exit 15', async () => {
    const a = file(`[${record('a.com', `"x":${deep(5_000, '1')}`)}]`, 'json');
    const b = file(`target,status,x\na.com,completed,1\n`, 'csv');
    const result = await runTaskctl(['diff', a, b, '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(15);
  });
});

describe('exact numbers', () => {
  it('integers past 2^53 compare and print by their digits', async () => {
    const a = file(record('a.com', '"n":9007199254740993'));
    const b = file(record('a.com', '"n":9007199254740992'));
    const result = await runTaskctl(['diff', a, b, '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout).toContain('"before":9007199254740993');
    expect(result.stdout).toContain('"after":9007199254740992');
    const csv = await runTaskctl(['diff', a, b, '-o', 'csv']);
    expect(csv.stdout).toContain('a.com,n,9007199254740993,9007199254740992');
    const table = await runTaskctl(['diff', a, b]);
    expect(table.stdout).toContain('9007199254740993');
  });

  it('nested and negative big integers too; the same digits are equal', async () => {
    const a = file(record('a.com', '"n":{"k":[-123456789012345678901]}'));
    const b = file(record('a.com', '"n":{"k":[-123456789012345678902]}'));
    expect((await runTaskctl(['diff', a, a])).code).toBe(0);
    const result = await runTaskctl(['diff', a, b, '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(15);
    expect(result.stdout).toContain('"before":{"k":[-123456789012345678901]}');
  });

  it('1e3 equals 1000 and -0 equals 0 (numbers by value); digits inside strings are left alone', async () => {
    const a = file(record('a.com', '"n":1e3,"z":-0,"s":"90071992547409931"'));
    const b = file(record('a.com', '"n":1000,"z":0,"s":"90071992547409931"'));
    const result = await runTaskctl(['diff', a, b]);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('encodings and binary data', () => {
  const text = record('a.com', '"available":true');
  it.each([
    ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['UTF-16BE', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
  ])('%s with a BOM is read as the same side', async (_name, bytes) => {
    const result = await runTaskctl(['diff', file(bytes), file(text)]);
    expect(result.code, result.stderr).toBe(0);
  });

  it('a csv side in UTF-16 is read as csv', async () => {
    const csv = 'target,status,available\na.com,completed,true\n';
    const u16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')]);
    const result = await runTaskctl(['diff', file(u16, 'csv'), file(csv, 'csv')]);
    expect(result.code, result.stderr).toBe(0);
  });

  it('binary data (NUL bytes) is refused as a diff side, with what diff accepts', async () => {
    const result = await runTaskctl(['diff', file(Buffer.alloc(4096)), file(text)]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/side-\d+\.ndjson:1: NUL byte/);
    expect(result.stderr).not.toMatch(/one item per line/);
    expect(result.stderr).toMatch(/results file/);
  });

  it('NUL bytes after a good first line: refused the same way', async () => {
    const result = await runTaskctl(['diff', file(Buffer.concat([Buffer.from(text), Buffer.alloc(10)])), file(text)]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/:2: NUL byte/);
    expect(result.stderr).not.toMatch(/one item per line/);
  });
});

describe('caps while reading', () => {
  const chunk = Buffer.alloc(256 * 1024, 'x');

  it('an endless line on stdin after a valid first line: refused once it passes 8 MiB, the producer stopped', async () => {
    const first = Buffer.from(record('a.com', '"a":1'));
    const endless = producer((pull) => (pull === 0 ? first : chunk));
    const result = await runTaskctl(['diff', '-', file(record('a.com', '"a":1'))], { stdinStream: endless.stream });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: stdin:2: line is longer than 8 MiB; stopped reading/);
    expect(endless.pulls()).toBeLessThan(40); // 8 MiB is 32 chunks
    expect(endless.stopped()).toBe(true);
  });

  it('one endless item of a json side: refused once it passes 8 MiB', async () => {
    const endless = producer((pull) => (pull === 0 ? Buffer.from('[{"target":"a.com","v":"') : chunk));
    const result = await runTaskctl(['diff', '-', file(record('a.com', '"a":1'))], { stdinStream: endless.stream });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: stdin:1: an item is longer than 8 MiB; stopped reading/);
    expect(endless.pulls()).toBeLessThan(40);
  });
});

describe('targets and csv rows', () => {
  it('NFC and NFD spellings of a target are one item', async () => {
    const nfc = 'caf\u00e9.com';
    const nfd = 'cafe\u0301.com';
    const result = await runTaskctl(['diff', file(record(nfc, '"a":1')), file(record(nfd, '"a":2')), '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(15);
    expect(parsed(result.stdout)).toEqual([expect.objectContaining({ target: nfc, field: 'a', before: 1, after: 2 })]);
  });

  it('a csv row without a target is exit 3 with file and line', async () => {
    const a = file('target,status\na.com,completed\n,completed\n', 'csv');
    const result = await runTaskctl(['diff', a, a]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/side-\d+\.csv:3: .*no target/);
  });

  it('a repeated csv header is exit 3 with file and line', async () => {
    const a = file('target,status,x,x\na.com,completed,1,2\n', 'csv');
    const result = await runTaskctl(['diff', a, a]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/side-\d+\.csv:1: .*"x".*twice/);
  });
});

describe('summary', () => {
  it('is wrapped to the terminal, never splitting a word', async () => {
    const before = ['a', 'b', 'c', 'd', 'e'].map((t) => record(`${t}.com`, '"available":false')).join('');
    const after = ['a', 'b', 'c', 'd', 'e'].map((t) => record(`${t}.com`, '"available":true')).join('');
    const result = await runTaskctl(['diff', file(before), file(after)], { stdoutTTY: true, columns: 40 });
    expect(result.code, result.stderr).toBe(15);
    const summary = result.stdout.split('\n\n')[0] ?? '';
    for (const line of summary.split('\n')) expect(line.length).toBeLessThan(40);
    expect(summary).toMatch(/5 became\s+available/);
  });
});
