import { InputError, UsageError } from '../../errors.js';
import { openItemsFile, type ItemsFile } from '../../store/items-file.js';
import { trimItem } from './clean.js';
import { ItemCollector, type ItemSink } from './collector.js';
import { addItem, formatFromPath } from './formats.js';
import { NO_INPUT_HINT, noItemsError, readError } from './messages.js';
import { formatContext, readStream, type ReadState } from './stream.js';
import {
  DEFAULT_LIMITS,
  type ItemFormat,
  type ItemLimits,
  type ItemSource,
  type ReadItemsOptions,
  type ReadItemsResult,
} from './types.js';
import { quoteForMessage } from '../../lib/sanitize.js';

/**
 * Reads items from arguments, files and stdin, in the order given, into one trimmed list with each item's position
 * (`where`). Files and stdin stream in chunks; nothing is validated per service here (see `validateItems`).
 *
 * Throws `UsageError` when there is nothing to read (no sources, or only a terminal on stdin, which is never waited
 * on), and `InputError` naming `file:line` for anything wrong with the data, including "no items".
 */
export async function readItems(
  sources: readonly ItemSource[],
  options: ReadItemsOptions = {},
): Promise<ReadItemsResult> {
  const collector = await scanItems(sources, options);
  return { items: collector.items, where: (index) => collector.where(index) };
}

/**
 * Reads the sources as `readItems` does, handing each item to `sink` as it is read (nothing is kept per item), or,
 * without a sink, keeping them in the collector returned. Same errors as `readItems`.
 */
export async function scanItems(
  sources: readonly ItemSource[],
  options: ReadItemsOptions = {},
  sink?: ItemSink,
): Promise<ItemCollector> {
  const limits = resolveLimits(options);
  const readable = sources.filter((source) => !isTerminal(source));
  // A terminal on stdin is skipped when other sources exist: it is only the default source, never to be waited on.
  if (readable.length === 0) throw new UsageError('no items given', NO_INPUT_HINT);
  if (readable.filter((source) => source.kind === 'stdin').length > 1) {
    throw new UsageError('stdin is named more than once as an items source', 'Pass "-" (stdin) at most once.');
  }
  const collector = new ItemCollector(limits.maxItems, sink);
  const state: ReadState = { limits, collector, column: options.column, isItem: options.isItem, bytes: 0 };
  const streamed: Array<{ name: string; format: ItemFormat }> = [];
  for (const source of readable) {
    const index = sources.indexOf(source);
    const tap = options.onBytes;
    const onBytes = tap ? (bytes: Buffer) => tap(index, bytes) : undefined;
    if (source.kind === 'args') {
      readArguments(source.values, state);
      continue;
    }
    const copied = source.kind === 'file' && source.arguments === true;
    const name = copied ? 'arguments' : source.kind === 'file' ? displayName(source.path) : 'stdin';
    const format =
      (source.kind === 'file' ? source.format : undefined) ??
      options.format ??
      (source.kind === 'file' ? formatFromPath(source.path) : 'lines');
    const positions = copied ? 'argument' : format === 'json' ? 'item' : 'line';
    streamed.push({ name, format });
    if (source.kind === 'stdin') {
      await readStream(source.stream, name, format, positions, state, onBytes, options.signal);
    } else {
      const file = await openNamed(source.path, name);
      try {
        options.onOpen?.(index, file.regular);
        await readStream(file.chunks(limits.readSize), name, format, positions, state, onBytes, options.signal);
      } finally {
        await file.close();
      }
    }
  }
  if (collector.count === 0) {
    if (streamed.length === 0) throw new UsageError('no items given', NO_INPUT_HINT);
    throw noItemsError(streamed);
  }
  return collector;
}

function resolveLimits(options: ReadItemsOptions): ItemLimits {
  const pick = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < 1) {
      throw new UsageError(`${name} must be a whole number ≥ 1, got ${value}`);
    }
    return value;
  };
  return {
    maxLineLength: pick(options.maxLineLength, DEFAULT_LIMITS.maxLineLength, 'maxLineLength'),
    maxBytes: pick(options.maxBytes, DEFAULT_LIMITS.maxBytes, 'maxBytes'),
    maxItems: pick(options.maxItems, DEFAULT_LIMITS.maxItems, 'maxItems'),
    readSize: DEFAULT_LIMITS.readSize,
  };
}

function isTerminal(source: ItemSource): boolean {
  return source.kind === 'stdin' && (source.isTTY ?? source.stream.isTTY) === true;
}

/**
 * Arguments are literal items: trimmed, never comments, and an empty one is an error (an unset shell variable?).
 * Also checked before a job copies them to its journal's `.args` file, which is read back as ndjson.
 */
export function checkArguments(values: readonly string[]): void {
  values.forEach((value, index) => {
    if (trimItem(value).length === 0) {
      throw new InputError(`argument ${index + 1} is empty`, 'Remove the empty argument (is a shell variable unset?).');
    }
  });
}

function readArguments(values: readonly string[], state: ReadState): void {
  checkArguments(values);
  const ctx = formatContext('arguments', state);
  state.collector.begin('arguments', 'argument');
  values.forEach((value, index) => addItem(ctx, trimItem(value), index + 1));
}

/** The file opened (store/items-file.ts), or an error naming it as the user wrote it. */
async function openNamed(path: string, name: string): Promise<ItemsFile> {
  try {
    return await openItemsFile(path);
  } catch (error) {
    throw readError(name, error);
  }
}

function displayName(path: string): string {
  return /[\u0000-\u001F\u007F-\u009F\s]/.test(path) ? quoteForMessage(path, 200) : path;
}
