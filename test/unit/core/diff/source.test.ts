/** A side that is refused after its file was opened (tsv, empty, no target) leaves no file descriptor open. */
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileSide } from '../../../../src/core/diff/source.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { skippedUnless } from '../../../skip-reason.js';

const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The process's descriptors open on `path`: not a count of all of them, which other files of the same worker change
 * as their sockets and files close late.
 */
const openOn = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed since it was listed
    }
  }).length;

describe.runIf(process.platform === 'linux')(
  skippedUnless(
    'a refused file side',
    process.platform === 'linux',
    'counts descriptors in /proc, which only Linux has',
  ),
  () => {
    it.each([
      ['tsv', 'a.com\tcompleted\ttrue\n'],
      ['empty', '\n\n'],
    ])('%s: exit 3, and its file is closed', async (name, text) => {
      const path = join(dir, `${name}.txt`);
      writeFileSync(path, text);
      const { io } = createMemoryIO();
      await expect(
        openFileSide({ kind: 'file', path, name: path }, io.stdin, new AbortController().signal),
      ).rejects.toMatchObject({ exitCode: 3 });
      expect(openOn(path)).toBe(0);
    });
  },
);
