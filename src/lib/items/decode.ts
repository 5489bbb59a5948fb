/**
 * Bytes to text, the one way every reader decodes (items files and stdin, `diff` sides, journals): a BOM names UTF-8,
 * UTF-16LE or UTF-16BE (no BOM: UTF-8); NUL bytes and invalid sequences are refused with the text before them, so
 * the caller can name the line (docs/behaviour.md#input-encodings).
 */
import { isUtf8 } from 'node:buffer';

export type TextEncoding = 'utf8' | 'utf16le' | 'utf16be';

/**
 * Raised by `ChunkDecoder` when the bytes are not acceptable text. `prefix` is the text decoded before the fault,
 * so the caller can count lines and name the line where it happened.
 */
export class DecodeFailure extends Error {
  constructor(
    readonly kind: 'nul' | 'invalid-utf8' | 'invalid-utf16',
    readonly prefix: string,
  ) {
    super(kind);
  }
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Turns a stream of byte chunks into validated text chunks: BOM sniffed and stripped (UTF-8, UTF-16LE, UTF-16BE; no BOM
 * means UTF-8), multi-byte sequences split across chunks carried over, invalid text and NUL bytes rejected.
 * Work is per chunk, not per line, so large inputs cost a few native calls per 256 KiB.
 */
export class ChunkDecoder {
  private encoding: TextEncoding | undefined;
  /** Bytes held back: a possible BOM start, or an incomplete character at a chunk's end. */
  private pending: Buffer | undefined;

  get detected(): TextEncoding | undefined {
    return this.encoding;
  }

  /** Decodes one chunk; may return '' while bytes are held back. Throws `DecodeFailure`. */
  decode(chunk: Buffer): string {
    let bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    if (this.encoding === undefined) {
      const sniffed = sniffEncoding(bytes, false);
      if (!sniffed) {
        this.pending = Buffer.from(bytes);
        return '';
      }
      this.encoding = sniffed.encoding;
      bytes = bytes.subarray(sniffed.bomLength);
    }
    return this.encoding === 'utf8' ? this.decodeUtf8(bytes) : this.decodeUtf16(bytes);
  }

  /** Flushes held-back bytes at end of input. Throws `DecodeFailure` on a truncated final character. */
  end(): string {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest || rest.length === 0) return '';
    if (this.encoding === undefined) {
      const sniffed = sniffEncoding(rest, true) ?? { encoding: 'utf8', bomLength: 0 }; // final: always decided
      this.encoding = sniffed.encoding;
      const body = rest.subarray(sniffed.bomLength);
      return this.encoding === 'utf8' ? this.decodeUtf8(body, true) : this.decodeUtf16(body, true);
    }
    throw new DecodeFailure(this.encoding === 'utf8' ? 'invalid-utf8' : 'invalid-utf16', '');
  }

  private decodeUtf8(bytes: Buffer, final = false): string {
    const tail = final ? 0 : incompleteUtf8Tail(bytes);
    const body = tail ? bytes.subarray(0, bytes.length - tail) : bytes;
    if (tail) this.pending = Buffer.from(bytes.subarray(bytes.length - tail));
    const nulAt = body.indexOf(0);
    const invalidAt = isUtf8(body) ? -1 : Math.max(0, firstInvalidUtf8(body));
    if (nulAt === -1 && invalidAt === -1) return body.toString('utf8');
    // Report whichever fault comes first; the text before it is valid.
    const isNul = nulAt !== -1 && (invalidAt === -1 || nulAt < invalidAt);
    const at = isNul ? nulAt : invalidAt;
    throw new DecodeFailure(isNul ? 'nul' : 'invalid-utf8', body.subarray(0, at).toString('utf8'));
  }

  private decodeUtf16(bytes: Buffer, final = false): string {
    let cut = bytes.length & ~1;
    // A high surrogate at the very end may pair with the first unit of the next chunk.
    if (!final && cut >= 2) {
      const unit = this.encoding === 'utf16le' ? bytes.readUInt16LE(cut - 2) : bytes.readUInt16BE(cut - 2);
      if (unit >= 0xd800 && unit <= 0xdbff) cut -= 2;
    }
    if (cut < bytes.length) {
      if (final) {
        const text = this.utf16Text(bytes.subarray(0, cut));
        throw new DecodeFailure('invalid-utf16', text);
      }
      this.pending = Buffer.from(bytes.subarray(cut));
    }
    const text = this.utf16Text(bytes.subarray(0, cut));
    const nulAt = text.indexOf('\0');
    const lone = LONE_SURROGATE.exec(text);
    const invalidAt = lone ? lone.index : -1;
    if (nulAt === -1 && invalidAt === -1) return text;
    const isNul = nulAt !== -1 && (invalidAt === -1 || nulAt < invalidAt);
    const at = isNul ? nulAt : invalidAt;
    throw new DecodeFailure(isNul ? 'nul' : 'invalid-utf16', text.slice(0, at));
  }

  private utf16Text(body: Buffer): string {
    // Node decodes only little-endian; swap a copy for big-endian (swap16 works in place).
    return this.encoding === 'utf16be' ? Buffer.from(body).swap16().toString('utf16le') : body.toString('utf16le');
  }
}

/** The encoding named by a BOM (and the BOM's length), or undefined while too few bytes have arrived to tell. */
export function sniffEncoding(
  bytes: Uint8Array,
  final: boolean,
): { encoding: TextEncoding; bomLength: number } | undefined {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xff && b1 === 0xfe) return { encoding: 'utf16le', bomLength: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: 'utf16be', bomLength: 2 };
  if (b0 === UTF8_BOM[0] && b1 === UTF8_BOM[1] && b2 === UTF8_BOM[2]) return { encoding: 'utf8', bomLength: 3 };
  if (!final && bytes.length < 3) {
    // Wait only while the bytes so far could still be the start of a BOM.
    const couldBeBom =
      bytes.length === 0 ||
      (bytes.length === 1 && (b0 === 0xef || b0 === 0xff || b0 === 0xfe)) ||
      (bytes.length === 2 && b0 === 0xef && b1 === 0xbb);
    if (couldBeBom) return undefined;
  }
  return { encoding: 'utf8', bomLength: 0 };
}

/** How many bytes at the end of `bytes` start a UTF-8 sequence that the next chunk must complete (0–3). */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const end = bytes.length;
  let i = end - 1;
  while (i >= 0 && end - i < 4 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
  const lead = bytes[i];
  if (lead === undefined) return 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  const have = end - i;
  return have < need ? have : 0;
}

/** Offset of the first byte that breaks UTF-8 (WHATWG: no overlongs, surrogates, values past U+10FFFF), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] ?? 0; // i < n
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // past U+10FFFF
    } else {
      return i;
    }
    if (i + need >= n) return i;
    const first = bytes[i + 1] ?? 0; // i + need < n
    if (first < lo || first > hi) return i;
    for (let k = 2; k <= need; k++) {
      if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** A whole text's fault: what is wrong, on which line (from 1), and the encoding the BOM named (or UTF-8). */
export interface TextFault {
  kind: DecodeFailure['kind'];
  line: number;
  encoding: TextEncoding;
}

/**
 * A whole file's bytes as text, decoded as `ChunkDecoder` decodes a stream (the BOM, if any, is removed): for a
 * reader that holds the whole file (a journal). Returns the text, or the fault and its line.
 */
export function decodeText(bytes: Uint8Array): { text: string; encoding: TextEncoding } | { fault: TextFault } {
  const decoder = new ChunkDecoder();
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = '';
  try {
    text = decoder.decode(buffer);
    text += decoder.end();
    return { text, encoding: decoder.detected ?? 'utf8' };
  } catch (error) {
    if (!(error instanceof DecodeFailure)) throw error;
    const line = (text + error.prefix).split(/\r\n|\r|\n/).length;
    return { fault: { kind: error.kind, line, encoding: decoder.detected ?? 'utf8' } };
  }
}

/** A fault of `decodeText` in plain words, naming `name:line` (the next step is the caller's: it knows the file). */
export function textFaultMessage(name: string, fault: TextFault): string {
  if (fault.kind === 'nul') return `${name}:${fault.line}: NUL byte: binary data, not text`;
  if (fault.kind === 'invalid-utf8') return `${name}:${fault.line}: invalid UTF-8 (save it as UTF-8)`;
  return `${name}:${fault.line}: invalid UTF-16 (an unpaired surrogate or an odd byte count)`;
}
