/** The duplicate check's memory: what it holds follows the distinct items, not how often one repeats. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { RepeatFinder } from '../../../../src/core/items/repeats.js';
import { Scratch } from '../../../../src/store/scratch.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('300,000 copies of one item: every copy after the first is a repeat, and the set of hashes stays small', () => {
  const parent = mkdtempSync(join(tmpdir(), 'taskctl-repeats-'));
  dirs.push(parent);
  const scratch = new Scratch(parent);
  const finder = new RepeatFinder(scratch);
  const copies = 300_000;
  for (let i = 0; i < copies; i++) finder.add('same.example');
  // The set is garbage once `finish` returns, but not yet collected: array buffers still count it. One sized to the
  // group's records (all 300,000 copies land in one group) took 16 MiB here; one that grows with distinct items, 16 KiB.
  const before = process.memoryUsage().arrayBuffers;
  const { repeats, duplicates } = finder.finish();
  const grown = process.memoryUsage().arrayBuffers - before;
  finder.dispose();
  scratch.dispose();
  expect(duplicates).toBe(copies - 1);
  expect(repeats[0]).toBe(0b1111_1110);
  expect(grown).toBeLessThan(4 * 1024 * 1024);
});
