import { createHash } from 'node:crypto';
import { scanItems } from './sources.js';
import { ByteLog, Scratch } from '../../store/scratch.js';
import { RepeatFinder } from './repeats.js';
import type { ItemSource, ReadItemsOptions } from './types.js';
import { itemChecker, itemsHaveShape } from '../../lib/items/rules.js';
import { INVALID_SHOWN, NORMALISED_EXAMPLES, type InvalidItem, type NormalisedItems } from './validate.js';

export interface PrepareItemsOptions extends ReadItemsOptions {
  /** Whose rules items are checked and normalised by (see `validateItems`). */
  service: string;
  /** false (`--no-validate`): items are sent as read. Default true. */
  validate?: boolean;
  /** true (`--keep-duplicates`): repeated items are sent again. Default false. */
  keepDuplicates?: boolean;
  /** Where scratch files go for large inputs. Default: the system temp dir. */
  scratchDir?: string;
  /**
   * A job's inputs read again as its first run read them: a CSV's header row is taken as it was then, whatever it
   * holds (a job recorded before such a header was refused reads the same items).
   */
  asRecorded?: boolean;
}

/** The items of a create, read once and held on scratch storage: counts for the price, then chunks to send. */
export interface PreparedItems {
  /** Items to send: valid and, unless kept, first occurrences only. */
  count: number;
  /** Repeats dropped. */
  duplicates: number;
  /** The first invalid items (at most `INVALID_SHOWN`), and how many there were. */
  invalid: InvalidItem[];
  invalidCount: number;
  normalised: NormalisedItems;
  /** SHA-256 (hex) of the valid items in input order as checked and normalised, before de-duplication. */
  digest: string;
  /** The items to send in order, `size` at a time (the last may be shorter), from chunk `skip` (0-based) on. */
  chunks: (size: number, skip?: number) => Generator<string[]>;
  /** Removes the scratch files. */
  dispose: () => void;
}

/** Valid items are spooled as UTF-16 (lossless for any JS string), one to a line: items never hold a line break. */
const SPOOL_BUFFER = 1024 * 1024;
/** The spool's buffer at first, doubled as items come: a create of a few items does not allocate a MiB. */
const SPOOL_FIRST_BYTES = 16 * 1024;

/**
 * Reads, checks, normalises and de-duplicates items in one streaming pass, keeping in memory only counts, the first
 * few invalid and normalised items, and a bit per item; the valid items wait on scratch storage (memory up to 1 MiB,
 * then a file) until `chunks` reads them back. Peak memory does not grow with the input beyond 1 bit per item and,
 * while de-duplicating, the hashes of 1/64 of the distinct items (see `RepeatFinder`).
 */
export async function prepareItems(
  sources: readonly ItemSource[],
  options: PrepareItemsOptions,
): Promise<PreparedItems> {
  const scratch = new Scratch(options.scratchDir);
  const digest = createHash('sha256');
  const spool = new ByteLog(scratch, 'items', SPOOL_BUFFER, (bytes) => digest.update(bytes), SPOOL_FIRST_BYTES);
  const finder = options.keepDuplicates ? undefined : new RepeatFinder(scratch);
  const check = options.validate === false ? undefined : itemChecker(options.service);
  // A CSV's header cell that passes as an item: only for a service whose items have a shape (any text passes otherwise).
  const isItem =
    check && itemsHaveShape(options.service) && options.asRecorded !== true
      ? (text: string) => check(text).ok
      : undefined;
  const invalid: InvalidItem[] = [];
  let invalidCount = 0;
  const normalised: NormalisedItems = { count: 0, first: [] };
  let valid = 0;
  try {
    await scanItems(sources, { ...options, isItem }, (item, position, collector) => {
      let sent = item;
      if (check) {
        const checked = check(item);
        if (!checked.ok) {
          invalidCount++;
          if (invalid.length < INVALID_SHOWN) {
            invalid.push({ item, reason: checked.reason, where: collector.describe(position) });
          }
          return;
        }
        sent = checked.value;
        if (sent !== item) {
          normalised.count++;
          if (normalised.first.length < NORMALISED_EXAMPLES) normalised.first.push({ item, sent });
        }
      }
      const bytes = (sent.length + 1) * 2;
      const buffer = spool.reserve(bytes);
      const at = spool.offset;
      buffer.write(sent, at, 'utf16le');
      buffer.writeUInt16LE(0x0a, at + bytes - 2);
      spool.advance(bytes);
      finder?.add(sent);
      valid++;
    });
    spool.finish();
    const { repeats, duplicates } = finder ? finder.finish() : { repeats: undefined, duplicates: 0 };
    const dispose = (): void => {
      spool.dispose();
      finder?.dispose();
      scratch.dispose();
    };
    return {
      count: valid - duplicates,
      duplicates,
      invalid,
      invalidCount,
      normalised,
      digest: digest.digest('hex'),
      chunks: (size, skip = 0) => readChunks(spool, repeats, size, skip),
      dispose,
    };
  } catch (error) {
    spool.dispose();
    finder?.dispose();
    scratch.dispose();
    throw error;
  }
}

function* readChunks(spool: ByteLog, repeats: Uint8Array | undefined, size: number, skip: number): Generator<string[]> {
  let index = 0;
  let sent = 0;
  const skipItems = skip * size;
  let chunk: string[] = [];
  let carry = '';
  for (const block of spool.read(SPOOL_BUFFER)) {
    const text = carry + block.toString('utf16le');
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    for (const item of lines) {
      const at = index++;
      if (repeats && ((repeats[at >>> 3] ?? 0) & (1 << (at & 7))) !== 0) continue;
      if (sent++ < skipItems) continue;
      chunk.push(item);
      if (chunk.length === size) {
        yield chunk;
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}
