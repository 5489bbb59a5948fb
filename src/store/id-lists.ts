/**
 * Lists of task ids that a hint names instead of printing them (`taskctl wait - < FILE`; docs/behaviour.md#for-people):
 * `ids/<time>-<random>.txt` in the state directory, one id a line, 0600. Bounded: a list older than the retention goes,
 * and only the newest KEPT_LISTS stay.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomic-file.js';
import { makeStateDirectory } from './state-dir.js';

/** At most this many lists stay in the state directory. */
export const KEPT_LISTS = 50;

const LIST_NAME = /^\d{8}T\d{6}Z-[0-9a-f]{8}\.txt$/;

/**
 * Writes `ids` to a new list in `stateDir` and returns its path; undefined when it cannot be written (an unwritable
 * state directory: the caller falls back to listing the ids). Removes lists past `maxAgeMs` or beyond the newest
 * KEPT_LISTS.
 */
export function writeIdList(stateDir: string, ids: readonly number[], nowMs: number, maxAgeMs: number) {
  const dir = join(stateDir, 'ids');
  try {
    makeStateDirectory(dir);
    const stamp = new Date(nowMs)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const path = join(dir, `${stamp}-${randomBytes(4).toString('hex')}.txt`);
    writeFileAtomicSync(path, ids.map((id) => `${id}\n`).join(''), 0o600, { durable: false });
    pruneLists(dir, path, nowMs, maxAgeMs);
    return path;
  } catch {
    return undefined;
  }
}

/** Old lists go; `keep` (the one just written) stays whatever its name sorts as. */
function pruneLists(dir: string, keep: string, nowMs: number, maxAgeMs: number): void {
  const lists = readdirSync(dir)
    .filter((name) => LIST_NAME.test(name) && join(dir, name) !== keep)
    .sort()
    .reverse();
  lists.forEach((name, index) => {
    const path = join(dir, name);
    try {
      if (index >= KEPT_LISTS - 1 || nowMs - statSync(path).mtimeMs > maxAgeMs) unlinkSync(path);
    } catch {
      // Removed by another run meanwhile.
    }
  });
}
