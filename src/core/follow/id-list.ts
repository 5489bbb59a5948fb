/**
 * The hint's command that waits for `unfinished` (a wait that did not finish, or `--any`'s others), for many scattered
 * ids without a job: `taskctl wait - < FILE`, the ids written to a list in the state directory
 * (docs/behaviour.md#for-people); undefined when they are few enough to list, the sandbox ends with the command, or the
 * list cannot be written.
 */
import type { Runtime, Service } from '../capabilities.js';
import { parsePositiveDuration } from '../../lib/duration.js';
import { shellWord } from '../../lib/shell-word.js';
import { writeIdList } from '../../store/id-lists.js';
import { stateDirectory } from '../../store/state-dir.js';
import { DEFAULT_JOB_RETENTION_MS } from '../job/registry.js';
import { tooManyToList } from './outcome.js';

export async function idListCommand(
  ctx: Runtime & Service,
  unfinished: readonly number[],
): Promise<string | undefined> {
  if (ctx.ephemeralSandbox || !tooManyToList(unfinished)) return undefined;
  const path = writeIdList(
    stateDirectory(ctx.env),
    [...new Set(unfinished)].sort((a, b) => a - b),
    ctx.clock.now(),
    await listRetention(ctx),
  );
  return path === undefined ? undefined : `taskctl wait - < ${shellWord(path)}`;
}

/** Lists go with the jobs' journals: the `job-retention` setting, its default when unset or unreadable. */
async function listRetention(ctx: Service): Promise<number> {
  try {
    const setting = (await ctx.settings()).jobRetention;
    return setting ? parsePositiveDuration(setting.value, 'job-retention') : DEFAULT_JOB_RETENTION_MS;
  } catch {
    return DEFAULT_JOB_RETENTION_MS;
  }
}
