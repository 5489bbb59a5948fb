/**
 * JUnit XML from tasks, for CI test-report views (GitLab `artifacts:reports:junit`, Jenkins, GitHub reporter actions):
 * one `<testsuite>` per task, one `<testcase>` per item named by its target with the service as classname.
 *
 * Items are judged by the shared rule (lib/task-state.ts):
 * - an item that did not complete (failed, error, skipped, any other status; in a completed task also one left
 *   pending) is a `<failure>` of type `item_<status>` carrying its error and result data;
 * - an item still pending/processing while its task runs (the wait timed out) or after it ended is `<skipped>`;
 * - a task that ended without completing (failed, cancelled, an unknown status with a finish time...) adds one
 *   `<testcase name="task ID">` with an `<error>` holding the task's error message. Consumers
 *   (GitLab, Jenkins, most reporter actions) read testcases only, so a suite-level `<error>` would go unseen;
 * - items an ended task does not list (fewer than `total_items`) add one `<testcase name="N items not listed">` with
 *   an `<error>` of type `items_not_listed`, and count in the `task.failed_items` property: not seen is not a success.
 */
import type { Task, TaskItem } from '../api/schemas.js';
import { errorText } from '../lib/item-error.js';
import {
  failedOrUnlisted,
  isPlainFailure,
  itemCounts,
  itemOutcome,
  itemsContradictionNote,
  taskPhase,
  unlistedItems,
} from '../lib/task-state.js';
import { counted } from '../output/plural.js';

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** Seconds. */
  time: number;
}

/**
 * Characters XML 1.0 forbids (C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, lone surrogates), and the C1 controls
 * and DEL it only discourages: removed, since no escape can carry them.
 */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function xmlText(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values also keep their quotes, tabs and line breaks (which parsers would otherwise normalise to spaces). */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${xmlAttr(String(value))}"`)
    .join('');
}

const seconds = (value: number) => value.toFixed(3);

/** Processing time: start (or creation) to completion or failure; 0 while unfinished. */
function taskSeconds(task: Task): number {
  const end = task.completed_at ?? task.failed_at;
  const start = task.started_at ?? task.created_at;
  if (!end) return 0;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : 0;
}

/** JUnit's timestamp: ISO 8601 without zone or fraction (UTC here). */
function junitTimestamp(iso: string): string | undefined {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19) : undefined;
}

function failureBody(item: TaskItem): string {
  const error = errorText(item.error);
  const parts = [error ? `error: ${error}` : undefined, item.data ? `data: ${JSON.stringify(item.data)}` : undefined];
  return parts.filter((part) => part !== undefined).join('\n');
}

function testcase(item: TaskItem, task: Task, counts: Counts): string {
  const head = `<testcase${attrs({ name: item.target, classname: task.service })}`;
  counts.tests++;
  // Only a completed task's leftovers are failures; in a running or ended task they were simply never processed.
  switch (itemOutcome(item, taskPhase(task) === 'completed')) {
    case 'completed':
      return `${head}/>`;
    case 'failed': {
      counts.failures++;
      const message = errorText(item.error) ?? `item ${item.status}`;
      return `${head}>\n      <failure${attrs({ message, type: `item_${item.status}` })}>${xmlText(failureBody(item))}</failure>\n    </testcase>`;
    }
    case 'active': {
      counts.skipped++;
      const why =
        taskPhase(task) === 'ended'
          ? `not processed: the task ${isPlainFailure(task.status) ? 'failed' : `ended (${task.status})`} first`
          : `not finished: item ${item.status}, task ${task.status}`;
      return `${head}>\n      <skipped${attrs({ message: why })}/>\n    </testcase>`;
    }
  }
}

/** The task's own error text: its message, else what its status says. */
function taskEndMessage(task: Task): string {
  return (
    task.error_message ??
    (isPlainFailure(task.status) ? 'the task failed' : `the task ended with status "${task.status}"`)
  );
}

function testsuite(task: Task, totals: Counts): string {
  const counts: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, time: taskSeconds(task) };
  const cases = (task.items ?? []).map((item) => testcase(item, task, counts));
  if (taskPhase(task) === 'ended') {
    counts.tests++;
    counts.errors++;
    const message = taskEndMessage(task);
    cases.push(
      `<testcase${attrs({ name: `task ${task.id}`, classname: task.service })}>\n      <error${attrs({ message, type: 'task_failed' })}>${xmlText(message)}</error>\n    </testcase>`,
    );
  }
  const itemTotals = itemCounts(task);
  // Every item passed, but the service's own counts say some failed: the report is not green on items alone.
  const contradiction = itemsContradictionNote(task);
  if (contradiction !== undefined) {
    counts.tests++;
    counts.failures++;
    cases.push(
      `<testcase${attrs({ name: 'counts disagree with the items', classname: task.service })}>\n      <failure${attrs({ message: contradiction, type: 'counts_disagree' })}>${xmlText(contradiction)}</failure>\n    </testcase>`,
    );
  }
  const unlisted = unlistedItems(task);
  if (unlisted !== undefined) {
    counts.tests++;
    counts.errors++;
    const name = `${counted(unlisted.count, 'item')} not listed`;
    const message = unlisted.note;
    cases.push(
      `<testcase${attrs({ name, classname: task.service })}>\n      <error${attrs({ message, type: 'items_not_listed' })}>${xmlText(message)}</error>\n    </testcase>`,
    );
  }
  totals.tests += counts.tests;
  totals.failures += counts.failures;
  totals.errors += counts.errors;
  totals.skipped += counts.skipped;
  totals.time += counts.time;
  const { completed } = itemTotals;
  const failed = failedOrUnlisted(itemTotals);
  const properties = [
    ['task.id', task.id],
    ['task.status', task.status],
    ['task.total_items', task.total_items],
    ['task.completed_items', completed],
    ['task.failed_items', failed],
    ['task.cost', task.cost],
  ]
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `      <property${attrs({ name: String(name), value: String(value) })}/>`);
  const head = `<testsuite${attrs({
    name: `task ${task.id} ${task.service}`,
    tests: counts.tests,
    failures: counts.failures,
    errors: counts.errors,
    skipped: counts.skipped,
    time: seconds(counts.time),
    timestamp: junitTimestamp(task.created_at),
  })}>`;
  return [
    `  ${head}`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...cases.map((c) => `    ${c}`),
    '  </testsuite>',
  ].join('\n');
}

/** The report for `tasks` (with their items, from GET /tasks/:id). */
export function junitReport(tasks: readonly Task[]): string {
  const totals: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const suites = tasks.map((task) => testsuite(task, totals));
  const head = `<testsuites${attrs({
    name: 'taskctl',
    tests: totals.tests,
    failures: totals.failures,
    errors: totals.errors,
    skipped: totals.skipped,
    time: seconds(totals.time),
  })}>`;
  return ['<?xml version="1.0" encoding="UTF-8"?>', head, ...suites, '</testsuites>', ''].join('\n');
}
