/** The pipeline's first steps for `create`: read the items (arguments, files, stdin), validate, deduplicate. */
import type { Output, Process, Service } from '../capabilities.js';
import { InputError, UsageError } from '../../errors.js';
import type { ItemFormat, ItemSource, PreparedItems, ReadItemsOptions } from '../items/index.js';
import { counted } from '../../output/plural.js';

/** The flags that say where the items come from and how they are cleaned. */
export interface ReadOptions {
  file?: string[];
  format?: ItemFormat;
  column?: string;
  skipInvalid?: boolean;
  keepDuplicates?: boolean;
  /** Commander's `--no-validate`: false sends the items as read, without per-service checks or normalisation. */
  validate?: boolean;
}

export function itemSources(
  ctx: Pick<Output, 'io'> & Pick<Service, 'globals'>,
  args: string[],
  files: string[] | undefined,
): ItemSource[] {
  const sources: ItemSource[] = [];
  if (args.length > 0) sources.push({ kind: 'args', values: args });
  const stdinFiles = (files ?? []).filter((f) => f === '-').length;
  if (stdinFiles > 1) throw new UsageError('-f - (stdin) can be given only once');
  for (const file of files ?? []) {
    sources.push(
      file === '-'
        ? { kind: 'stdin', stream: ctx.io.stdin, isTTY: ctx.io.stdin.isTTY === true }
        : { kind: 'file', path: file },
    );
  }
  if (sources.length === 0) {
    if (ctx.io.stdin.isTTY) {
      throw new UsageError(
        'no items given',
        'Pass items as arguments, use -f FILE, or pipe them in: `cat domains.txt | taskctl create SERVICE`.',
      );
    }
    sources.push({ kind: 'stdin', stream: ctx.io.stdin, isTTY: false });
  }
  if (ctx.globals.apiKeyFile === '-' && sources.some((s) => s.kind === 'stdin')) {
    throw new UsageError(
      'stdin cannot carry both the API key (--api-key-file -) and the items',
      'Read the items from a file with -f, or the key from a file.',
    );
  }
  return sources;
}

/**
 * Items read, validated, deduplicated as they stream (nothing per item stays in memory): what will be sent, and what
 * validation changed. Nothing touches the network. The caller disposes of the result (its scratch files).
 */
export async function prepareItems(
  ctx: Pick<Output, 'io' | 'printer'> & Pick<Service, 'globals'> & Pick<Process, 'signal'>,
  service: string,
  args: string[],
  options: ReadOptions,
  /**
   * A journaled job: the sources to read (default: from `args` and `options.file`), taps on their opening and bytes;
   * `asRecorded`, its inputs read again as its first run read them (items/prepare.ts).
   */
  from: Pick<ReadItemsOptions, 'onBytes' | 'onOpen'> & { sources?: ItemSource[]; asRecorded?: boolean } = {},
): Promise<PreparedItems> {
  const { prepareItems: prepare, formatInvalidReport, INVALID_SHOWN } = await import('../items/index.js');
  const prepared = await prepare(from.sources ?? itemSources(ctx, args, options.file), {
    format: options.format,
    column: options.column,
    service,
    validate: options.validate !== false,
    keepDuplicates: options.keepDuplicates === true,
    onBytes: from.onBytes,
    onOpen: from.onOpen,
    asRecorded: from.asRecorded === true,
    signal: ctx.signal,
  });
  try {
    const { invalid, invalidCount, normalised, duplicates } = prepared;
    if (invalidCount > 0) {
      const report = formatInvalidReport(invalid, INVALID_SHOWN, invalidCount);
      if (!options.skipInvalid) {
        throw new InputError(
          `${counted(invalidCount, 'invalid item')}; nothing was sent:\n${report.join('\n')}`,
          invalidCount === 1
            ? 'Fix it, or pass --skip-invalid to drop it (or --no-validate to send it as written).'
            : 'Fix them, or pass --skip-invalid to drop them (or --no-validate to send them as written).',
        );
      }
      ctx.printer.warn(`skipping ${counted(invalidCount, 'invalid item')}:\n${report.join('\n')}`);
    }
    if (prepared.count === 0) throw new InputError('no valid items left to send; nothing was sent');
    if (normalised.count > 0) {
      const first = normalised.first[0];
      ctx.printer.info(
        `normalised ${counted(normalised.count, 'item')}` +
          (first ? ` (e.g. ${JSON.stringify(first.item)} → ${JSON.stringify(first.sent)})` : '') +
          '; --no-validate sends them as written',
      );
    }
    if (duplicates > 0) {
      ctx.printer.info(`removed ${counted(duplicates, 'duplicate item')} (--keep-duplicates sends them)`);
    }
    return prepared;
  } catch (error) {
    prepared.dispose();
    throw error;
  }
}
