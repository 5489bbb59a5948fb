/**
 * A terminal that hangs up under a run (its window closed, an ssh session dropped) leaves stdin, stdout or stderr
 * pointing at a dead tty. Node 20, and 22 before its fix, then abort at exit instead of ending with the run's code:
 * restoring the terminal's modes fails, and an assertion in Node ends the process with 134 and a native stack trace.
 * Node restores only a descriptor that still holds the file it saw at start, so each terminal that is gone by then is
 * pointed at /dev/null first: the run ends with its own code, 129 after the hang-up (docs/behaviour.md#exit-codes).
 * Checked at exit only, with a stat of each descriptor: node:tty (10 ms to load) is asked only about a character
 * device other than /dev/null, which on a terminal is loaded already.
 */
import { closeSync, fstatSync, openSync, statSync } from 'node:fs';

export interface TerminalIo {
  /** The device number of what `fd` is open on when it is a character device; undefined otherwise or when closed. */
  deviceOf: (fd: number) => number | undefined;
  /** The device number of /dev/null. */
  nullDevice: () => number | undefined;
  isatty: (fd: number) => boolean;
  closeSync: (fd: number) => void;
  openSync: (path: string, flags: string) => number;
}

const nodeIo: TerminalIo = {
  deviceOf: (fd) => {
    try {
      const stat = fstatSync(fd);
      return stat.isCharacterDevice() ? stat.rdev : undefined;
    } catch {
      return undefined;
    }
  },
  nullDevice: () => {
    try {
      return statSync('/dev/null').rdev;
    } catch {
      return undefined;
    }
  },
  isatty: (fd) => process.getBuiltinModule('node:tty').isatty(fd),
  closeSync,
  openSync,
};

/** Run at exit: stdin, stdout and stderr that are dead terminals now point at /dev/null. */
export function releaseHungUpTerminals(io: TerminalIo = nodeIo): void {
  let nullDevice: number | undefined;
  for (const fd of [0, 1, 2]) {
    const device = io.deviceOf(fd);
    if (device === undefined) continue; // a file, a pipe or a socket: nothing for Node to restore
    nullDevice ??= io.nullDevice();
    if (device === nullDevice || io.isatty(fd)) continue; // /dev/null, or a terminal still there
    try {
      io.closeSync(fd);
    } catch {
      continue;
    }
    try {
      // The lowest free descriptor: `fd` itself, as the ones below it are open (or were reopened just before).
      const placeholder = io.openSync('/dev/null', 'r+');
      if (placeholder !== fd) io.closeSync(placeholder);
    } catch {
      // Left closed: Node skips a closed descriptor too.
    }
  }
}
