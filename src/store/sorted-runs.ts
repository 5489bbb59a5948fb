/**
 * The files of `taskctl diff`'s sort: a side's lines spilled in blocks to a file of a private scratch dir under the
 * system temp dir (store/scratch.ts: made on first spill, removed on every exit, and by the next run when this one
 * was killed), each block read back by position when its part of the side is compared.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { Scratch } from './scratch.js';

/** A side's spill file: blocks appended in order, each read back by where it starts. */
export interface SpillFile {
  /** Appends `bytes`; returns where they start in the file. */
  append: (bytes: Uint8Array) => number;
  /** Reads `length` bytes from `position` of the file into `into` at `at`. */
  read: (into: Uint8Array, at: number, length: number, position: number) => void;
}

export class RunFiles {
  private readonly scratch: Scratch;
  private count = 0;
  private readonly open = new Set<number>();

  /** `parent`: where the scratch dir goes (default: the system temp dir). */
  constructor(parent?: string) {
    this.scratch = new Scratch(parent);
  }

  /** A new spill file, open for appending and reading until `dispose`. */
  file(): SpillFile {
    const path = this.scratch.path(`run-${++this.count}`);
    const fd = this.scratch.write(() => openSync(path, 'w+', 0o600));
    this.open.add(fd);
    let size = 0;
    return {
      append: (bytes) => {
        const at = size;
        this.scratch.write(() => {
          for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
        });
        size += bytes.length;
        return at;
      },
      read: (into, at, length, position) => {
        for (let done = 0; done < length;) {
          const n = readSync(fd, into, at + done, length - done, position + done);
          if (n === 0) throw new Error('a spill file ended early');
          done += n;
        }
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
