/**
 * What `wait` and `watch` say of the tasks they follow, in one wording for both: at their end, the tasks that did not
 * fully succeed; on the way, the answers the follow engine doubts.
 */
import type { Output, Service } from '../capabilities.js';
import type { Task } from '../../api/schemas.js';
import type { FollowOptions } from './follow.js';
import { repeatWarning } from '../../lib/page-guard.js';
import {
  isPlainFailure,
  itemCounts,
  itemsContradicted,
  listedShort,
  taskPhase,
  taskTone,
} from '../../lib/task-state.js';
import { EPHEMERAL_SANDBOX_NOTE, sandboxAwareHint } from '../sandbox-hint.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { idArgs } from './outcome.js';
import { neutralise } from '../../lib/sanitize.js';

/**
 * The end of `wait` and `watch` (also after a timeout): each task that ended without success, as an error (with the
 * command that shows its items, unless `itemsNamed`: the end just showed them, or named a command that shows them all);
 * those that completed with failed items, as a warning with the command that shows them: one for them all when there
 * are several (`showCommand`, a job's own, else `show` of their ids), so the end of a long wait is not a warning a task.
 */
export function nameFailedTasks(
  ctx: Output & Service,
  tasks: readonly Task[],
  {
    allowItemFailures = false,
    showCommand,
    itemsNamed = false,
  }: { allowItemFailures?: boolean | undefined; showCommand?: string | undefined; itemsNamed?: boolean } = {},
): void {
  const partial: Array<{ id: number; failed: number }> = [];
  for (const task of tasks) {
    if (taskPhase(task) === 'ended')
      ctx.printer.error(
        `task ${task.id} ${isPlainFailure(task.status) ? 'failed' : `ended "${neutralise(task.status)}"`}: ${neutralise(task.error_message ?? 'no reason given')}`,
        itemsNamed ? undefined : sandboxAwareHint(ctx.ephemeralSandbox, `See the items: taskctl show ${task.id}`),
      );
    else if (!allowItemFailures && taskTone(task) === 'partial') {
      const counts = itemCounts(task);
      // Items the answer did not list are not seen, not failed: what the service sends is what shows them.
      if (counts.unlisted !== undefined) {
        const listed = counts.total - counts.unlisted;
        const failedToo = counts.failed ? ` with ${counted(counts.failed, 'failed item')},` : ',';
        const says = listedShort(task) ? 'lists' : 'its counts account for';
        ctx.printer.warn(
          `task ${task.id} completed${failedToo} but ${says} ${formatCount(listed)} of its ${counted(counts.total, 'item')}: taskctl show ${task.id} -o json`,
        );
        continue;
      }
      const failed = counted(counts.failed ?? 0, 'failed item');
      // Failures only the service's counts say (its items are all completed): no item list can show them.
      if (itemsContradicted(task) !== undefined) {
        ctx.printer.warn(
          `task ${task.id} completed with ${failed} by the service's counts: taskctl show ${task.id} -o json`,
        );
        continue;
      }
      partial.push({ id: task.id, failed: counts.failed ?? 0 });
    }
  }
  const [only] = partial;
  if (only === undefined) return;
  const failed = counted(
    partial.reduce((sum, task) => sum + task.failed, 0),
    'failed item',
  );
  const which = partial.length === 1 ? `task ${only.id}` : counted(partial.length, 'task');
  const show =
    partial.length === 1
      ? `taskctl show ${only.id}`
      : (showCommand ?? `taskctl show ${idArgs(partial.map((task) => task.id))}`);
  ctx.printer.warn(
    ctx.ephemeralSandbox
      ? `${which} completed with ${failed} (${EPHEMERAL_SANDBOX_NOTE})`
      : `${which} completed with ${failed}: ${show} --items-status failed`,
  );
}

/** The tasks whose repeats a run warns about once each; past them, memory stays bounded and a repeat may warn again. */
const REPEATS_REMEMBERED = 10_000;

/**
 * Warnings about answers the follow engine doubts: a page naming a task twice (that task is read by its own GET), and
 * a task going back (its lines show what the service said), once per task: a service that lists a task twice lists it
 * so at every read, round after round.
 */
export function answerDoubtWarnings(
  warn: (text: string) => void,
): Pick<FollowOptions, 'onPageRepeats' | 'onBackwards'> {
  const warned = new Set<number>();
  return {
    onPageRepeats: (page, repeated, tasks) => {
      for (const id of repeated) {
        if (warned.has(id)) continue;
        if (warned.size >= REPEATS_REMEMBERED) warned.clear();
        warned.add(id);
        warn(repeatWarning(page, id, tasks));
      }
    },
    onBackwards: (_previous, _task, words) => warn(`${words}: the service reported it going back; shown as it said`),
  };
}
