/**
 * vitest global setup: the tests' temporary files (homes, state directories, journals, ledgers) go to a directory of
 * their own on a RAM file system where there is one (Linux's /dev/shm), removed after the run. A create is a journaled
 * job, and every record is fsynced: on a disk shared with other work those fsyncs, renames and removals blocked a test
 * file's event loop for seconds. What the tests check (contents, modes, locks, atomic renames) is the same there.
 */
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';

const RAM = '/dev/shm';

function ramDir(): string | undefined {
  try {
    if (!statSync(RAM).isDirectory()) return undefined;
    accessSync(RAM, constants.W_OK);
    return mkdtempSync(`${RAM}/taskctl-tests-`);
  } catch {
    return undefined;
  }
}

export default function setup(): (() => void) | undefined {
  const dir = ramDir();
  if (dir === undefined) return undefined;
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
