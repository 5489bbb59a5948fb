/** What is said once the tasks exist: the summary line, a charge above --max-cost, items the server dropped. */
import type { Context } from '../context.js';
import { counted, formatCount } from '../items/clean.js';
import type { Outcome } from './types.js';

/** Tasks that hold fewer items than were sent (api-spec: total_items is the number submitted); true if any. */
export function warnDroppedItems(ctx: Context, outcomes: readonly Outcome[]): boolean {
  let any = false;
  for (const { task, how, items } of outcomes) {
    if (how === 'reused' || task.total_items >= items) continue;
    any = true;
    const dropped = items - task.total_items;
    ctx.printer.warn(
      `task ${task.id} holds ${formatCount(task.total_items)} of the ${counted(items, 'item')} sent: ${counted(dropped, 'item')} ${dropped === 1 ? 'was' : 'were'} dropped by the server`,
    );
  }
  return any;
}

/**
 * What the server charged above --max-cost, when its price changed between the estimate and the create. A warning, not
 * an error: the tasks exist and are paid for, and a failure code would invite a script to create (and pay) again.
 */
export function warnAboveMaxCost(ctx: Context, outcomes: readonly Outcome[], maxCost: number | undefined): void {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const charged = paid.reduce((sum, o) => sum + o.task.cost, 0);
  if (maxCost === undefined || charged <= maxCost) return;
  const what =
    paid.length === 1 && paid[0] ? `task ${paid[0].task.id}` : `tasks ${paid.map((o) => o.task.id).join(', ')}`;
  ctx.printer.warn(
    `${what} cost ${counted(charged, 'coin')}, above --max-cost ${formatCount(maxCost)} (the price changed after the estimate)`,
  );
}

/** `task 41 for 3 items, 15 coins; reused task 36 for 2 items (no coins spent)`: only what was paid for costs coins. */
export function summary(outcomes: readonly Outcome[]): string {
  const paid = outcomes.filter((o) => o.how !== 'reused');
  const reused = outcomes.filter((o) => o.how === 'reused');
  const tasks = (list: readonly Outcome[]) =>
    list.length === 1 && list[0] ? `task ${list[0].task.id}` : `${list.length} tasks`;
  const items = (list: readonly Outcome[]) =>
    counted(
      list.reduce((sum, o) => sum + o.items, 0),
      'item',
    );
  const parts: string[] = [];
  if (paid.length > 0) {
    const recovered = paid.filter((o) => o.how === 'recovered').map((o) => o.task.id);
    parts.push(
      `${tasks(paid)} for ${items(paid)}, ${counted(
        paid.reduce((sum, o) => sum + o.task.cost, 0),
        'coin',
      )}` + (recovered.length > 0 ? ` (recovered: ${recovered.join(', ')})` : ''),
    );
  }
  if (reused.length > 0) {
    const ids = reused.map((o) => o.task.id).join(', ');
    parts.push(`reused ${reused.length === 1 ? 'task' : 'tasks'} ${ids} for ${items(reused)} (no coins spent)`);
  }
  return parts.join('; ');
}
