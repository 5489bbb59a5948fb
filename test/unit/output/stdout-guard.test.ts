/** The guard on stdout and stderr (src/output/stdout-guard.ts): a terminal that hangs up is a hang-up, not exit 14. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { guardStdout, holdOutput, settleOutcome, writeWhole } from '../../../src/output/stdout-guard.js';

type Guarded = Parameters<typeof guardStdout>[0];

function stream(isTTY: boolean): Guarded & EventEmitter & { written: string[] } {
  const written: string[] = [];
  return Object.assign(new EventEmitter(), { isTTY, written, write: (text: string) => written.push(text) }) as never;
}

const failure = (code: string) => Object.assign(new Error(code), { code });

function guarded(ttys: { stdout: boolean; stderr: boolean }) {
  const out = stream(ttys.stdout);
  const err = stream(ttys.stderr);
  const exits: number[] = [];
  let hangUps = 0;
  guardStdout(
    out,
    err,
    (code) => exits.push(code),
    () => hangUps++,
  );
  return { out, err, exits, hangUps: () => hangUps };
}

describe('guardStdout', () => {
  it('EIO on a terminal stops the run as a hang-up, once, with no exit 14 and no line', () => {
    const run = guarded({ stdout: true, stderr: true });
    run.out.emit('error', failure('EIO'));
    run.err.emit('error', failure('EIO'));
    run.out.emit('error', failure('EIO'));
    expect(run.hangUps()).toBe(1);
    expect(run.exits).toEqual([]);
    expect([...run.out.written, ...run.err.written]).toEqual([]);
  });

  it('EIO on a terminal is a hang-up under a holder too (a create then stops as at SIGHUP, 129, not 14)', () => {
    const run = guarded({ stdout: true, stderr: true });
    holdOutput(run.out);
    run.out.emit('error', failure('EIO'));
    expect(run.hangUps()).toBe(1);
    expect(run.exits).toEqual([]);
  });

  it('EIO on a file or a pipe is a write error: one line and exit 14', () => {
    const run = guarded({ stdout: false, stderr: true });
    run.out.emit('error', failure('EIO'));
    expect(run.hangUps()).toBe(0);
    expect(run.exits).toEqual([14]);
    expect(run.err.written.join('')).toMatch(/^error: cannot write the output \(an input\/output error\)\n$/);
  });

  it('stderr that cannot be written: the line goes to stdout only where a person reads it, never into data', () => {
    const piped = guarded({ stdout: false, stderr: false });
    piped.err.emit('error', failure('ENOSPC'));
    expect(piped.exits).toEqual([14]);
    expect(piped.out.written).toEqual([]);
    const terminal = guarded({ stdout: true, stderr: false });
    terminal.err.emit('error', failure('ENOSPC'));
    expect(terminal.exits).toEqual([14]);
    expect(terminal.out.written).toEqual(['error: cannot write messages to stderr (the disk is full)\n']);
  });

  it('another error on a terminal is still exit 14 (a closed descriptor is not a hang-up)', () => {
    const run = guarded({ stdout: true, stderr: true });
    run.out.emit('error', failure('EBADF'));
    expect(run.hangUps()).toBe(0);
    expect(run.exits).toEqual([14]);
  });

  it('a reader of stderr that went away ends the run quietly, as one of stdout does: no line, the settled code', () => {
    const run = guarded({ stdout: false, stderr: false });
    run.err.emit('error', failure('EPIPE'));
    expect(run.exits).toEqual([0]);
    const failing = guarded({ stdout: false, stderr: false });
    settleOutcome(failing.out, 5);
    failing.err.emit('error', failure('EPIPE'));
    expect(failing.exits).toEqual([5]);
    expect([...run.out.written, ...failing.out.written]).toEqual([]);
  });

  it('a reader of stderr going away under a holder leaves the run to finish its side effect', () => {
    const run = guarded({ stdout: false, stderr: false });
    holdOutput(run.out);
    run.err.emit('error', failure('EPIPE'));
    expect(run.exits).toEqual([]);
    expect(run.out.written).toEqual([]);
  });
});

describe('writeWhole', () => {
  /** A file on stdout as Node makes it (SyncWriteStream): one writeSync per chunk, its count ignored. */
  function fileStream(): Writable & { fd: number } {
    const stream = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    return Object.assign(stream, { fd: 7, _type: 'fs' });
  }

  it('a short write then a full disk is the full disk: one line and exit 14, not a file cut mid-record and exit 0', async () => {
    const out = fileStream();
    const err = stream(false);
    const exits: number[] = [];
    guardStdout(out as never, err, (code) => exits.push(code));
    const calls: Array<[number, number]> = [];
    writeWhole(out, (_fd, _buffer, offset, length) => {
      calls.push([offset, length]);
      if (offset === 0) return 4096;
      throw failure('ENOSPC');
    });
    const record = 'task,target\n'.repeat(2000);
    out.write(record);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(calls).toEqual([
      [0, record.length],
      [4096, record.length - 4096],
    ]);
    expect(exits).toEqual([14]);
    expect(err.written.join('')).toBe('error: cannot write the output (the disk is full)\n');
  });

  it('short writes that succeed write the rest, in order, and the run goes on', async () => {
    const out = fileStream();
    const exits: number[] = [];
    guardStdout(out as never, stream(false), (code) => exits.push(code));
    const written: string[] = [];
    writeWhole(out, (_fd, buffer, offset, length) => {
      const n = Math.min(length, 3);
      written.push(buffer.subarray(offset, offset + n).toString());
      return n;
    });
    out.write('abcdefgh');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(written).toEqual(['abc', 'def', 'gh']);
    expect(exits).toEqual([]);
  });

  it('leaves a stream that is not a file (a pipe, a terminal, a test stream) as it is', () => {
    const out = Object.assign(fileStream(), { _type: 'pipe' });
    let calls = 0;
    writeWhole(out, () => ++calls);
    out.write('abc');
    expect(calls).toBe(0);
  });
});
