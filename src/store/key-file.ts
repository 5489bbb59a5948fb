/** `--api-key-file PATH` (`-` = stdin): the API key on the file's first line, trimmed. */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { systemErrorWords, UsageError } from '../errors.js';
import { readAllText } from '../lib/abortable.js';

/** Standard input as the run has it (output/io.ts's InputStream). */
type Stdin = AsyncIterable<Buffer | string> & { readonly isTTY?: boolean | undefined };

/**
 * The key, read so that `signal` (Ctrl-C, SIGTERM) ends a read that waits: stdin, or a FIFO such as `<(pass show key)`
 * whose writer has not written yet, is read asynchronously and dropped at the signal (docs/behaviour.md#exit-codes).
 */
export async function readKeyFile(
  path: string,
  stdin: Stdin,
  signal?: AbortSignal,
): Promise<{ key: string; path: string }> {
  const text = path === '-' ? await readStdin(stdin, signal) : await readPath(path, signal);
  const key = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (!key) throw new UsageError(`--api-key-file ${path} is empty`, 'Put the API key on the first line.');
  return { key, path };
}

function readStdin(stdin: Stdin, signal: AbortSignal | undefined): Promise<string> {
  if (stdin.isTTY)
    throw new UsageError(
      '--api-key-file - reads the key from stdin, but stdin is a terminal',
      'Pipe the key in: `pass show taskctl | taskctl --api-key-file - balance`.',
    );
  return readAllText(stdin, signal);
}

async function readPath(path: string, signal: AbortSignal | undefined): Promise<string> {
  const failed = (error: unknown) => new UsageError(`cannot read --api-key-file ${path}: ${systemErrorWords(error)}`);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO blocks until a writer comes, in a thread no signal reaches (not even process.exit).
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw failed(error);
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw failed(error);
  }
  if (!stats.isFIFO() && !stats.isSocket()) {
    try {
      return readFileSync(fd, 'utf8');
    } catch (error) {
      throw failed(error);
    } finally {
      closeSync(fd);
    }
  }
  // A FIFO or a socket: read through the event loop (the pipe handle the kernel wakes), until its writer closes.
  const stream = new Socket({ fd, readable: true, writable: false });
  try {
    return await readAllText(stream, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw failed(error);
  } finally {
    stream.destroy();
  }
}
