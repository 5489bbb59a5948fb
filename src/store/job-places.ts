/**
 * Where this user last ran each job: `places/ID.json` in the cache directory, the real path of the journal the run of
 * job ID held and that file's identity (device and inode), written by the run once it holds the job's locks. The
 * cache directory does not follow TASKCTL_STATE_DIR, so a copy of a job run under another state directory (what a
 * read-only state directory's refusal advises) is found from the original, and the original from the copy
 * (docs/behaviour.md#jobs). What a record means is core's (core/submit/journaled-run.ts); this module only reads and
 * writes it.
 */
import { rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readRegularFile, writeFileAtomicSync } from './atomic-file.js';
import { JOB_ID, realPath } from './job-files.js';
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';

export interface JobPlaceRecord {
  /** The journal's real path. */
  path: string;
  dev: string;
  ino: string;
}

/** A record is one short line: anything larger is not one of ours. */
const MAX_BYTES = 8192;

const recordPath = (cacheDir: string, id: string) => join(cacheDir, 'places', `${id}.json`);

/** The identity of the file at `path` (as a journal's lock records it), or undefined when it cannot be looked at. */
export function fileIdentity(path: string): { dev: string; ino: string } | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return { dev: String(stats.dev), ino: String(stats.ino) };
  } catch {
    return undefined;
  }
}

/** Where job `id` was last run, if this user's cache directory says so (a missing or damaged record: undefined). */
export function lastJobPlace(cacheDir: string, id: string): JobPlaceRecord | undefined {
  if (!JOB_ID.test(id)) return undefined;
  try {
    const text = readRegularFile(recordPath(cacheDir, id), { what: 'cache file', maxBytes: MAX_BYTES });
    if (text === undefined) return undefined;
    const record = JSON.parse(text) as Partial<Record<keyof JobPlaceRecord, unknown>> | null;
    const { path, dev, ino } = record ?? {};
    return typeof path === 'string' && typeof dev === 'string' && typeof ino === 'string'
      ? { path, dev, ino }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Records `place` as where job `id` was last run (unchanged: nothing written). Throws the fs error. */
export function recordJobPlace(cacheDir: string, id: string, place: JobPlaceRecord): void {
  if (!JOB_ID.test(id)) return;
  const last = lastJobPlace(cacheDir, id);
  if (last?.path === place.path && last.dev === place.dev && last.ino === place.ino) return;
  const problem = makeDirectory(join(cacheDir, 'places'), 0o700);
  if (problem) throw new Error(describeDirectoryProblem(problem));
  writeFileAtomicSync(recordPath(cacheDir, id), `${JSON.stringify(place)}\n`, 0o600, { maxBytes: MAX_BYTES });
}

/**
 * Forgets where job `id` was last run when that was `journal`, the journal being removed (a job pruned): records do
 * not pile up, one per job ever run. One naming another file (a copy run under another state directory) stays: it is
 * what tells that copy's original where the job went. Never throws: a record left costs a few bytes.
 */
export function forgetJobPlace(cacheDir: string, id: string, journal: string): void {
  const last = lastJobPlace(cacheDir, id);
  // The journal may be gone already; its directory still resolves as it did when the record was written.
  if (last?.path !== join(realPath(dirname(journal)), basename(journal))) return;
  try {
    rmSync(recordPath(cacheDir, id), { force: true });
  } catch {
    // left for good: harmless
  }
}
