// MurmurHash3 x86_128 over a string's UTF-16 code units (two units to a 32-bit word), in 32-bit integer arithmetic.
// 128 bits make a collision between distinct items of one input (≤ 10^7 items: p < 10^-24) negligible, so
// de-duplication can keep only the hash of each item it has seen, never the item itself.

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Writes the 128-bit hash of `text` as four 32-bit words into `out[at..at+3]`. */
export function hash128(text: string, out: Uint32Array, at = 0, seed = 0): void {
  let h1 = seed | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const n = text.length;
  const whole = n - (n & 7); // 8 code units = 16 bytes a block
  let i = 0;
  for (; i < whole; i += 8) {
    let k1 = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    let k2 = text.charCodeAt(i + 2) | (text.charCodeAt(i + 3) << 16);
    let k3 = text.charCodeAt(i + 4) | (text.charCodeAt(i + 5) << 16);
    let k4 = text.charCodeAt(i + 6) | (text.charCodeAt(i + 7) << 16);
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
  if (i < n) {
    // The tail: up to 7 code units, packed into words as the blocks are (zero past the end; a zero word mixes to 0).
    const unit = (j: number): number => (j < n ? text.charCodeAt(j) : 0);
    const t1 = unit(i) | (unit(i + 1) << 16);
    const t2 = unit(i + 2) | (unit(i + 3) << 16);
    const t3 = unit(i + 4) | (unit(i + 5) << 16);
    const t4 = unit(i + 6);
    h4 ^= Math.imul(rotl(Math.imul(t4, C4), 18), C1);
    h3 ^= Math.imul(rotl(Math.imul(t3, C3), 17), C4);
    h2 ^= Math.imul(rotl(Math.imul(t2, C2), 16), C3);
    h1 ^= Math.imul(rotl(Math.imul(t1, C1), 15), C2);
  }
  finish(h1, h2, h3, h4, n, out, at);
}

/**
 * hash128 of the ASCII text in bytes `start..end` of `buf`, read from the bytes: each byte is one code unit, so the
 * words are those hash128 gives that text, and no string is made for it (diff's fast path: core/diff/sort.ts).
 */
export function hash128Ascii(buf: Uint8Array, start: number, end: number, out: Uint32Array, at = 0): void {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const n = end - start;
  const whole = start + n - (n & 7);
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
    const unit = (j: number): number => (j < end ? (buf[j] ?? 0) : 0);
    h4 ^= Math.imul(rotl(Math.imul(unit(i + 6), C4), 18), C1);
    h3 ^= Math.imul(rotl(Math.imul(unit(i + 4) | (unit(i + 5) << 16), C3), 17), C4);
    h2 ^= Math.imul(rotl(Math.imul(unit(i + 2) | (unit(i + 3) << 16), C2), 16), C3);
    h1 ^= Math.imul(rotl(Math.imul(unit(i) | (unit(i + 1) << 16), C1), 15), C2);
  }
  finish(h1, h2, h3, h4, n, out, at);
}

/** The finalisation of both: the length in bytes of UTF-16 (`units` × 2), the words mixed, written to `out[at..]`. */
function finish(h1: number, h2: number, h3: number, h4: number, units: number, out: Uint32Array, at: number): void {
  const bytes = units * 2;
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
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[at] = h1;
  out[at + 1] = h2;
  out[at + 2] = h3;
  out[at + 3] = h4;
}

/**
 * A set of 128-bit hashes: open addressing with linear probing over one Uint32Array (4 words a slot), doubled at half
 * full. 32–64 bytes per distinct hash held (96 while it doubles). The all-zero hash marks an empty slot, so it is
 * tracked by a flag.
 */
export class HashSet128 {
  private slots: Uint32Array;
  private mask: number;
  private size = 0;
  private zero = false;

  constructor(capacity = 1024) {
    let slots = 16;
    while (slots < capacity) slots *= 2;
    this.slots = new Uint32Array(slots * 4);
    this.mask = slots - 1;
  }

  /** Adds the hash at `words[at..at+3]`; true when it was not there yet. */
  add(words: Uint32Array, at: number): boolean {
    const a = words[at] ?? 0;
    const b = words[at + 1] ?? 0;
    const c = words[at + 2] ?? 0;
    const d = words[at + 3] ?? 0;
    if ((a | b | c | d) === 0) {
      if (this.zero) return false;
      this.zero = true;
      return true;
    }
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    return this.insert(a, b, c, d);
  }

  private insert(a: number, b: number, c: number, d: number): boolean {
    const slots = this.slots;
    let slot = (b ^ d) & this.mask; // the hash is uniform: any word will do as the home slot
    for (;;) {
      const base = slot * 4;
      const sa = slots[base] ?? 0;
      const sb = slots[base + 1] ?? 0;
      const sc = slots[base + 2] ?? 0;
      const sd = slots[base + 3] ?? 0;
      if ((sa | sb | sc | sd) === 0) {
        slots[base] = a;
        slots[base + 1] = b;
        slots[base + 2] = c;
        slots[base + 3] = d;
        this.size++;
        return true;
      }
      if (sa === a && sb === b && sc === c && sd === d) return false;
      slot = (slot + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.slots.length / 4 - 1;
    this.size = 0;
    for (let base = 0; base < old.length; base += 4) {
      const a = old[base] ?? 0;
      const b = old[base + 1] ?? 0;
      const c = old[base + 2] ?? 0;
      const d = old[base + 3] ?? 0;
      if ((a | b | c | d) !== 0) this.insert(a, b, c, d);
    }
  }
}
