import { ByteLog, type Scratch } from '../../store/scratch.js';
import { HashSet128, hash128 } from './hash128.js';

const GROUP_BITS = 6;
const RECORD_WORDS = 5; // the hash's 4 words, then the item's index
const RECORD_BYTES = RECORD_WORDS * 4;
const DEFAULT_SET_SLOTS = 1024;

/**
 * Finds repeated items without holding them: each item's 128-bit hash and index go to one of 64 groups by the hash's
 * top bits (20 bytes on disk per item); at the end each group is replayed in input order through a set of the hashes
 * seen (16–48 bytes per distinct item of that group, so about 1/64 of the distinct items at a time). The result is one
 * bit per item: set when an earlier item had the same hash, i.e. (128 bits) the same text.
 */
export class RepeatFinder {
  /** Each group made when its first item comes: a create of a few items allocates a few, not 64 (1.3 MB). */
  private readonly groups: Array<{ log: ByteLog; words: Uint32Array } | undefined> = new Array<undefined>(
    1 << GROUP_BITS,
  ).fill(undefined);
  private readonly hash = new Uint32Array(4);
  private count = 0;

  constructor(private readonly scratch: Scratch) {}

  private group(g: number): { log: ByteLog; words: Uint32Array } {
    let group = this.groups[g];
    if (group) return group;
    const log = new ByteLog(this.scratch, `hashes-${g}`, 1024 * RECORD_BYTES);
    const buffer = log.reserve(0);
    // Records are written as native 32-bit words and read back by the same process: byte order cannot differ.
    group = { log, words: new Uint32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4) };
    this.groups[g] = group;
    return group;
  }

  add(item: string): void {
    const hash = this.hash;
    hash128(item, hash, 0);
    const group = this.group((hash[0] ?? 0) >>> (32 - GROUP_BITS));
    group.log.reserve(RECORD_BYTES);
    const at = group.log.offset >>> 2;
    const words = group.words;
    words[at] = hash[0] ?? 0;
    words[at + 1] = hash[1] ?? 0;
    words[at + 2] = hash[2] ?? 0;
    words[at + 3] = hash[3] ?? 0;
    words[at + 4] = this.count++;
    group.log.advance(RECORD_BYTES);
  }

  /** One bit per item added, set for repeats; and how many there are. */
  finish(): { repeats: Uint8Array; duplicates: number } {
    const repeats = new Uint8Array(Math.ceil(this.count / 8));
    let duplicates = 0;
    for (const group of this.groups) {
      if (!group) continue; // no item fell in it
      const { log } = group;
      // Small groups get a small set (64 of the default size cost a create of one item about 1 MB and a few ms);
      // a large one starts at the default and grows with the distinct items, never with the repeats.
      const seen = new HashSet128(Math.min(DEFAULT_SET_SLOTS, (log.length / RECORD_BYTES) * 2));
      for (const block of log.read(4096 * RECORD_BYTES)) {
        const words = new Uint32Array(block.buffer, block.byteOffset, block.length / 4);
        for (let at = 0; at < words.length; at += RECORD_WORDS) {
          if (seen.add(words, at)) continue;
          const index = words[at + 4] ?? 0;
          repeats[index >>> 3] = (repeats[index >>> 3] ?? 0) | (1 << (index & 7));
          duplicates++;
        }
      }
      log.dispose();
    }
    return { repeats, duplicates };
  }

  dispose(): void {
    for (const group of this.groups) group?.log.dispose();
  }
}
