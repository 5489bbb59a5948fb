/**
 * A stop signal while taskctl waits on input that never ends ends the process at once with its code
 * (docs/behaviour.md#exit-codes): items on a stdin pipe or in a FIFO whose producer still runs, an `--api-key-file` FIFO
 * whose writer says nothing. The bin is spawned: the subject is the process (nothing left that keeps it alive).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, postsReceived, startWorld, waitFor, type E2EWorld } from './spawn-cli.js';

let world: E2EWorld;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.close());

/** Spawns `taskctl args` with a stdin pipe kept open; `ready` says when to send SIGTERM; its exit code ('alive' if it
 * outlived a 10 s bound) and stderr. */
async function termWhen(args: string[], stdin: string, ready: () => boolean) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...world.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.resume();
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.write(stdin); // and never ended: a producer still running
  try {
    await waitFor(ready, { timeoutMs: 20_000, describe: () => `stderr so far: ${stderr}` });
  } catch (error) {
    child.kill('SIGKILL');
    await closed;
    throw error;
  }
  child.kill('SIGTERM');
  const code = await Promise.race([closed, new Promise<'alive'>((resolve) => setTimeout(resolve, 10_000, 'alive'))]);
  if (code === 'alive') child.kill('SIGKILL');
  child.stdin.destroy();
  await closed;
  return { code, stderr };
}

// FIFOs and POSIX signals: not on Windows.
describe.skipIf(process.platform === 'win32')('SIGTERM while input is read', { timeout: 60_000 }, () => {
  it('create reading items from a stdin pipe that never ends: 143 at once, nothing sent', async () => {
    const jobs = join(world.env.TASKCTL_STATE_DIR ?? '', 'jobs');
    // Ready once the job's copy of stdin holds the first line: the run is reading, its signal handlers in place.
    const reading = () => {
      try {
        return readdirSync(jobs).some((name) => name.endsWith('.input') && statSync(join(jobs, name)).size > 0);
      } catch {
        return false;
      }
    };
    const result = await termWhen(['create', 'domain_check_availability', '-y'], 'a.example.com\n', reading);
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toContain('interrupted before anything was sent: nothing was created');
    expect(await postsReceived(world)).toBe(0);
  });

  it('create -f FIFO (process substitution) whose writer is still running: 143 at once, nothing sent', async () => {
    const fifo = join(world.home.dir, 'items.fifo');
    execFileSync('mkfifo', [fifo]);
    let writer: number | undefined;
    // 256 KiB of items, four times what a pipe holds: once all are written, taskctl has read most of them and waits in
    // a read for more, which the writer (still there) never sends.
    const items = Buffer.from(
      Array.from({ length: 16_384 }, (_, i) => `i${i}.example.com\n`)
        .join('')
        .slice(0, 256 * 1024),
    );
    let written = 0;
    const fedWhileReading = () => {
      try {
        writer ??= openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK); // once taskctl has it open for reading
        while (written < items.length) written += writeSync(writer, items, written);
        return true;
      } catch {
        return false; // no reader yet, or the pipe is full (EAGAIN): polled again
      }
    };
    try {
      const result = await termWhen(['create', 'domain_check_availability', '-y', '-f', fifo], '', fedWhileReading);
      expect(result.code, result.stderr).toBe(143);
      expect(result.stderr).toContain('interrupted before anything was sent: nothing was created');
      expect(await postsReceived(world)).toBe(0);
    } finally {
      if (writer !== undefined) closeSync(writer);
    }
  });

  it('--api-key-file FIFO whose writer says nothing: 143 at once, said as a read stopped', async () => {
    const fifo = join(world.home.dir, 'key.fifo');
    execFileSync('mkfifo', [fifo]);
    let writer: number | undefined;
    // Ready once taskctl has the FIFO open for reading: only then does a non-blocking open for writing succeed.
    const opened = () => {
      try {
        writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        return true;
      } catch {
        return false;
      }
    };
    try {
      const result = await termWhen(['--api-key-file', fifo, 'balance'], '', opened);
      expect(result.code, result.stderr).toBe(143);
      // balance only reads: said as every read's stop is (docs/behaviour.md#exit-codes).
      expect(result.stderr).toBe('error: interrupted\nNothing was changed; run the same command again.\n');
    } finally {
      if (writer !== undefined) closeSync(writer);
    }
  });
});
