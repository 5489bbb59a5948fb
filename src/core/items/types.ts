import type { InputStream } from '../../output/io.js';

/** How a file or stdin is parsed. Arguments are always literal items. */
export type ItemFormat = 'lines' | 'json' | 'ndjson' | 'csv';

/** Where items come from. The caller turns `-f -` into a `stdin` source. */
export type ItemSource =
  | { kind: 'args'; values: readonly string[] }
  | {
      kind: 'file';
      path: string;
      format?: ItemFormat | undefined;
      /** A job's copy of its arguments (`FILE.args`, ndjson): its items are named `argument N`, as they were typed. */
      arguments?: true;
    }
  | { kind: 'stdin'; stream: InputStream; isTTY?: boolean };

export interface ReadItemsOptions {
  /** Format of files and stdin. Default: by file extension (see `formatFromPath`); stdin: `lines`. */
  format?: ItemFormat | undefined;
  /** csv: header of the column to read (default: the first column). json/ndjson: property of object elements. */
  column?: string | undefined;
  /**
   * Whether a text is one of the items (the service's check): a CSV header row whose first cell is one, read without
   * `--column`, is a file with no header, refused rather than read one item short.
   */
  isItem?: ((text: string) => boolean) | undefined;
  /** Longest line, CSV record or item, in UTF-16 code units. Default 65,536 (64 Ki). */
  maxLineLength?: number;
  /** Most bytes read over all sources together. Default 1 GiB. */
  maxBytes?: number;
  /** Most items over all sources together, before dedupe. Default 10,000,000. */
  maxItems?: number;
  /** Hears every byte read from a file or stdin, with the source's index in the list given (a journal's digests). */
  onBytes?: ((source: number, bytes: Buffer) => void) | undefined;
  /** Hears that a file source was opened, before its first byte: `regular` false for one that gives its bytes once. */
  onOpen?: ((source: number, regular: boolean) => void) | undefined;
  /** Ctrl-C / SIGTERM: a read waiting on stdin stops at once (the stream destroyed) and throws the signal's reason. */
  signal?: AbortSignal | undefined;
}

export interface ReadItemsResult {
  /** Trimmed, non-empty items in input order (not yet validated or deduplicated). */
  items: string[];
  /** Where `items[index]` came from, for messages: `items.txt:12`, `stdin:3`, `argument 2`, `items.json item 4`. */
  where: (index: number) => string;
}

export const DEFAULT_LIMITS = {
  maxLineLength: 65_536,
  maxBytes: 1024 ** 3,
  maxItems: 10_000_000,
  readSize: 256 * 1024,
} as const;

/** Resolved limits, shared by every source of one `readItems` call. */
export interface ItemLimits {
  maxLineLength: number;
  maxBytes: number;
  maxItems: number;
  readSize: number;
}
