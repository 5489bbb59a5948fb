/**
 * sort.ts's targetHash (the first word of items/hash128.ts's MurmurHash3 x86_128 over UTF-16 code units) of an ASCII
 * target read from bytes: each byte is one code unit, so the number is the same and no string is made for it (the
 * fast path of fast-line.ts takes only ASCII targets). test/unit/core/diff/ascii-hash.test.ts holds the two equal.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function fmix(value: number): number {
  let h = value ^ (value >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Two bytes at `at` as one 32-bit word of code units (zero past `end`). */
function pair(buf: Buffer, at: number, end: number): number {
  const low = at < end ? (buf[at] ?? 0) : 0;
  const high = at + 1 < end ? (buf[at + 1] ?? 0) : 0;
  return low | (high << 16);
}

/** The hash of the ASCII text in bytes `start..end` of `buf`, as targetHash gives it for that text. */
export function asciiTargetHash(buf: Buffer, start: number, end: number): number {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const n = end - start;
  const whole = start + n - (n & 7); // 8 code units = 16 bytes of UTF-16 a block
  let i = start;
  for (; i < whole; i += 8) {
    let k1 = (buf[i] ?? 0) | ((buf[i + 1] ?? 0) << 16);
    let k2 = (buf[i + 2] ?? 0) | ((buf[i + 3] ?? 0) << 16);
    let k3 = (buf[i + 4] ?? 0) | ((buf[i + 5] ?? 0) << 16);
    let k4 = (buf[i + 6] ?? 0) | ((buf[i + 7] ?? 0) << 16);
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (Math.imul((rotl(h1, 19) + h2) | 0, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (Math.imul((rotl(h2, 17) + h3) | 0, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (Math.imul((rotl(h3, 15) + h4) | 0, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (Math.imul((rotl(h4, 13) + h1) | 0, 5) + 0x32ac3b17) | 0;
  }
  if (i < end) {
    h4 ^= Math.imul(rotl(Math.imul(i + 6 < end ? (buf[i + 6] ?? 0) : 0, C4), 18), C1);
    h3 ^= Math.imul(rotl(Math.imul(pair(buf, i + 4, end), C3), 17), C4);
    h2 ^= Math.imul(rotl(Math.imul(pair(buf, i + 2, end), C2), 16), C3);
    h1 ^= Math.imul(rotl(Math.imul(pair(buf, i, end), C1), 15), C2);
  }
  const bytes = n * 2;
  h1 ^= bytes;
  h2 ^= bytes;
  h3 ^= bytes;
  h4 ^= bytes;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  return ((h1 + h2 + h3 + h4) | 0) >>> 0;
}
