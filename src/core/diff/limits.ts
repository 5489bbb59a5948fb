/**
 * What a `diff` side may hold (docs/behaviour.md#limits), and the plain words for bytes that are not a results file's
 * text. A line (ndjson, csv) or one item of a json document is at most MAX_SIDE_LINE characters: once parsed and
 * re-encoded for the sort, a line that size stays within the 300 MB bound, whatever its shape.
 */
import { InputError } from '../../errors.js';
import type { DecodeFailure } from '../../lib/items/decode.js';

export const MAX_SIDE_LINE = 8 * 1024 * 1024;

const SIDE_TEXT_HINT =
  'diff reads text results files (`taskctl show -o ndjson|json|csv`, a journal) in UTF-8, or UTF-16 with a BOM.';

/** Bytes of a side that are not text: binary data (NUL), or text in another encoding. */
export function sideDecodeError(name: string, line: number, kind: DecodeFailure['kind']): InputError {
  if (kind === 'nul')
    return new InputError(`${name}:${line}: NUL byte: binary data, not a results file`, SIDE_TEXT_HINT);
  if (kind === 'invalid-utf8')
    return new InputError(`${name}:${line}: invalid UTF-8`, `${SIDE_TEXT_HINT} Convert it, e.g. iconv -t UTF-8.`);
  return new InputError(`${name}:${line}: invalid UTF-16 (an unpaired surrogate or an odd byte count)`, SIDE_TEXT_HINT);
}

/** The side's line cap in words, for its message. */
export const MAX_SIDE_LINE_TEXT = '8 MiB';
