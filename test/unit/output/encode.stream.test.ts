/** writeJson: the same text as JSON.stringify, written in bounded pieces (output never one big string). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkedWriter, jsonText, writeJson } from '../../../src/output/encode.js';

function streamed(
  value: unknown,
  pretty: boolean,
  filter = (text: string) => text,
): { text: string; pieces: string[] } {
  const pieces: string[] = [];
  writeJson(value, pretty, filter, (piece) => pieces.push(piece));
  return { text: pieces.join(''), pieces };
}

describe('writeJson', () => {
  it('writes exactly jsonText for any JSON value, pretty and compact', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        expect(streamed(value, pretty).text).toBe(jsonText(value, pretty, (text) => text));
      }),
      { numRuns: 300 },
    );
  });

  it('drops undefined properties and writes null for undefined array elements, as JSON.stringify does', () => {
    const value = { a: undefined, b: [undefined, 1], c: { d: undefined } };
    expect(streamed(value, true).text).toBe(JSON.stringify(value, null, 2));
    expect(streamed(value, false).text).toBe(JSON.stringify(value));
  });

  it('writes a task of 10,000 items in pieces no larger than one item, redacted and neutralised', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({
      target: `d${i}.io`,
      data: { note: 'sk_secret_1234 \u001b[2J' },
    }));
    const { text, pieces } = streamed({ id: 1, items }, true, (piece) =>
      piece.split('sk_secret_1234').join('[REDACTED]'),
    );
    const expected = { id: 1, items: items.map((item) => ({ ...item, data: { note: '[REDACTED] \u001b[2J' } })) };
    // The value read back, compared as JSON text (its keys in order too): toEqual over 10,000 items was half the test.
    expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(expected));
    expect(text).toContain('\\u001b[2J');
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(200);
  });

  it('writes a large value deep in an item (thousands of objects in one result) in small pieces too', () => {
    const wide = Array.from({ length: 5_000 }, () => ({}));
    const keyed = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, [i]]));
    const task = {
      id: 1,
      items: [
        { target: 'a.io', data: { x: wide, y: { keyed } } },
        { target: 'b.io', data: {} },
      ],
    };
    for (const pretty of [true, false]) {
      const { text, pieces } = streamed(task, pretty);
      expect(text).toBe(jsonText(task, pretty, (piece) => piece));
      expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(200);
    }
  });

  it('chunkedWriter passes on 64 Ki characters at a time by default (not a MiB: docs/performance.md)', () => {
    const chunks: string[] = [];
    const out = chunkedWriter((text) => chunks.push(text));
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 63; i++) out.write(line);
    expect(chunks).toEqual([]);
    out.write(line);
    expect(chunks.map((chunk) => chunk.length)).toEqual([64 * 1024]);
  });

  it('chunkedWriter passes on about `size` characters at a time, and everything on flush', () => {
    const chunks: string[] = [];
    const out = chunkedWriter((text) => chunks.push(text), 10);
    for (const part of ['abcd', 'efgh', 'ijkl', 'mn']) out.write(part);
    expect(chunks).toEqual(['abcdefghijkl']);
    out.flush();
    expect(chunks).toEqual(['abcdefghijkl', 'mn']);
  });
});
