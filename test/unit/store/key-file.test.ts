/** `--api-key-file`: a regular file, or a FIFO (`<(pass show key)`), read so that Ctrl-C / SIGTERM still end the run. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKeyFile } from '../../../src/store/key-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-key-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const noStdin = { isTTY: true, [Symbol.asyncIterator]: () => [][Symbol.iterator]() as never };
const interrupted = () => Object.assign(new Error('interrupted'), { name: 'AbortError', signal: 'SIGTERM' });

describe('readKeyFile', () => {
  it('reads the first line of a regular file', async () => {
    writeFileSync(join(dir, 'key'), '  sk_file_1  \nsecond line\n');
    await expect(readKeyFile(join(dir, 'key'), noStdin)).resolves.toEqual({ key: 'sk_file_1', path: join(dir, 'key') });
  });

  it('reads a FIFO once its writer has written and closed it', { timeout: 5_000 }, async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = readKeyFile(fifo, noStdin, new AbortController().signal);
    const writer = await open(fifo, 'w'); // opens once the reader is there
    await writer.write('sk_fifo_2\n');
    await writer.close();
    await expect(reading).resolves.toEqual({ key: 'sk_fifo_2', path: fifo });
  });

  it(
    'a FIFO nobody writes: the read waits, and the signal ends it at once with its reason',
    { timeout: 5_000 },
    async () => {
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      const controller = new AbortController();
      let settled = false;
      const reading = readKeyFile(fifo, noStdin, controller.signal).finally(() => (settled = true));
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false); // no writer yet is not an empty key
      const reason = interrupted();
      controller.abort(reason);
      await expect(reading).rejects.toBe(reason);
    },
  );

  it('stdin (-): the signal ends a read whose producer never ends', { timeout: 5_000 }, async () => {
    const controller = new AbortController();
    // A Node stream, as process.stdin is: destroying it ends a read waiting on it.
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    stdin.write('sk_partial');
    stdin.once('data', () => controller.abort(interrupted()));
    await expect(readKeyFile('-', stdin, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(stdin.destroyed).toBe(true);
  });
});
