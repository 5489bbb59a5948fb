import { describe, expect, it } from 'vitest';
import { canRedraw, colorEnabled, isCI } from '../../../src/output/io.js';
import { createMemoryIO } from '../../../src/output/memory-io.js';

const tty = { write: () => true, isTTY: true };
const pipe = { write: () => true, isTTY: false };

describe('colorEnabled', () => {
  it('is on for a TTY and off for a pipe by default', () => {
    expect(colorEnabled(tty, {}, false)).toBe(true);
    expect(colorEnabled(pipe, {}, false)).toBe(false);
    expect(colorEnabled({ write: () => true }, {}, false)).toBe(false);
  });

  it('--no-color turns it off, even with FORCE_COLOR', () => {
    expect(colorEnabled(tty, {}, true)).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: '1' }, true)).toBe(false);
  });

  it('NO_COLOR (non-empty) turns it off; an empty NO_COLOR is ignored', () => {
    expect(colorEnabled(tty, { NO_COLOR: '1' }, false)).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' }, false)).toBe(true);
  });

  it('TERM=dumb turns it off', () => {
    expect(colorEnabled(tty, { TERM: 'dumb' }, false)).toBe(false);
    expect(colorEnabled(tty, { TERM: 'xterm-256color' }, false)).toBe(true);
  });

  it('FORCE_COLOR forces it on, over a pipe, NO_COLOR and TERM=dumb', () => {
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '' }, false)).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '3', NO_COLOR: '1', TERM: 'dumb' }, false)).toBe(true);
  });

  it('FORCE_COLOR=0 or =false forces it off, as in Node and chalk', () => {
    expect(colorEnabled(tty, { FORCE_COLOR: '0' }, false)).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: 'false' }, false)).toBe(false);
  });
});

describe('createMemoryIO', () => {
  it('captures writes per stream and feeds stdin', async () => {
    const { io, stdout, stderr } = createMemoryIO({ stdoutTTY: true, stdin: ['a\n', 'b\n'] });
    io.stdout.write('out');
    io.stderr.write('err');
    const input: string[] = [];
    for await (const chunk of io.stdin) input.push(String(chunk));
    expect([stdout.text(), stderr.text(), input.join('')]).toEqual(['out', 'err', 'a\nb\n']);
    expect([io.stdout.isTTY, io.stderr.isTTY, io.stdin.isTTY]).toEqual([true, false, false]);
  });
});

describe('isCI', () => {
  it('is on when CI is set to anything but empty, 0 or false (any case)', () => {
    for (const value of ['true', '1', 'github', 'TRUE']) expect(isCI({ CI: value })).toBe(true);
    for (const value of [undefined, '', '0', 'false', 'False']) expect(isCI({ CI: value })).toBe(false);
  });
});

describe('canRedraw: the one rule for a line redrawn in place (the live block, the spinner, a countdown)', () => {
  const tty = { isTTY: true, write: () => true };
  it('a terminal outside CI that moves its cursor', () => {
    expect(canRedraw(tty, {}, false)).toBe(true);
    expect(canRedraw(tty, { TERM: 'xterm-256color' }, false)).toBe(true);
  });
  it('never in CI mode, on TERM=dumb, or on what is not a terminal (a pipe, a file)', () => {
    expect(canRedraw(tty, {}, true)).toBe(false);
    expect(canRedraw(tty, { TERM: 'dumb' }, false)).toBe(false);
    expect(canRedraw({ isTTY: false, write: () => true }, {}, false)).toBe(false);
    expect(canRedraw({ write: () => true }, {}, false)).toBe(false);
  });
});
