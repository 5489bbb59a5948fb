/** `--api-key-file`: a regular file, or a FIFO (`<(pass show key)`), read so that Ctrl-C / SIGTERM still end the run. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

  it('/dev/zero: refused at once in words after 64 KiB, never read whole', { timeout: 2_000 }, async () => {
    // Read whole, /dev/zero never ends: the test's timeout would end it.
    await expect(readKeyFile('/dev/zero', noStdin)).rejects.toMatchObject({
      exitCode: 2,
      message: '--api-key-file /dev/zero holds more than 64 KiB, which is no API key',
      hint: 'Put the API key alone on the first line of a file of its own.',
    });
  });

  it('a file of more than 64 KiB is refused, even with a key on its first line', async () => {
    writeFileSync(join(dir, 'key'), `sk_first_3\n${'x'.repeat(70_000)}\n`);
    await expect(readKeyFile(join(dir, 'key'), noStdin)).rejects.toThrow(
      `--api-key-file ${join(dir, 'key')} holds more than 64 KiB, which is no API key`,
    );
    writeFileSync(join(dir, 'key'), `sk_first_3\n${'x'.repeat(60_000)}\n`);
    await expect(readKeyFile(join(dir, 'key'), noStdin)).resolves.toEqual({
      key: 'sk_first_3',
      path: join(dir, 'key'),
    });
  });

  it('stdin (-) and a FIFO past 64 KiB: refused without waiting for their end', { timeout: 5_000 }, async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    stdin.write('y'.repeat(100_000)); // never ended: a bounded read does not wait for the end
    await expect(readKeyFile('-', stdin, new AbortController().signal)).rejects.toThrow(
      '--api-key-file - holds more than 64 KiB, which is no API key',
    );
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = readKeyFile(fifo, noStdin, new AbortController().signal);
    const refused = expect(reading).rejects.toThrow(
      `--api-key-file ${fifo} holds more than 64 KiB, which is no API key`,
    );
    const writer = await open(fifo, 'w');
    // The writer keeps the FIFO open: the refusal does not wait for its end (the rest of the write finds no reader).
    await writer.write('z'.repeat(100_000)).catch(() => {});
    await refused;
    await writer.close();
  });

  it.skipIf(!existsSync('/dev/ptmx'))(
    'a terminal is refused in words (a key typed there would show on the screen)',
    async () => {
      // Each open of /dev/ptmx is a new pseudo-terminal (its master side): a terminal device with nothing typed yet.
      await expect(readKeyFile('/dev/ptmx', noStdin)).rejects.toMatchObject({
        exitCode: 2,
        message: '--api-key-file /dev/ptmx is a terminal: taskctl reads a key from a file or a pipe, not typed',
        hint: 'Use `taskctl auth login`, which asks for the key without showing it, or pipe it in: `pass show taskctl | taskctl --api-key-file - balance`.',
      });
    },
  );
});
