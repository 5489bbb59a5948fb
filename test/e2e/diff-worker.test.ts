/**
 * A large second side of `taskctl diff` read by a worker thread that loads the built bundle (dist/taskctl.cjs), as the
 * CLI does on a machine with a free core: the same sorted items, fields and errors as reading it in the main thread,
 * whether the side stays one run in memory or spills runs that come back to the main thread's run files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { readInWorker, WORKER_MIN_BYTES } from '../../src/core/diff/side-worker.js';
import { readFile, SideItems } from '../../src/core/diff/side-items.js';
import { itemFields, itemTarget, itemTask, RUN_LIMITS, SortedSide } from '../../src/core/diff/sort.js';
import { openFileSide } from '../../src/core/diff/source.js';
import { RunFiles } from '../../src/store/sorted-runs.js';

const BUNDLE = fileURLToPath(new URL('../../dist/taskctl.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'taskctl-diff-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An export of about `bytes` bytes, with an escaped target now and then (the exact parser's lines too). */
function exportFile(name: string, bytes: number, broken?: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const target = i % 1000 === 7 ? `quoted \\"${i}\\".example` : `host-${(i * 7919).toString(36)}.example.com`;
    const line =
      i + 1 === broken
        ? '{"target": "broken",'
        : `{"task":${1 + (i % 5)},"target":"${target}","status":"completed","available":${i % 3 === 0},"error":null}`;
    lines.push(line);
    size += line.length + 1;
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

async function open(path: string) {
  return openFileSide({ kind: 'file', path, name: path });
}

/** Every item of a side in its order, with what the walk reads of it. */
function items(side: SideItems): string[] {
  const cursor = side.sorted.sorted();
  const out: string[] = [];
  for (let item = cursor.next(); item !== undefined; item = cursor.next())
    out.push(`${item.hash} ${itemTarget(item)} ${itemTask(item)} ${itemFields(item)}`);
  return out;
}

async function inMainThread(path: string, files: RunFiles): Promise<SideItems> {
  const file = await open(path);
  try {
    const side = new SideItems(path, new SortedSide(files), 'json');
    await readFile(file, side, new AbortController().signal);
    return side;
  } finally {
    await file.close();
  }
}

async function inWorker(path: string, files: RunFiles): Promise<SideItems> {
  const file = await open(path);
  await file.close();
  const worker = readInWorker(file, 'json', files, BUNDLE);
  if (worker === undefined) throw new Error('no worker was started');
  try {
    return await worker.done;
  } finally {
    await worker.stop();
  }
}

describe('diff: a side read by a worker thread', () => {
  const limits = { ...RUN_LIMITS };
  afterEach(() => Object.assign(RUN_LIMITS, limits));
  const size = WORKER_MIN_BYTES + 64 * 1024;

  it.each([
    ['one run kept in memory', RUN_LIMITS.bytes],
    ['runs spilled through the main thread', 1024 * 1024],
  ])('gives the items, fields and count the main thread gives: %s', async (_, runBytes) => {
    RUN_LIMITS.bytes = runBytes;
    const path = exportFile('side.ndjson', size);
    const files = new RunFiles(dir);
    try {
      const [worker, main] = [await inWorker(path, files), await inMainThread(path, files)];
      expect(worker.sorted.count).toBe(main.sorted.count);
      expect([...worker.fields]).toEqual([...main.fields]);
      expect(items(worker)).toEqual(items(main));
    } finally {
      files.dispose();
    }
  });

  it('fails with the error and line the main thread names', async () => {
    const path = exportFile('broken.ndjson', size, 30_000);
    const files = new RunFiles(dir);
    try {
      const fromMain = await inMainThread(path, files).catch((error: unknown) => error);
      const fromWorker = await inWorker(path, files).catch((error: unknown) => error);
      expect(fromMain).toBeInstanceOf(InputError);
      expect(fromWorker).toBeInstanceOf(InputError);
      expect((fromWorker as InputError).message).toBe((fromMain as InputError).message);
      expect((fromWorker as InputError).message).toContain(':30000:');
      expect((fromWorker as InputError).hint).toBe((fromMain as InputError).hint);
    } finally {
      files.dispose();
    }
  });

  it('is not started for a small side, nor without a bundle', async () => {
    const files = new RunFiles(dir);
    try {
      const small = await open(exportFile('small.ndjson', 10_000));
      await small.close();
      expect(readInWorker(small, 'json', files, BUNDLE)).toBeUndefined();
      const large = await open(exportFile('side.ndjson', size));
      await large.close();
      expect(readInWorker(large, 'json', files)).toBeUndefined(); // from source: no bundle to load
    } finally {
      files.dispose();
    }
  });
});
