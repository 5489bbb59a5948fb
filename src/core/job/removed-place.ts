/**
 * A job last run from a journal removed as it ended there (store/job-places.ts `removed`: a copy of its state directory
 * that finished it, then pruned): the words that say so, one wording for the refusal of its resume
 * (core/submit/journaled-run.ts), the exit 9 of a run let past it (core/submit/send-chunks.ts) and `taskctl jobs`.
 */
import type { RemovedAs } from '../../store/job-places.js';
import { shellWord } from '../../lib/shell-word.js';

/**
 * How the job ended in `path`, after `job ID`: `was finished from FILE`; `ended lost from FILE (…)`, never "finished",
 * when the service no longer had some of its tasks; `was last run from FILE` when it was taken over there.
 */
export function endedFrom(as: RemovedAs, path: string): string {
  if (as === 'lost') return `ended lost from ${path} (the service no longer had the tasks of some of its chunks)`;
  return `was ${as === 'finished' ? 'finished' : 'last run'} from ${path}`;
}

/** Where the tasks of a job that ended `as` are (a sentence's start): on the service, but those it lost. */
export const tasksOnService = (as: RemovedAs): string =>
  as === 'lost' ? 'those of its tasks the service still has are on it' : 'its tasks are on the service';

/**
 * The read that lists the tasks of `service` made since the job started (`since`, ISO): where a job's tasks are when no
 * journal of this machine names them. Only a read: it never sends.
 */
export const tasksSinceCommand = (service: string, since: string): string =>
  `taskctl list --service ${shellWord(service)} --since ${since} --all`;
