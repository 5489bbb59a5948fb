import { InputError } from '../../errors.js';
import type { ItemCollector, PositionStyle } from './collector.js';
import { CsvReader } from './csv.js';
import { destroyOnAbort } from '../../lib/abortable.js';
import { ChunkDecoder, DecodeFailure } from '../../lib/items/decode.js';
import { linesHandler, type FormatContext } from './formats.js';
import { JsonDocument, ndjsonHandler } from './json.js';
import { LineSplitter } from './lines.js';
import { SPLIT_HINT, decodeError, readError } from './messages.js';
import type { ItemFormat, ItemLimits } from './types.js';
import { formatCount } from '../../output/numbers.js';
import { formatBytes } from '../../output/bytes.js';

export type ByteChunk = Buffer | Uint8Array | string;

/** What all sources of one `readItems` call share: limits, the collector, and the byte count against the cap. */
export interface ReadState {
  limits: ItemLimits;
  collector: ItemCollector;
  column: string | undefined;
  isItem?: ((text: string) => boolean) | undefined;
  bytes: number;
}

export function formatContext(name: string, state: ReadState): FormatContext {
  const { column, isItem, limits, collector } = state;
  return { name, column, ...(isItem && { isItem }), maxLineLength: limits.maxLineLength, collector };
}

/**
 * Decodes, splits and parses one byte stream; one await per chunk, never per line. `positions`: how its items are named
 * in messages (`file:12`, `file item 12`, or `argument 12` for a job's copy of its arguments).
 */
export async function readStream(
  chunks: AsyncIterable<ByteChunk>,
  name: string,
  format: ItemFormat,
  positions: PositionStyle,
  state: ReadState,
  onBytes?: (bytes: Buffer) => void,
  signal?: AbortSignal,
): Promise<void> {
  const ctx = formatContext(name, state);
  state.collector.begin(name, positions);
  const decoder = new ChunkDecoder();
  const parser = createParser(format, positions, ctx, state.limits.maxLineLength);

  const feed = (text: string): void => parser.push(text);
  const decodeWith = (decode: () => string): void => {
    let text: string;
    try {
      text = decode();
    } catch (error) {
      if (!(error instanceof DecodeFailure)) throw error;
      feed(error.prefix); // earlier lines may hold an earlier error, and the splitter counts lines
      throw decodeError(name, parser.currentLine(), error.kind, decoder.detected);
    }
    feed(text);
  };

  const iterator = chunks[Symbol.asyncIterator]();
  // A signal ends a wait on a producer that never ends (stdin of a running command): the stream is destroyed.
  const stopListening = destroyOnAbort(chunks, signal);
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<ByteChunk>;
      try {
        step = await iterator.next();
      } catch (error) {
        if (signal?.aborted) throw signal.reason as Error;
        throw readError(name, error);
      }
      if (signal?.aborted) throw signal.reason as Error;
      if (step.done) break;
      const bytes = toBuffer(step.value);
      onBytes?.(bytes);
      state.bytes += bytes.length;
      if (state.bytes > state.limits.maxBytes) {
        const limit = formatBytes(state.limits.maxBytes);
        throw new InputError(`input is larger than ${limit} (stopped reading ${name})`, SPLIT_HINT);
      }
      decodeWith(() => decoder.decode(bytes));
    }
    finished = true;
  } finally {
    stopListening();
    if (!finished) stopQuietly(iterator);
  }
  decodeWith(() => decoder.end());
  parser.end();
}

interface Parser {
  push: (text: string) => void;
  end: () => void;
  /** The line a fault at the current end of input is on. */
  currentLine: () => number;
}

function createParser(format: ItemFormat, positions: PositionStyle, ctx: FormatContext, maxLineLength: number): Parser {
  if (format === 'json') {
    const document = new JsonDocument(ctx);
    return {
      push: (text) => document.push(text),
      end: () => document.finish(),
      currentLine: () => document.currentLine(),
    };
  }
  const splitter = new LineSplitter(maxLineLength, (lineNo) => {
    const cap = `${formatCount(maxLineLength)} characters`;
    // A job's copy of its arguments holds one argument a line: the argument is what was typed too long.
    if (positions === 'argument') {
      throw new InputError(
        `argument ${lineNo}: item is longer than ${cap}`,
        'Items are short strings such as domains.',
      );
    }
    throw new InputError(
      `${ctx.name}:${lineNo}: line is longer than ${cap}; stopped reading`,
      format === 'lines'
        ? 'Put one item per line. Is this the right file? (A JSON document needs --format json.)'
        : 'Is this the right file?',
    );
  });
  const csv = format === 'csv' ? new CsvReader(ctx) : undefined;
  const onLine = csv ? csv.line : format === 'ndjson' ? ndjsonHandler(ctx) : linesHandler(ctx);
  return {
    push: (text) => splitter.push(text, onLine),
    end: () => {
      splitter.end(onLine);
      csv?.end();
    },
    currentLine: () => splitter.currentLine,
  };
}

/** Stops the producer (an endless stream, or stdin after an error) without waiting on it or masking the real error. */
function stopQuietly(iterator: AsyncIterator<unknown>): void {
  try {
    Promise.resolve(iterator.return?.()).catch(() => undefined);
  } catch {
    // A producer that cannot be stopped is left to the process's exit.
  }
}

function toBuffer(chunk: ByteChunk): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
