/**
 * A FIFO side (`taskctl diff a.ndjson <(slow-cmd)`) is read through the event loop, so a stop signal is heard while the
 * diff waits on it: exit 130 at once, whether no line has come yet or its writer is open and silent
 * (docs/behaviour.md#exit-codes).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settle } from '../../../clock.js';
import { runTaskctl } from '../run-in-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-fifo-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The FIFO's write end, once a reader has opened it (ENXIO until then), after at most `turns` event-loop turns. */
async function writerOnceRead(fifo: string, turns = 100_000): Promise<number> {
  for (let i = 0; i < turns; i++) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch {
      await settle();
    }
  }
  throw new Error(`no reader opened ${fifo}`);
}

describe('diff with a FIFO side', () => {
  for (const order of ['second', 'first'] as const)
    it(`a stop signal while the FIFO (${order} side) is open and silent: exit 130, nothing compared`, async () => {
      const results = join(dir, 'a.ndjson');
      writeFileSync(results, '{"target":"a.com","status":"completed","data":{"available":true}}\n');
      const fifo = join(dir, 'side');
      execFileSync('mkfifo', [fifo]);
      const controller = new AbortController();
      const args = order === 'second' ? [results, fifo] : [fifo, results];
      const running = runTaskctl(['diff', ...args], { signal: controller.signal });
      const writer = await writerOnceRead(fifo);
      try {
        controller.abort();
        const result = await running;
        expect(result.code, result.stderr).toBe(130);
        expect(result.stdout).toBe('');
        expect(result.stderr).not.toMatch(/bug|at .*\.ts/);
      } finally {
        closeSync(writer);
      }
    });
});
