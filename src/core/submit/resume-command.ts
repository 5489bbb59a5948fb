/** The `taskctl resume …` command a job's hints print, and the job as they name it. */
import { shellWord } from '../../lib/shell-word.js';
import { exitCodeFlags } from '../follow/outcome.js';
import type { RemovedAs } from '../../store/job-places.js';
import { writeCause } from '../../store/write-advice.js';
import { JournalWriteError } from '../../errors.js';

/**
 * A job as its hints name it: `refused`, it has chunks the service refused (a resume of it needs `--skip-refused`);
 * `yes` and `maxCost`, the run was told how to spend without a question (`--yes`, `--max-cost N`), so its resume is
 * too: printed in a script or CI, with no terminal to ask on, it runs there as printed (docs/behaviour.md#jobs).
 */
export interface JobRef {
  id: string;
  refused?: boolean;
  yes?: boolean;
  maxCost?: number;
  /**
   * The run waited for the job's tasks (`--wait`, with the flags that decide its exit code: `--allow-item-failures`,
   * `--until S`, `--any`), as its resume does: the exit code a script reads after following a hint is the one the
   * stopped run would have given (docs/behaviour.md#jobs). The flags, each after a space.
   */
  wait?: string;
  /**
   * The flags of this run whose choice the job has not recorded yet (`--ignore-job J`, `--forget-gone-journal`: a run
   * stopped at the money guard records none): its hints carry them, so the resume they name goes on as this one would
   * have, never back to the refusal they passed.
   */
  unrecorded?: () => string;
  /**
   * The file the job was last run from, gone, that this run was let past by a window reaching back to the job's start
   * (`window`, reckoned when the hint is printed): a resume without that lookup is refused (exit 2), so every hint
   * names the resume with it (resumeCommand), but where the way on is the journal put back or forgotten (send-chunks.ts).
   * `window` is undefined once the job's start is further back than any window (a year): no lookup reaches it.
   * `removed`: that file was removed as the job ended there (pruned), how, the job's service and start (ISO): it
   * cannot be put back, and the job's tasks are on the service.
   */
  gone?: {
    path: string;
    window: () => string | undefined;
    removed?: { as: RemovedAs; service: string; since: string };
  };
}

/**
 * The one `taskctl resume …` command every hint of a job prints: with `--skip-refused` while the job has refused
 * chunks, since without it resume stops on them (docs/behaviour.md#a-refused-chunk), the run's spending and wait flags, its
 * `--ignore-job` and `--forget-gone-journal` while the job has not recorded them, the window reaching back to the job's
 * start while its last journal is gone and not forgotten (`gone`); `more`, flags after them. A job started further back
 * than any window reaches (a year) has no such resume: the one that goes on forgets the gone journal, and words before
 * the command say what that buys again, and the other way (the journal put back); the command is then on a line of its
 * own, so that line pastes as it is.
 */
export function resumeCommand(job: JobRef, more = ''): string {
  const spends = `${job.yes === true ? ' --yes' : ''}${job.maxCost === undefined ? '' : ` --max-cost ${job.maxCost}`}`;
  const waits = job.wait ?? '';
  const unrecorded = job.unrecorded?.() ?? '';
  const window = job.gone?.window();
  const gone = job.gone === undefined ? '' : window === undefined ? FORGET : ` --reuse-window ${window}`;
  const command = `taskctl resume ${shellWord(job.id)}${job.refused === true ? ' --skip-refused' : ''}${spends}${waits}${unrecorded}${gone}${more}`;
  if (job.gone === undefined || window !== undefined) return command;
  // The words first, the command alone on the last line: the line pastes into a shell as it is.
  // A journal removed as its job ended there cannot be put back: that way is not named.
  const back = job.gone.removed === undefined ? ` (or put that journal back and drop${FORGET})` : '';
  return `${tooOld(job.gone.path)}: the resume below buys again whatever that run created of the chunks left${back}:\n${command}`;
}

const FORGET = ' --forget-gone-journal';

/** Why no `--reuse-window` lets a run past the gone journal `path`: the job started more than a year ago. */
function tooOld(path: string): string {
  return `${path} is gone and the job started more than a year ago, further back than any --reuse-window reaches`;
}

/**
 * How a run spends without a question (`--yes`, `--max-cost N`), as a resume carries it: all that another job's resume
 * takes of this run's flags (its wait flags decide this run's exit code, not that job's).
 */
export function spending(flags: {
  yes?: boolean | undefined;
  maxCost?: number | undefined;
}): Pick<JobRef, 'yes' | 'maxCost'> {
  return {
    ...(flags.yes === true && { yes: true }),
    ...(flags.maxCost !== undefined && { maxCost: flags.maxCost }),
  };
}

/**
 * `job` resumed with `--wait` whatever its run did: a hint whose way on reads the job's tasks (a read command that
 * needs every task, a lost chunk to record). The run's own wait flags, when it waited, are kept as they were.
 */
export function waiting<J extends JobRef>(job: J): J {
  return { ...job, wait: job.wait ?? waitingFlags({}) };
}

/**
 * `--wait` with the flags that decide its exit code (`exitCodeFlags`), each after a space: a JobRef's `wait` for a run
 * that waited with `options`.
 */
export function waitingFlags(options: Parameters<typeof exitCodeFlags>[0]): string {
  return ['', '--wait', ...exitCodeFlags(options)].join(' ');
}

/** When a journal that could not be written can be again, by the cause: room on its disk, or the right to write it. */
export function journalFixed(failure: unknown): string {
  switch (writeCause(failure)) {
    case 'permission':
      return 'Once this user may write the journal again (its permissions, its attributes): ';
    case 'read-only':
      return 'Once its file system is writable again: ';
    default:
      return 'When there is room again: ';
  }
}

/**
 * A journal write that failed with no way on of its own (a chunk in doubt settled before any is sent, the job's end
 * after its last task): the job's resume once the journal can be written again, the system's error kept as the cause
 * that chooses the words.
 */
export function withResumeHint(error: unknown, job: JobRef | undefined): unknown {
  if (!(error instanceof JournalWriteError) || error.hint !== undefined || job === undefined) return error;
  return Object.assign(new JournalWriteError(error.message, `${journalFixed(error)}${resumeCommand(job)}`), {
    cause: error,
  });
}

/**
 * A refusal of how many items a task holds (HTTP 413, `too many items: 20000 (max 10000)`), not of an item: no item is
 * to be corrected, and the same items are taken in smaller chunks.
 */
export function refusedForSize(reason: string): boolean {
  return /\bHTTP 413\b|too many items|(?:payload|entity) too large/i.test(reason);
}

/**
 * The way past refused chunks (docs/behaviour.md#a-refused-chunk), `reasons` the service's words for each and `resume`
 * the job's resume past them: correct the items, or for a refusal of the size, send them in smaller chunks.
 */
export function refusedAdvice(reasons: readonly string[], resume: string): string {
  return `${refusedFix(reasons)}; continue the job without them: ${resume}`;
}

/** What to do with refused items: correct them, or for a refusal of the size, send them in smaller chunks. */
export function refusedFix(reasons: readonly string[]): string {
  return reasons.length > 0 && reasons.every(refusedForSize)
    ? 'Create those items again with a smaller --chunk-size (the service takes fewer in one task)'
    : 'Correct those items and create them on their own';
}
