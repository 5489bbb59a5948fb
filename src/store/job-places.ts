/**
 * Where this user last ran each job: `places/ID.json` in the cache directory, the real path of the journal the run of
 * job ID held and that file's identity (device and inode), written by the run once it holds the job's locks. The
 * cache directory does not follow TASKCTL_STATE_DIR, so a copy of a job run under another state directory (what a
 * read-only state directory's refusal advises) is found from the original, and the original from the copy
 * (docs/behaviour.md#jobs). What a record means is core's (core/submit/journaled-run.ts); this module only reads and
 * writes it.
 */
import { lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { isAtomicTempName, readRegularFile, writeFileAtomicSync } from './atomic-file.js';
import { JOB_ID, realPath } from './job-files.js';
import { describeDirectoryProblem, makeDirectory } from './make-dir.js';

export interface JobPlaceRecord extends FileIdentity {
  /** The journal's real path. */
  path: string;
  /**
   * That journal was removed as its job ended there (pruned: `jobs --prune` or the job-retention), when and as what
   * (`lost`: finished, but the service no longer had the tasks of some of its chunks): the record stays, so a copy of
   * the job elsewhere never buys again what that run bought. Its device and inode then name no file any more (another
   * file may have them by now).
   */
  removed?: { at: string; as: RemovedAs };
  /**
   * How far the journal had got the last time a run of this user wrote to it: its size in bytes, and the highest chunk
   * a record of it names. A journal found shorter at that path was put back from an earlier copy (core's
   * journaled-run.ts). Absent from records of earlier versions.
   */
  size?: number;
  reached?: number;
}

/** How a job whose journal was removed had ended there: the state `taskctl jobs` listed it in. */
export type RemovedAs = 'finished' | 'lost' | 'superseded';

/** A record is one short line: anything larger is not one of ours. */
const MAX_BYTES = 8192;

const recordPath = (cacheDir: string, id: string) => join(cacheDir, 'places', `${id}.json`);

/**
 * A file's identity: its device and inode (as a journal's lock records them), and its birth (ns), which a rename keeps
 * and a file that got a freed inode does not; absent where the file system keeps none, and in records of earlier
 * versions.
 */
export interface FileIdentity {
  dev: string;
  ino: string;
  born?: string | undefined;
}

/** The identity of the file at `path`, or undefined when it cannot be looked at. */
export function fileIdentity(path: string): FileIdentity | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    const born = stats.birthtimeNs > 0n ? { born: String(stats.birthtimeNs) } : {};
    return { dev: String(stats.dev), ino: String(stats.ino), ...born };
  } catch {
    return undefined;
  }
}

/** True when two identities are one file: the same device and inode, and the same birth where both know one. */
export function sameFile(one: FileIdentity | undefined, other: FileIdentity | undefined): boolean {
  if (one === undefined || other === undefined) return false;
  if (one.dev !== other.dev || one.ino !== other.ino) return false;
  return one.born === undefined || other.born === undefined || one.born === other.born;
}

/**
 * True when `cacheDir` holds records of job places of this user: its `places` is a directory (not a link to one) that
 * this user owns. Another cache directory than a run's own is written to only then (a journal's maker's: core's
 * journaled-run.ts), never one a journal merely names.
 */
export function keepsPlaces(cacheDir: string): boolean {
  try {
    const places = lstatSync(join(cacheDir, 'places'));
    return places.isDirectory() && (process.getuid === undefined || places.uid === process.getuid());
  } catch {
    return false;
  }
}

/**
 * The cache directory a job's journal was made under (its record's `origin.cache`), when it is another than
 * `cacheDir` and keeps this user's records of job places (keepsPlaces): that directory's record is the job's own, read
 * first and written too by every run of it, from whatever copy (core's journaled-run.ts). Never one a journal merely
 * names.
 */
export function makerCache(origin: { cache?: string | undefined } | undefined, cacheDir: string): string | undefined {
  const cache = origin?.cache;
  if (cache === undefined || !isAbsolute(cache) || realPath(cache) === realPath(cacheDir)) return undefined;
  return keepsPlaces(cache) ? cache : undefined;
}

/**
 * Where job `id` was last run, as its commands read it: the record of the cache directory its journal was made under
 * (`maker`: makerCache), else this one's; a removal this one recorded stands first.
 */
export function jobPlace(cacheDir: string, id: string, maker: string | undefined): JobPlaceRecord | undefined {
  const own = lastJobPlace(cacheDir, id);
  if (own?.removed !== undefined || maker === undefined) return own;
  return lastJobPlace(maker, id) ?? own;
}

/** Where job `id` was last run, if this user's cache directory says so (a missing or damaged record: undefined). */
export function lastJobPlace(cacheDir: string, id: string): JobPlaceRecord | undefined {
  if (!JOB_ID.test(id)) return undefined;
  try {
    const text = readRegularFile(recordPath(cacheDir, id), { what: 'cache file', maxBytes: MAX_BYTES });
    if (text === undefined) return undefined;
    const record = JSON.parse(text) as Partial<Record<keyof JobPlaceRecord, unknown>> | null;
    const { path, dev, ino, born: birth, removed, size, reached } = record ?? {};
    if (typeof path !== 'string' || typeof dev !== 'string' || typeof ino !== 'string') return undefined;
    const born = typeof birth === 'string' ? { born: birth } : {};
    const got = typeof size === 'number' && typeof reached === 'number' ? { size, reached } : {};
    const { at, as } = (removed ?? {}) as { at?: unknown; as?: unknown };
    // A removal it cannot read is still one: a copy resumed must not take it for a file that may be there.
    if (removed !== undefined)
      return {
        path,
        dev,
        ino,
        ...born,
        removed: { at: typeof at === 'string' ? at : '', as: as === 'superseded' || as === 'lost' ? as : 'finished' },
      };
    return { path, dev, ino, ...born, ...got };
  } catch {
    return undefined;
  }
}

/**
 * Records `place` as where job `id` was last run (unchanged from `last`, the record as read or last written by this
 * run: nothing written). Throws the fs error. Fsynced only when the place itself changes: how far its journal got,
 * recorded after each record a run appends, is not (a record lost to a power cut is an earlier one, which only guards
 * less).
 */
export function recordJobPlace(
  cacheDir: string,
  id: string,
  place: JobPlaceRecord,
  last = lastJobPlace(cacheDir, id),
): void {
  if (!JOB_ID.test(id)) return;
  const same = last?.path === place.path && last.born === place.born && sameFile(last, place);
  if (same && last.size === place.size && last.reached === place.reached) return;
  const problem = makeDirectory(join(cacheDir, 'places'), 0o700);
  if (problem) throw new Error(describeDirectoryProblem(problem));
  writeFileAtomicSync(recordPath(cacheDir, id), `${JSON.stringify(place)}\n`, 0o600, {
    maxBytes: MAX_BYTES,
    // The place itself is kept durably when it changes; how far its journal got need not be.
    durable: !same,
  });
}

/**
 * Job `id`'s journal `journal` was removed as its job ended there (a job pruned, `as` it was listed), at `nowMs`: when
 * this user last ran the job from it (or from no file on record), the record stays, marked removed, so a copy of the
 * job (an original continued elsewhere, a backup) is told that its tasks were bought there and sends nothing
 * (core/submit/journaled-run.ts). One naming another file (a copy run under another state directory) stays as it is:
 * it is what tells that copy's original where the job went. Never throws: a record not written costs that guard.
 */
export function retireJobPlace(cacheDir: string, id: string, journal: string, as: RemovedAs, nowMs: number): void {
  if (!JOB_ID.test(id)) return;
  const last = lastJobPlace(cacheDir, id);
  // The journal is gone already; its directory still resolves as it did when the record was written.
  const path = join(realPath(dirname(journal)), basename(journal));
  if (last !== undefined && last.removed === undefined && last.path !== path) return;
  if (last?.removed !== undefined && last.path === path) return;
  try {
    const problem = makeDirectory(join(cacheDir, 'places'), 0o700);
    if (problem) return;
    const record: JobPlaceRecord = {
      path,
      dev: last?.path === path ? last.dev : '',
      ino: last?.path === path ? last.ino : '',
      removed: { at: new Date(nowMs).toISOString(), as },
    };
    writeFileAtomicSync(recordPath(cacheDir, id), `${JSON.stringify(record)}\n`, 0o600, { maxBytes: MAX_BYTES });
  } catch {
    // not written: a read-only or full cache directory
  }
}

/**
 * Removes the records of journals removed (retireJobPlace) more than `keepMs` ago, judged by the record's date first
 * (a younger one is not read), and the temporary files of writers killed as long ago: what they guard is bounded, as
 * the cache directory's other files are. Never throws.
 */
export function sweepRetiredPlaces(cacheDir: string, keepMs: number, nowMs: number): void {
  const dir = join(cacheDir, 'places');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    try {
      // A record's temporary file that a killed writer left (a writer at work has had it for milliseconds).
      if (isAtomicTempName(name) && nowMs - statSync(join(dir, name)).mtimeMs >= keepMs) rmSync(join(dir, name));
      if (!JOB_ID.test(id)) continue;
      if (nowMs - statSync(join(dir, name)).mtimeMs < keepMs) continue;
      const record = lastJobPlace(cacheDir, id);
      const at = Date.parse(record?.removed?.at ?? '');
      if (record?.removed !== undefined && !(nowMs - at < keepMs)) rmSync(join(dir, name), { force: true });
    } catch {
      // left for a later sweep
    }
  }
}
