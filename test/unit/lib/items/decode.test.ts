import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ChunkDecoder,
  DecodeFailure,
  firstInvalidUtf8,
  incompleteUtf8Tail,
  sniffEncoding,
  decodeText,
  textFaultMessage,
} from '../../../../src/lib/items/decode.js';

/** Feeds `bytes` in pieces of `size` and returns the whole decoded text. */
function decodeInPieces(bytes: Buffer, size: number): string {
  const decoder = new ChunkDecoder();
  let text = '';
  for (let at = 0; at < bytes.length; at += size) text += decoder.decode(bytes.subarray(at, at + size));
  return text + decoder.end();
}

function failureOf(run: () => unknown): DecodeFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof DecodeFailure) return error;
    throw error;
  }
  throw new Error('expected a DecodeFailure');
}

const utf16be = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

describe('ChunkDecoder', () => {
  const sample = 'a.com\nmünchen.de\n例え.テスト\n😀.ws\n';

  it.each([1, 2, 3, 5, 64])('decodes UTF-8 split into %i-byte pieces, across multi-byte characters', (size) => {
    expect(decodeInPieces(Buffer.from(sample), size)).toBe(sample);
  });

  it.each([1, 2, 3, 7])('strips a UTF-8 BOM even when it arrives byte by byte (%i-byte pieces)', (size) => {
    expect(decodeInPieces(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sample)]), size)).toBe(sample);
  });

  it.each([1, 3, 4, 9])('decodes UTF-16LE with a BOM (%i-byte pieces, surrogate pairs split)', (size) => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(sample, 'utf16le')]);
    expect(decodeInPieces(bytes, size)).toBe(sample);
  });

  it.each([1, 3, 4, 9])('decodes UTF-16BE with a BOM (%i-byte pieces)', (size) => {
    const bytes = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(sample)]);
    expect(decodeInPieces(bytes, size)).toBe(sample);
  });

  it('treats input shorter than a BOM as UTF-8', () => {
    expect(decodeInPieces(Buffer.from('a'), 1)).toBe('a');
    expect(failureOf(() => decodeInPieces(Buffer.from([0xef, 0xbb]), 1)).kind).toBe('invalid-utf8');
  });

  it('reports NUL with the valid text before it', () => {
    const failure = failureOf(() => new ChunkDecoder().decode(Buffer.from('a.com\nb\0c')));
    expect(failure.kind).toBe('nul');
    expect(failure.prefix).toBe('a.com\nb');
  });

  it('reports invalid UTF-8 with the valid text before it', () => {
    const failure = failureOf(() => new ChunkDecoder().decode(Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x63, 0x00])));
    expect(failure.kind).toBe('invalid-utf8');
    expect(failure.prefix).toBe('a\nb');
  });

  it('reports a truncated character at the end of input', () => {
    const decoder = new ChunkDecoder();
    expect(decoder.decode(Buffer.from([0x61, 0x62, 0x63, 0xe2, 0x82]))).toBe('abc');
    expect(failureOf(() => decoder.end()).kind).toBe('invalid-utf8');
  });

  it('reports NUL in UTF-16 and an unpaired surrogate', () => {
    const nul = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ab\0', 'utf16le')]);
    expect(failureOf(() => new ChunkDecoder().decode(nul))).toMatchObject({ kind: 'nul', prefix: 'ab' });
    const lone = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x\n', 'utf16le'), Buffer.from([0x00, 0xdc])]);
    expect(failureOf(() => new ChunkDecoder().decode(lone))).toMatchObject({ kind: 'invalid-utf16', prefix: 'x\n' });
    const odd = new ChunkDecoder();
    odd.decode(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62]));
    expect(failureOf(() => odd.end())).toMatchObject({ kind: 'invalid-utf16', prefix: '' });
  });

  it('accepts exactly what a fatal TextDecoder accepts, for any bytes in any pieces', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 8 }), (raw, size) => {
        const bytes = Buffer.from(raw);
        let expected: string | undefined;
        try {
          expected = strict.decode(bytes);
        } catch {
          expected = undefined;
        }
        // UTF-16 BOMs switch encodings, and NUL is refused on purpose: compare only where both rules apply.
        fc.pre(!(bytes[0] === 0xff && bytes[1] === 0xfe) && !(bytes[0] === 0xfe && bytes[1] === 0xff));
        fc.pre(!bytes.includes(0));
        let actual: string | undefined;
        try {
          actual = decodeInPieces(bytes, size);
        } catch (error) {
          if (!(error instanceof DecodeFailure)) throw error;
          actual = undefined;
        }
        expect(actual).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('UTF-8 helpers', () => {
  it('finds the first invalid byte like the WHATWG decoder', () => {
    expect(firstInvalidUtf8(Buffer.from('ok ü 😀'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]))).toBe(2); // surrogate
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1); // truncated
  });

  it('holds back only an incomplete final sequence', () => {
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.from([0x61, 0xe2, 0x82]))).toBe(2);
    expect(incompleteUtf8Tail(Buffer.from([0x61, 0xe2, 0x82, 0xac]))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.from([0xf0, 0x9f, 0x98]))).toBe(3);
  });

  it('sniffs BOMs and waits only while a BOM is still possible', () => {
    expect(sniffEncoding(Buffer.from([0xef, 0xbb]), false)).toBeUndefined();
    expect(sniffEncoding(Buffer.from([0xef, 0xbb]), true)).toEqual({ encoding: 'utf8', bomLength: 0 });
    expect(sniffEncoding(Buffer.from('ab'), false)).toEqual({ encoding: 'utf8', bomLength: 0 });
    expect(sniffEncoding(Buffer.from([0xff, 0xfe]), false)).toEqual({ encoding: 'utf16le', bomLength: 2 });
  });
});

describe('decodeText (whole-file readers: journals)', () => {
  const text = '{"type":"job"}\n{"type":"chunk"}\n';
  it.each([
    ['UTF-8', Buffer.from(text)],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ['UTF-16LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['UTF-16BE with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
  ])('%s: the text, BOM removed', (_name, bytes) => {
    const decoded = decodeText(bytes);
    expect('text' in decoded && decoded.text).toBe(text);
  });

  it('a fault names its kind and line, in plain words', () => {
    const decoded = decodeText(Buffer.concat([Buffer.from('a\nb\n'), Buffer.from([0])]));
    expect(decoded).toEqual({ fault: { kind: 'nul', line: 3, encoding: 'utf8' } });
    if ('fault' in decoded)
      expect(textFaultMessage('job.journal', decoded.fault)).toBe('job.journal:3: NUL byte: binary data, not text');
    expect(decodeText(Buffer.from([0x61, 0x0a, 0xc3]))).toEqual({
      fault: { kind: 'invalid-utf8', line: 2, encoding: 'utf8' },
    });
  });
});
