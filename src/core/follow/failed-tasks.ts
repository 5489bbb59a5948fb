/** What `wait` and `watch` say at their end of the tasks that did not fully succeed (the one wording for both). */
import type { Output, Service } from '../capabilities.js';
import type { Task } from '../../api/schemas.js';
import { isPlainFailure, itemCounts, itemsContradicted, taskPhase, taskTone } from '../../lib/task-state.js';
import { EPHEMERAL_SANDBOX_NOTE, sandboxAwareHint } from '../sandbox-hint.js';
import { counted } from '../../output/plural.js';
import { formatCount } from '../../output/numbers.js';
import { neutralise } from '../../lib/sanitize.js';

/**
 * The end of `wait` and `watch` (also after a timeout): each task that ended without success, as an error; one that
 * completed with failed items, as a warning, with the command that shows them.
 */
export function nameFailedTasks(ctx: Output & Service, tasks: readonly Task[], allowItemFailures: boolean): void {
  for (const task of tasks) {
    if (taskPhase(task) === 'ended')
      ctx.printer.error(
        `task ${task.id} ${isPlainFailure(task.status) ? 'failed' : `ended "${neutralise(task.status)}"`}: ${neutralise(task.error_message ?? 'no reason given')}`,
        sandboxAwareHint(ctx.ephemeralSandbox, `See the items: taskctl show ${task.id}`),
      );
    else if (!allowItemFailures && taskTone(task) === 'partial') {
      const counts = itemCounts(task);
      // Items the answer did not list are not seen, not failed: what the service sends is what shows them.
      if (counts.unlisted !== undefined) {
        const listed = counts.total - counts.unlisted;
        const failedToo = counts.failed ? ` with ${counted(counts.failed, 'failed item')},` : ',';
        ctx.printer.warn(
          `task ${task.id} completed${failedToo} but lists ${formatCount(listed)} of its ${counted(counts.total, 'item')}: taskctl show ${task.id} -o json`,
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
      ctx.printer.warn(
        ctx.ephemeralSandbox
          ? `task ${task.id} completed with ${failed} (${EPHEMERAL_SANDBOX_NOTE})`
          : `task ${task.id} completed with ${failed}: taskctl show ${task.id} --items-status failed`,
      );
    }
  }
}
