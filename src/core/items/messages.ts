import { CliError, InputError, systemErrorWords } from '../../errors.js';
import type { DecodeFailure, TextEncoding } from '../../lib/items/decode.js';
import type { ItemFormat } from './types.js';

// Messages for faults in item sources: each names the place (`file:line`) and says what to do next.

export const NO_INPUT_HINT = 'Pipe items in, pass them as arguments, or use -f FILE.';
export const SPLIT_HINT = 'Split the items into smaller files and create one task per file.';

/** An fs or stream failure as an input error that says what to do. */
export function readError(name: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new InputError(
        `cannot read ${name}: no such file`,
        'Check the path. To read items from stdin, use -f - or pipe them in.',
      );
    case 'EACCES':
    case 'EPERM':
      return new InputError(
        `cannot read ${name}: permission denied`,
        "Check the file's permissions (ls -l), or pipe it in: cat FILE | taskctl create …",
      );
    case 'EISDIR':
      return new InputError(`cannot read ${name}: it is a directory`, 'Pass a file of items, e.g. -f DIR/items.txt.');
    default:
      return new InputError(
        `cannot read ${name}: ${systemErrorWords(error)}`,
        'Check that the file or pipe is readable.',
      );
  }
}

export function decodeError(
  name: string,
  line: number,
  kind: DecodeFailure['kind'],
  encoding: TextEncoding | undefined,
): InputError {
  if (kind === 'nul') {
    return new InputError(
      `${name}:${line}: NUL byte: this looks like a binary file, not a list of items`,
      encoding === 'utf8'
        ? 'Pass a text file with one item per line. UTF-16 text needs a byte-order mark (BOM), or save it as UTF-8.'
        : 'Pass a text file with one item per line.',
    );
  }
  if (kind === 'invalid-utf8') {
    return new InputError(
      `${name}:${line}: invalid UTF-8`,
      'Save the file as UTF-8 (or UTF-16 with a BOM), e.g. iconv -f LATIN1 -t UTF-8 FILE.',
    );
  }
  return new InputError(
    `${name}:${line}: invalid UTF-16 (unpaired surrogate or odd byte count)`,
    'Save the file as UTF-8.',
  );
}

const EMPTY_BY_FORMAT: Record<ItemFormat, { what: string; hint: string }> = {
  lines: { what: 'is empty or has only comments', hint: 'Put one item per line; lines starting with # are comments.' },
  ndjson: { what: 'is empty or has only blank lines', hint: 'Put one JSON string per line, e.g. "example.com".' },
  json: { what: 'is empty or an empty array', hint: 'Write items as a JSON array of strings, e.g. ["example.com"].' },
  csv: {
    what: 'is empty or has no values under its header',
    hint: 'Put a header row first, then one item per row (--column picks the column).',
  },
};

export function noItemsError(streamed: ReadonlyArray<{ name: string; format: ItemFormat }>): InputError {
  const only = streamed.length === 1 ? streamed[0] : undefined;
  if (!only) {
    const names = streamed.map((s) => s.name).join(', ');
    return new InputError(`no items: ${names} are empty or have only comments`, NO_INPUT_HINT);
  }
  const { what, hint } = EMPTY_BY_FORMAT[only.format];
  return new InputError(`no items: ${only.name} ${what}`, hint);
}
