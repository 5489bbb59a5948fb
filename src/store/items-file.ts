/**
 * An items file (`create -f FILE`) opened for reading: the disk half of core/items/sources.ts, which names the file in
 * its errors (`readError`) and decodes the chunks.
 */
import { open, type FileHandle } from 'node:fs/promises';

export interface ItemsFile {
  /** The file's bytes in order, through one reusable-size read loop: fewer, larger chunks than a default fs stream. */
  chunks: (size: number) => AsyncGenerator<Buffer>;
  /** Closes the file; never throws. */
  close: () => Promise<void>;
  /** Its size when it is a regular file (it can be opened again and read the same); undefined for a pipe or device. */
  regularSize: number | undefined;
}

/** Opens `path` for reading; throws the fs error (a directory is EISDIR), with nothing left open. */
export async function openItemsFile(path: string): Promise<ItemsFile> {
  const handle = await open(path, 'r');
  let regularSize: number | undefined;
  try {
    const stats = await handle.stat();
    // Linux opens a directory for reading without complaint; reading it then fails with EISDIR.
    if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (stats.isFile()) regularSize = stats.size;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return {
    chunks: (size) => fileChunks(handle, size),
    close: () => handle.close().catch(() => undefined),
    regularSize,
  };
}

async function* fileChunks(handle: FileHandle, size: number): AsyncGenerator<Buffer> {
  for (;;) {
    const buffer = Buffer.allocUnsafe(size);
    const { bytesRead } = await handle.read(buffer, 0, size, null);
    if (bytesRead === 0) return;
    yield bytesRead < size ? buffer.subarray(0, bytesRead) : buffer;
  }
}
