/**
 * The path of a `taskctl api` request: always relative to the base URL, so the API key can only ever go to
 * the host and prefix the user configured. Absolute and host-relative URLs, and `.`/`..` segments (also percent-encoded
 * or behind a backslash, which some servers read as a slash), are refused as usage errors (exit 2).
 */
import { UsageError } from '../errors.js';

const PATH_HINT = 'Give a path relative to the base URL, e.g. `taskctl api /balance` or `taskctl api /tasks/42`.';

/** `scheme:` at the start (`https:`, `javascript:`), or `//host` / `\\host`. */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|[/\\]{2})/i;
/** What may go on the request line unencoded: visible ASCII. */
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/gu;

function encodeInvisible(text: string): string {
  try {
    return text.replace(NOT_VISIBLE_ASCII, (char) => encodeURIComponent(char));
  } catch {
    // A lone UTF-16 surrogate cannot be encoded.
    throw new UsageError('the path contains a broken Unicode character', PATH_HINT);
  }
}

/** `/tasks/42?x=1` from `tasks/42?x=1`: a leading slash, unsafe characters percent-encoded, escapes refused. */
export function apiRequestPath(input: string): string {
  if (input === '') throw new UsageError('no path given', PATH_HINT);
  if (ABSOLUTE.test(input)) {
    throw new UsageError(
      `"${encodeInvisible(input)}" is not a path relative to the base URL: the API key is only sent to the base URL`,
      PATH_HINT,
    );
  }
  if (input.includes('#')) throw new UsageError('the path contains "#", and a fragment is never sent', PATH_HINT);
  const queryAt = input.indexOf('?');
  const pathname = queryAt === -1 ? input : input.slice(0, queryAt);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new UsageError(`the path "${encodeInvisible(pathname)}" has broken percent-encoding`, PATH_HINT);
  }
  const escape = decoded.split(/[/\\]/).find((segment) => segment === '.' || segment === '..');
  if (escape !== undefined) {
    throw new UsageError(
      `the path "${encodeInvisible(pathname)}" contains a "${escape}" segment; it could leave the base URL`,
      PATH_HINT,
    );
  }
  const encoded = encodeInvisible(input);
  return encoded.startsWith('/') ? encoded : `/${encoded}`;
}
