/** src/boot/hung-up-terminal.ts: at exit, each terminal that hung up is pointed at /dev/null, the others left be. */
import { describe, expect, it } from 'vitest';
import { releaseHungUpTerminals, type TerminalIo } from '../../../src/boot/hung-up-terminal.js';

type Kind = 'tty' | 'dead' | 'null' | 'file' | 'closed';
const DEVICE: Record<Kind, number | undefined> = {
  tty: 34816,
  dead: 34816,
  null: 259,
  file: undefined,
  closed: undefined,
};

/** Descriptors 0–2, each a live terminal, a dead one (hung up), /dev/null, a file, or closed; each change recorded. */
function fakeIo(start: Record<number, Kind>) {
  const state: Record<number, Kind> = { ...start };
  const calls: string[] = [];
  const asked: number[] = [];
  const io: TerminalIo = {
    deviceOf: (fd) => DEVICE[state[fd] ?? 'closed'],
    nullDevice: () => DEVICE.null,
    isatty: (fd) => (asked.push(fd), state[fd] === 'tty'),
    closeSync: (fd) => {
      if ((state[fd] ?? 'closed') === 'closed') throw Object.assign(new Error('EBADF'), { code: 'EBADF' });
      calls.push(`close ${fd}`);
      state[fd] = 'closed';
    },
    openSync: (path) => {
      const fd = [0, 1, 2, 3].find((n) => (state[n] ?? 'closed') === 'closed') ?? 4;
      calls.push(`open ${path} as ${fd}`);
      state[fd] = 'null';
      return fd;
    },
  };
  return { io, state, calls, asked };
}

describe('releaseHungUpTerminals', () => {
  it('points each terminal that hung up at /dev/null, in its own slot, and leaves the rest alone', () => {
    const fake = fakeIo({ 0: 'tty', 1: 'dead', 2: 'file' });
    releaseHungUpTerminals(fake.io);
    expect(fake.calls).toEqual(['close 1', 'open /dev/null as 1']);
    expect(fake.state).toEqual({ 0: 'tty', 1: 'null', 2: 'file' });
  });

  it('does nothing while every terminal lives, and asks node:tty about no file, pipe or /dev/null', () => {
    const fake = fakeIo({ 0: 'null', 1: 'tty', 2: 'file' });
    releaseHungUpTerminals(fake.io);
    expect(fake.calls).toEqual([]);
    expect(fake.asked).toEqual([1]);
  });

  it('a placeholder that lands in a lower free slot is closed again: the dead descriptor stays closed, as Node skips', () => {
    const fake = fakeIo({ 0: 'closed', 1: 'tty', 2: 'dead' });
    releaseHungUpTerminals(fake.io);
    expect(fake.calls).toEqual(['close 2', 'open /dev/null as 0', 'close 0']);
    expect(fake.state).toEqual({ 0: 'closed', 1: 'tty', 2: 'closed' });
  });
});
