/** `--api-key-file PATH` (`-` = stdin): the API key on the file's first line, trimmed. */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { Socket } from 'node:net';
import { isatty } from 'node:tty';
import { systemErrorWords, UsageError } from '../errors.js';
import { readBounded } from '../lib/abortable.js';

/** Standard input as the run has it (output/io.ts's InputStream). */
type Stdin = AsyncIterable<Buffer | string> & { readonly isTTY?: boolean | undefined };

/** The most taskctl reads of a key file: a key is one short line, so more is refused, never read whole (/dev/zero). */
const KEY_FILE_MAX_BYTES = 64 * 1024;

/**
 * The key, read so that `signal` (Ctrl-C, SIGTERM) ends a read that waits: stdin, or a FIFO such as `<(pass show key)`
 * whose writer has not written yet, is read asynchronously and dropped at the signal (docs/behaviour.md#exit-codes).
 * At most 64 KiB is read (docs/behaviour.md#configuration-and-secrets); a terminal is refused.
 */
export async function readKeyFile(
  path: string,
  stdin: Stdin,
  signal?: AbortSignal,
): Promise<{ key: string; path: string }> {
  const bytes = path === '-' ? await readStdin(stdin, signal) : await readPath(path, signal);
  if (bytes === undefined)
    throw new UsageError(
      `--api-key-file ${path} holds more than 64 KiB, which is no API key`,
      'Put the API key alone on the first line of a file of its own.',
    );
  const text = new TextDecoder().decode(bytes);
  const key = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (!key) throw new UsageError(`--api-key-file ${path} is empty`, 'Put the API key on the first line.');
  return { key, path };
}

function readStdin(stdin: Stdin, signal: AbortSignal | undefined): Promise<Buffer | undefined> {
  const hint = 'Pipe the key in: `pass show taskctl | taskctl --api-key-file - balance`.';
  if (stdin.isTTY) throw new UsageError('--api-key-file - reads the key from stdin, but stdin is a terminal', hint);
  return readKeyStdin(stdin, signal, '--api-key-file -', hint);
}

/**
 * Stdin read for a key, at most KEY_FILE_MAX_BYTES (undefined past them). A read that fails (a directory there, `< DIR`)
 * is exit 2 naming `what`, as a key file that cannot be read is.
 */
export async function readKeyStdin(
  stdin: Stdin,
  signal: AbortSignal | undefined,
  what: string,
  hint: string,
): Promise<Buffer | undefined> {
  try {
    return await readBounded(stdin, signal, KEY_FILE_MAX_BYTES);
  } catch (error) {
    if (signal?.aborted === true || typeof (error as { code?: unknown } | null)?.code !== 'string') throw error;
    throw new UsageError(`cannot read ${what}: ${readErrorWords(error)}`, hint);
  }
}

async function readPath(path: string, signal: AbortSignal | undefined): Promise<Buffer | undefined> {
  const failed = (error: unknown) => new UsageError(`cannot read --api-key-file ${path}: ${readErrorWords(error)}`);
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
  if (stats.isCharacterDevice() && isatty(fd)) {
    closeSync(fd);
    // Typed there, the key would show on the screen (and stay in its scrollback).
    throw new UsageError(
      `--api-key-file ${path} is a terminal: taskctl reads a key from a file or a pipe, not typed`,
      'Use `taskctl auth login`, which asks for the key without showing it, or pipe it in: `pass show taskctl | taskctl --api-key-file - balance`.',
    );
  }
  if (!stats.isFIFO() && !stats.isSocket()) {
    try {
      return readFileBounded(fd);
    } catch (error) {
      throw failed(error);
    } finally {
      closeSync(fd);
    }
  }
  // A FIFO or a socket: read through the event loop (the pipe handle the kernel wakes), until its writer closes.
  const stream = new Socket({ fd, readable: true, writable: false });
  try {
    return await readBounded(stream, signal, KEY_FILE_MAX_BYTES);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw failed(error);
  } finally {
    stream.destroy();
  }
}

/** A file or a device, read to its end or one byte past the bound (then undefined). */
function readFileBounded(fd: number): Buffer | undefined {
  const buffer = Buffer.alloc(KEY_FILE_MAX_BYTES + 1);
  let size = 0;
  while (size < buffer.length) {
    const read = readSync(fd, buffer, size, buffer.length - size, null);
    if (read === 0) return buffer.subarray(0, size);
    size += read;
  }
  return undefined;
}

/** Why a key file could not be read, in words; a device with nothing to read yet (O_NONBLOCK) said as such. */
function readErrorWords(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'it has nothing to read (a device that waits for input?)';
  return systemErrorWords(error);
}
