/**
 * A create killed with SIGKILL cannot remove its items scratch dir: the next run removes the dirs of processes that
 * are gone, once they are a few minutes old; a live run's dir, a young one and anything not ours stay.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Scratch, removeStaleScratch } from '../../../src/store/scratch.js';

/** Above Linux's largest pid (2^22): no process has it. */
const DEAD_PID = 2 ** 30 + 7;
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;

let parent: string;
afterEach(() => rmSync(parent, { recursive: true, force: true }));

function dir(name: string, old: boolean): string {
  const path = join(parent, name);
  mkdirSync(path);
  writeFileSync(join(path, 'items'), 'a.com\n');
  if (old) utimesSync(path, HOUR_AGO, HOUR_AGO);
  return path;
}

describe('stale items scratch dirs', () => {
  it("removes an old dir of a dead process; keeps a live process's, a young one and others", () => {
    parent = mkdtempSync(join(tmpdir(), 'taskctl-scratch-test-'));
    const stale = dir(`taskctl-items-${DEAD_PID}-aBc123`, true);
    const live = dir(`taskctl-items-${process.pid}-dEf456`, true);
    const young = dir(`taskctl-items-${DEAD_PID}-gHi789`, false);
    const other = dir('taskctl-items-noPid1', true);
    const foreign = dir(`something-${DEAD_PID}-else`, true);
    removeStaleScratch(parent);
    expect([stale, live, young, other, foreign].map((path) => existsSync(path))).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it("a run's scratch dir carries its pid, and making it clears the stale ones", () => {
    parent = mkdtempSync(join(tmpdir(), 'taskctl-scratch-test-'));
    const stale = dir(`taskctl-items-${DEAD_PID}-aBc123`, true);
    const scratch = new Scratch(parent);
    const file = scratch.path('items');
    expect(file).toMatch(new RegExp(`taskctl-items-${process.pid}-[^/\\\\]+[/\\\\]items$`));
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(parent)).toHaveLength(1);
    scratch.dispose();
    expect(readdirSync(parent)).toHaveLength(0);
  });
});
