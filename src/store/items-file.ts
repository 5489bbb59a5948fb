/**
 * An items file (`create -f FILE`) opened for reading: the disk half of core/items/sources.ts, which names the file in
 * its errors (`readError`) and decodes the chunks.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Socket } from 'node:net';
import { resolve } from 'node:path';

export interface ItemsFile {
  /** The file's bytes in order: a read loop of one reusable size (fewer, larger chunks than a default fs stream), or a FIFO's socket. */
  chunks: (size: number) => AsyncIterable<Buffer>;
  /** Closes the file; never throws. */
  close: () => Promise<void>;
  /**
   * A regular file, by fstat of the descriptor opened: its bytes can be read again. Anything else (a pipe, a FIFO, a
   * socket, a device: `-f <(cmd)`, `-f /dev/stdin`) gives its bytes once. So does a path that names this process's own
   * descriptor (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`) even when it is a regular file: the next process's
   * descriptor of that number is another file, or none.
   */
  regular: boolean;
}

/**
 * Opens `path` for reading; throws the fs error (a directory is EISDIR), with nothing left open. A FIFO (`-f <(cmd)`)
 * is read through the event loop, never by a blocked read in Node's thread pool: that read would keep the process alive
 * after Ctrl-C or SIGTERM, until its writer wrote or closed (docs/behaviour.md#exit-codes).
 */
export async function openItemsFile(path: string): Promise<ItemsFile> {
  const pipe = openPipe(path);
  if (pipe) {
    const socket = new Socket({ fd: pipe, readable: true, writable: false });
    return {
      // The socket itself, not a generator over it: a stop signal destroys it, which ends a read waiting on it.
      chunks: () => socket,
      close: () => {
        socket.destroy();
        return Promise.resolve();
      },
      regular: false,
    };
  }
  const handle = await open(path, 'r');
  let regular: boolean;
  let fileBytes: number;
  try {
    const stats = await handle.stat();
    fileBytes = stats.isFile() ? stats.size : Infinity;
    // Linux opens a directory for reading without complaint; reading it then fails with EISDIR.
    if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    regular = stats.isFile() && !namesOwnDescriptor(path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return {
    // A file smaller than a chunk is read into a buffer of its size (a file that grows meanwhile, in more reads).
    chunks: (size) => fileChunks(handle, Math.min(size, Math.max(fileBytes + 1, MIN_READ_BYTES))),
    close: () => handle.close().catch(() => undefined),
    regular,
  };
}

/**
 * The descriptor of this process that `path` names (`/dev/stdin` 0, `/dev/fd/3` and `/proc/self/fd/3` 3), or
 * undefined: two such paths of one number are one stream, whose bytes each read takes once.
 */
export function ownDescriptor(path: string): number | undefined {
  const match = /^\/dev\/(?:(stdin)|fd\/(\d+))$|^\/proc\/(self|\d+)\/fd\/(\d+)$/.exec(resolve(path));
  if (match === null) return undefined;
  if (match[1] !== undefined) return 0;
  if (match[2] !== undefined) return Number(match[2]);
  return match[3] === 'self' || Number(match[3]) === process.pid ? Number(match[4]) : undefined;
}

/** `/dev/stdin`, `/dev/fd/3`, `/proc/self/fd/3`, `/proc/<pid>/fd/3`: a process's descriptor named by a path. */
function namesOwnDescriptor(path: string): boolean {
  return /^\/dev\/(stdin|stdout|stderr|fd\/\d+)$|^\/proc\/[^/]+(\/task\/\d+)?\/fd\/\d+$/.test(resolve(path));
}

/**
 * The descriptor of `path` when it is a FIFO or a socket, opened without waiting for a writer (O_NONBLOCK); undefined
 * for anything else (opened again as a file) or when it cannot be opened (that open then says why).
 */
function openPipe(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFIFO() || stats.isSocket()) return fd;
  } catch {
    // Not a pipe we can tell: opened again as a file.
  }
  closeSync(fd);
  return undefined;
}

/** The smallest read buffer of a regular file: a file of a few items is read into this much, not `readSize`. */
const MIN_READ_BYTES = 16 * 1024;

async function* fileChunks(handle: FileHandle, size: number): AsyncGenerator<Buffer> {
  for (;;) {
    const buffer = Buffer.allocUnsafe(size);
    const { bytesRead } = await handle.read(buffer, 0, size, null);
    if (bytesRead === 0) return;
    yield bytesRead < size ? buffer.subarray(0, bytesRead) : buffer;
  }
}
