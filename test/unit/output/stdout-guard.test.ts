/** The guard on stdout and stderr (src/output/stdout-guard.ts): a terminal that hangs up is a hang-up, not exit 14. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardStdout, holdOutput, settleOutcome } from '../../../src/output/stdout-guard.js';

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
