/** `--job ID|FILE` or task ids, never both (show, wait, retry, watch); `--journal` on show or wait, where `--job` was meant. */
import { UsageError } from '../../errors.js';

export interface JobFlags {
  job?: string | undefined;
  journal?: string | undefined;
}

/** The job's file when `--job` was given; exit 2 for both or neither, and for `--journal` on show or wait. */
export function jobOrIds(
  command: 'show' | 'wait' | 'retry' | 'watch',
  ids: readonly unknown[],
  options: JobFlags,
): string | undefined {
  if (options.journal !== undefined && command !== 'retry') {
    throw new UsageError(
      `${command} has no --journal: a journaled job's tasks are given with --job`,
      `taskctl ${command} --job ${options.journal}`,
    );
  }
  if (options.job !== undefined && ids.length > 0) {
    throw new UsageError(`give task ids or --job, not both`, `taskctl ${command} --job ${options.job}`);
  }
  if (options.job === undefined && ids.length === 0) {
    throw new UsageError(
      `${command} needs task ids or --job <job>`,
      `taskctl ${command} 42 43, or taskctl ${command} --job ID (\`taskctl jobs\` lists them)`,
    );
  }
  return options.job;
}
