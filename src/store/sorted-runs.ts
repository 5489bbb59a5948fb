/**
 * The files of an external sort (`taskctl diff`): sorted runs of text lines spilled to a private scratch dir under the
 * system temp dir (store/scratch.ts: made on first spill, removed on every exit, and by the next run when this one
 * was killed), each read back in order a block at a time, so memory holds a block per run, never a run.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { Scratch } from './scratch.js';

/**
 * Bytes read from a run file at a time: the 400 runs of two 10,000,000-item sides hold 6 MiB of blocks and their lines
 * (64 KiB blocks took 327 MB peak RSS there, 30 MB more than at 1,000,000 items).
 */
const READ_BLOCK = 16 * 1024;

/** One run read back: the next line (without its line break), or undefined at its end. */
export interface RunReader {
  next: () => string | undefined;
}

export class RunFiles {
  private readonly scratch: Scratch;
  private count = 0;
  private readonly open = new Set<number>();

  /** `parent`: where the scratch dir goes (default: the system temp dir). */
  constructor(parent?: string) {
    this.scratch = new Scratch(parent);
  }

  /** Writes `bytes` (lines, each ending with a line break) as a new run; returns its path. */
  write(bytes: Uint8Array): string {
    const path = this.scratch.path(`run-${++this.count}`);
    const fd = openSync(path, 'w', 0o600);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    } finally {
      closeSync(fd);
    }
    return path;
  }

  /** The lines of the run at `path`, in order; its file stays open until the end is read or `dispose`. */
  read(path: string): RunReader {
    const fd = openSync(path, 'r');
    this.open.add(fd);
    const block = Buffer.allocUnsafe(READ_BLOCK);
    const decoder = new StringDecoder('utf8');
    let lines: string[] = [];
    let at = 0;
    let carry = '';
    let ended = false;
    const refill = (): boolean => {
      while (!ended) {
        const n = readSync(fd, block, 0, READ_BLOCK, null);
        if (n === 0) {
          ended = true;
          this.open.delete(fd);
          closeSync(fd);
          return false;
        }
        const parts = (carry + decoder.write(block.subarray(0, n))).split('\n');
        carry = parts.pop() ?? '';
        if (parts.length > 0) {
          lines = parts;
          at = 0;
          return true;
        }
      }
      return false;
    };
    return {
      next: () => {
        if (at >= lines.length && !refill()) return undefined;
        return lines[at++];
      },
    };
  }

  /** Closes what is open and removes the scratch dir with every run in it. */
  dispose(): void {
    for (const fd of this.open) closeSync(fd);
    this.open.clear();
    this.scratch.dispose();
  }
}
