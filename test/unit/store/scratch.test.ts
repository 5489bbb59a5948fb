/**
 * Scratch dirs go on every exit; a killed run's (SIGKILL, a crash) is swept by the next run that uses scratch, at once,
 * when no live process holds its lock (a FIFO held open for reading) — whatever its pid or age.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../../src/errors.js';
import { ByteLog, Scratch, sweepScratch } from '../../../src/store/scratch.js';

// time-lint: system time (files' mtimes, which the OS dates and the sweep compares with its clock)
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;
const hasMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'taskctl-scratch-test-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

/**
 * A scratch dir as a run of another process leaves it: its lock FIFO held open for reading by a plain child process
 * (killed with SIGKILL, or stopped), or by nobody. The child is killed when the test ends.
 */
const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((child) => child.kill('SIGKILL')));

async function dirHeldBy(name: string): Promise<ChildProcess> {
  const dir = join(parent, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'run-1'), 'x');
  const lock = join(dir, 'live.fifo');
  expect(spawnSync('mkfifo', [lock]).status).toBe(0);
  const script = `const fs = require('node:fs');
    fs.openSync(${JSON.stringify(lock)}, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    process.stdout.write('held\\n');
    process.stdin.resume();`;
  // Alive while its stdin is open (the test holds the pipe), until killed.
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  await once(child.stdout, 'data');
  return child;
}

describe('scratch dirs', () => {
  it('are made on first use, locked, and removed by dispose', () => {
    const scratch = new Scratch(parent);
    expect(readdirSync(parent)).toEqual([]);
    const file = scratch.path('items');
    writeFileSync(file, 'a.com\n');
    expect(file).toMatch(/taskctl-scratch-[A-Za-z0-9]{6}[/\\]items$/);
    expect(readdirSync(parent)).toHaveLength(1);
    // A live run's dir is never swept, by itself or by another run.
    sweepScratch(parent);
    new Scratch(parent).dispose();
    expect(existsSync(file)).toBe(true);
    scratch.dispose();
    expect(readdirSync(parent)).toEqual([]);
  });

  it.runIf(hasMkfifo)(
    'a killed run leaves its dir; the next run sweeps it at once, however young; a live or stopped run keeps its own',
    { timeout: 10_000 },
    async () => {
      const killed = await dirHeldBy('taskctl-scratch-kiLLed');
      const stopped = await dirHeldBy('taskctl-scratch-stOppd');
      stopped.kill('SIGSTOP');
      const ended = once(killed, 'exit');
      killed.kill('SIGKILL');
      await ended;
      expect(existsSync(join(parent, 'taskctl-scratch-kiLLed'))).toBe(true);
      const scratch = new Scratch(parent);
      expect(readdirSync(parent)).toEqual(['taskctl-scratch-stOppd']);
      scratch.dispose();
    },
  );

  it('leaves a dir whose lock is not made yet for a few seconds, then sweeps it; leaves what is not ours', () => {
    const young = join(parent, 'taskctl-scratch-aBc123');
    const old = join(parent, 'taskctl-scratch-dEf456');
    const plainLock = join(parent, 'taskctl-scratch-gHi789');
    const other = join(parent, 'taskctl-items-1-aBc123');
    for (const dir of [young, old, plainLock, other]) mkdirSync(dir);
    writeFileSync(join(plainLock, 'live.fifo'), '');
    for (const dir of [old, plainLock, other]) utimesSync(dir, HOUR_AGO, HOUR_AGO);
    sweepScratch(parent);
    expect([young, old, plainLock, other].map((dir) => existsSync(dir))).toEqual([true, false, true, true]);
  });
});

describe('ByteLog', () => {
  /** Appends `records` (each its bytes, as a caller writes into the buffer `reserve` returns) and reads them back. */
  function roundTrip(size: number, firstSize: number | undefined, records: Buffer[]) {
    const scratch = new Scratch(parent);
    const flushed: number[] = [];
    const log = new ByteLog(scratch, 'log', size, (bytes) => flushed.push(bytes.length), firstSize);
    for (const record of records) {
      const buffer = log.reserve(record.length);
      record.copy(buffer, log.offset);
      log.advance(record.length);
    }
    log.finish();
    const blocks: Buffer[] = [];
    for (const block of log.read(size)) blocks.push(Buffer.from(block)); // a block is reused once the next is read
    const back = Buffer.concat(blocks);
    log.dispose();
    scratch.dispose();
    return { back, flushed, files: log.length };
  }

  it('started small, grows to its size before its first flush, and gives back every byte in order', () => {
    const records = Array.from({ length: 300 }, (_, i) => Buffer.from(`item-${i}-${'x'.repeat(i % 37)}\n`));
    const all = Buffer.concat(records);
    const grown = roundTrip(1024, 16, records);
    const fixed = roundTrip(1024, undefined, records);
    expect(grown.back.equals(all)).toBe(true);
    // The same flushes as a buffer of its full size from the start: only a full 1024-byte buffer goes to the file.
    expect(grown.flushed).toEqual(fixed.flushed);
    expect(grown.flushed.slice(0, -1).every((bytes) => bytes > 1024 - 64)).toBe(true);
    expect(grown.files).toBe(all.length);
    const scratch = new Scratch(parent);
    expect(new ByteLog(scratch, 'small', 1024, undefined, 16).reserve(0)).toHaveLength(16);
    expect(new ByteLog(scratch, 'full', 1024).reserve(0)).toHaveLength(1024);
    scratch.dispose();
  });
});

describe('a temporary directory that cannot take scratch files', () => {
  /** What a run meets: a clear error naming the directory and TMPDIR, exit 14 (a file not written), never "a bug". */
  const refused = (what: () => unknown, where: string) => {
    let thrown: unknown;
    try {
      what();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CliError);
    const error = thrown as CliError;
    expect(error.exitCode).toBe(ExitCode.outputFailed);
    expect(error.message).toBe(`cannot write temporary files in ${where} (a part of the path is not a directory)`);
    expect(error.hint).toMatch(/set TMPDIR to a directory with room that you can write to/);
  };

  it('a parent that is a file: making the directory is refused in words', () => {
    const file = join(parent, 'not-a-dir');
    writeFileSync(file, '');
    refused(() => new Scratch(file).path('items'), file);
  });

  it('a spill that cannot be written: the log refuses in the same words', () => {
    const file = join(parent, 'not-a-dir');
    writeFileSync(file, '');
    const log = new ByteLog(new Scratch(file), 'items', 16);
    log.reserve(16).fill(1);
    log.advance(16);
    refused(() => log.reserve(8), file);
  });
});
