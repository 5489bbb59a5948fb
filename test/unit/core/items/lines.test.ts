import { describe, expect, it } from 'vitest';
import { LineSplitter, lineAtEnd } from '../../../../src/core/items/lines.js';

function split(pieces: string[], max = 100): Array<[string, number]> {
  const lines: Array<[string, number]> = [];
  const splitter = new LineSplitter(max, (lineNo) => {
    throw new Error(`too long at ${lineNo}`);
  });
  for (const piece of pieces) splitter.push(piece, (line, n) => lines.push([line, n]));
  splitter.end((line, n) => lines.push([line, n]));
  return lines;
}

describe('LineSplitter', () => {
  it('splits LF, CRLF and lone CR, numbering every physical line', () => {
    expect(split(['a\nb\r\nc\rd'])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
  });

  it('keeps a CRLF split across chunks as one break', () => {
    expect(split(['a\r', '\nb\r', 'c\r'])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('carries partial lines and emits a final line without a newline', () => {
    expect(split(['ab', 'c\nd', 'e'])).toEqual([
      ['abc', 1],
      ['de', 2],
    ]);
    expect(split(['x\n'])).toEqual([['x', 1]]);
    expect(split(['\n\n'])).toEqual([
      ['', 1],
      ['', 2],
    ]);
  });

  it('reports an over-long line while it is still unfinished', () => {
    const splitter = new LineSplitter(4, (lineNo) => {
      throw new Error(`too long at ${lineNo}`);
    });
    splitter.push('ok\n', () => undefined);
    expect(() => splitter.push('abcde', () => undefined)).toThrow('too long at 2');
  });

  it('names the line a mid-line fault is on', () => {
    const splitter = new LineSplitter(100, () => {
      throw new Error('unreachable');
    });
    splitter.push('a\nb', () => undefined);
    expect(splitter.currentLine).toBe(2);
    splitter.push('\r', () => undefined);
    expect(splitter.currentLine).toBe(3);
  });

  it('counts lines in text the same way', () => {
    expect(lineAtEnd('')).toBe(1);
    expect(lineAtEnd('a\r\nb\rc\n')).toBe(4);
  });
});
