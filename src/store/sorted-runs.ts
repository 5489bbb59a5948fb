/**
 * The files of an external sort (`taskctl diff`): sorted runs of text lines spilled to a private scratch dir under the
 * system temp dir (store/scratch.ts: made on first spill, removed on every exit, and by the next run when this one
 * was killed), each read back in order a block at a time, so memory holds a block per run, never a run.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { Scratch } from './scratch.js';

/** One run read back a block at a time: `read(keep)` returns a new block that starts with `keep` (the unfinished
 * end of the previous one), or undefined at the run's end. Each block is a new Buffer: what was taken from an earlier
 * block stays valid. */
export interface RunReader {
  read: (keep: Uint8Array) => Buffer | undefined;
}

export class RunFiles {
  private readonly scratch: Scratch;
  private count = 0;
  private readonly open = new Set<number>();

  /** `parent`: where the scratch dir goes (default: the system temp dir). */
  constructor(parent?: string) {
    this.scratch = new Scratch(parent);
  }

  /** A new run: its bytes (lines, each ending with a line break) written in order, then `close` gives its path. */
  writer(): { write: (bytes: Uint8Array) => void; close: () => string } {
    const path = this.scratch.path(`run-${++this.count}`);
    const fd = openSync(path, 'w', 0o600);
    this.open.add(fd);
    return {
      write: (bytes) => {
        for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      },
      close: () => {
        this.open.delete(fd);
        closeSync(fd);
        return path;
      },
    };
  }

  /** The run at `path` read in blocks of `blockSize` bytes; its file stays open until the end is read or `dispose`. */
  read(path: string, blockSize: number): RunReader {
    const fd = openSync(path, 'r');
    this.open.add(fd);
    let ended = false;
    return {
      read: (keep) => {
        if (ended) return undefined;
        const block = Buffer.allocUnsafeSlow(keep.length + blockSize);
        block.set(keep, 0);
        const n = readSync(fd, block, keep.length, blockSize, null);
        if (n === 0) {
          ended = true;
          this.open.delete(fd);
          closeSync(fd);
          return undefined;
        }
        return block.subarray(0, keep.length + n);
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
