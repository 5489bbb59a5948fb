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
}

/** Opens `path` for reading; throws the fs error (a directory is EISDIR), with nothing left open. */
export async function openItemsFile(path: string): Promise<ItemsFile> {
  const handle = await open(path, 'r');
  try {
    // Linux opens a directory for reading without complaint; reading it then fails with EISDIR.
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return {
    chunks: (size) => fileChunks(handle, size),
    close: () => handle.close().catch(() => undefined),
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
