/**
 * A `--job` command (`show`, `wait`, `watch`, `retry`, `diff`) that reads a chunk's task and finds its id given to
 * another task (job-chunks.ts `checkChunkTask`: the service's ids started again) records that finding in the job's
 * journal (journal-records.ts `lost`), so that `taskctl jobs` and `resume`, which read only the journal, no longer
 * count the chunk as created. These commands read the journal without its locks; the record is written under them, and
 * only when they can be taken at once: a journal a live run holds, or one that cannot be written, is left as it is
 * (the next command that reads the chunk finds it again).
 */
import type { Env } from '../../lib/env.js';
import { JournalFile } from '../../store/journal-file.js';
import { JobFold } from '../submit/journal-records.js';
import { jobIdOf, jobStore } from './registry.js';

/** Chunk `chunk`'s task `seen.id` is not on the service any more: `seen` is the task under its id now. */
export function recordLost(env: Env, path: string, chunk: number, seen: { id: number; created_at: string }): void {
  const store = jobStore(env);
  const fold = new JobFold(path, { counts: true });
  let file: JournalFile;
  try {
    file = JournalFile.open(
      path,
      (first) => {
        const id = jobIdOf(first);
        return id === undefined ? undefined : store.lockPath(id);
      },
      true,
      (record) => fold.add(record),
    );
  } catch {
    return; // held by a live run, gone, or not writable: nothing recorded
  }
  try {
    const state = fold.end();
    const known = state?.chunks.get(chunk);
    // Read again under the locks: a run may have given the chunk another task meanwhile, or recorded it lost.
    if (state === undefined || known?.task?.id !== seen.id || known.lost === true) return;
    file.append({ type: 'lost', chunk, task: seen.id, created_at: seen.created_at });
    // A finished journal's last line stays its `done` (what `jobs` and TAB completion glance at).
    if (state.done && state.totals) file.append({ type: 'done', ...state.totals });
  } catch {
    // A journal that cannot be read as a job, or appended to (a full disk): the finding is only not kept.
  } finally {
    file.close();
  }
}
