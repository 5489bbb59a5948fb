/** A text file read as UTF-8, up to a bound (`taskctl api --input FILE`, `-F key=@FILE`): the disk half of core/api-request.ts. */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { readBounded } from '../lib/abortable.js';

/**
 * The file's text, or its size (`size`, when a regular file says it; else undefined) when it holds more than `maxBytes`:
 * a regular file is refused by its size unread; a device or a pipe (`/dev/zero`) is read one byte past the bound, no
 * more. Throws the fs error (its `code` names why), which the caller turns into its message.
 */
export async function readTextFile(
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ text: string } | { tooLarge: true; size: number | undefined }> {
  const stats = await stat(path);
  if (stats.isFile() && stats.size > maxBytes) return { tooLarge: true, size: stats.size };
  const stream = createReadStream(path, { end: maxBytes });
  try {
    const bytes = await readBounded(stream, signal, maxBytes);
    return bytes === undefined ? { tooLarge: true, size: undefined } : { text: bytes.toString('utf8') };
  } finally {
    stream.destroy();
  }
}
