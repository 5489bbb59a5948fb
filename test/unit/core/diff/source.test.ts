/** A side that is refused after its file was opened (tsv, empty, no target) leaves no file descriptor open. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileSide } from '../../../../src/core/diff/source.js';
import { createMemoryIO } from '../../../../src/output/memory-io.js';
import { skippedUnless } from '../../../skip-reason.js';

const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openFds = () => readdirSync('/proc/self/fd').length;

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
      const before = openFds();
      await expect(openFileSide({ kind: 'file', path, name: path }, io.stdin)).rejects.toMatchObject({ exitCode: 3 });
      expect(openFds()).toBe(before);
    });
  },
);
