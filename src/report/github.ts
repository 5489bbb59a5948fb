/**
 * GitHub Actions output: a Markdown job summary (appended to $GITHUB_STEP_SUMMARY) and `::error` workflow commands
 * that become annotations on the run. Both are pure text builders; `write.ts` decides where they go.
 */
import type { Task, TaskItem } from '../api/schemas.js';
import { errorText } from '../lib/item-error.js';
import {
  failedOrUnlisted,
  itemCounts,
  itemOutcome,
  itemsContradictionNote,
  taskPhase,
  taskTone,
  unlistedItems,
  type StatusTone,
} from '../lib/task-state.js';
import { counted } from '../output/plural.js';
import { formatCount } from '../output/numbers.js';

export interface GithubReportOptions {
  /** A one-off `--sandbox` run: it is gone when the report is read, so no `taskctl show` command is suggested. */
  ephemeral?: boolean | undefined;
}

/** GitHub shows at most 10 error annotations per step; more are dropped. */
const MAX_ERROR_ANNOTATIONS = 10;
/** A summary is capped at 1 MiB per step: list this many failed items, then a count. */
const MAX_LISTED_FAILURES = 50;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A Markdown table cell: one line, no pipes or HTML breaking out of it. */
export function markdownCell(text: string): string {
  return text
    .replace(/\r\n|[\r\n\t]/g, ' ')
    .replace(CONTROL, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .trim();
}

/**
 * Workflow-command data: %, CR and LF escaped so server text cannot end the command or start another; a tab is a
 * space (dropped, it would join two words), other controls go.
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/\t/g, ' ').replace(CONTROL, '');
}

/** Workflow-command property values additionally escape `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** A task's mark by its tone (lib/task-state.ts): a completed task with items that did not complete is ⚠️, not ✅. */
const TONE_MARK: Readonly<Record<StatusTone, string>> = {
  success: '✅',
  partial: '⚠️',
  failure: '❌',
  working: '⏳',
  waiting: '⏳',
  plain: '',
};

const ended = (task: Task): boolean => taskPhase(task) === 'ended';

/** The items that did not complete (the shared rule); items a running or ended task never reached are left out. */
function notCompleted(task: Task): TaskItem[] {
  const judgeLeftovers = taskPhase(task) === 'completed';
  return (task.items ?? []).filter((item) => itemOutcome(item, judgeLeftovers) === 'failed');
}

function failedItemCount(tasks: readonly Task[]): number {
  return tasks.reduce((sum, task) => sum + (failedOrUnlisted(itemCounts(task)) ?? 0), 0);
}

/** Markdown: a heading with totals, one table row per task, and the first failed items in a collapsed list. */
export function githubSummary(tasks: readonly Task[], options: GithubReportOptions = {}): string {
  const failedTasks = tasks.filter(ended).length;
  const failedItems = failedItemCount(tasks);
  const lines = [
    `### taskctl: ${counted(tasks.length, 'task')}, ${counted(failedTasks, 'failed task')}, ${counted(failedItems, 'failed item')}`,
    '',
    '| task | service | status | items | completed | failed | cost |',
    '|---:|---|---|---:|---:|---:|---:|',
  ];
  for (const task of tasks) {
    // The summary has no "not listed" column: items an ended task does not list count as failed (not seen, not a success).
    const counts = itemCounts(task);
    const { completed } = counts;
    const failed = failedOrUnlisted(counts);
    const mark = TONE_MARK[taskTone(task)];
    const cells = [
      String(task.id),
      task.service,
      `${mark === '' ? '' : `${mark} `}${task.status}`,
      String(task.total_items),
      completed === undefined ? '' : String(completed),
      failed === undefined ? '' : String(failed),
      String(task.cost),
    ];
    lines.push(`| ${cells.map(markdownCell).join(' | ')} |`);
  }
  const failures = tasks.flatMap((task) => [
    ...(ended(task) ? [`task ${task.id} ${task.status}: ${task.error_message ?? 'no reason given'}`] : []),
    ...[unlistedItems(task)]
      .filter((unlisted) => unlisted !== undefined)
      .map(({ count, note }) => `task ${task.id} · ${counted(count, 'item')} not listed: ${note}`),
    ...[itemsContradictionNote(task) ?? []].flat(),
    ...notCompleted(task).map(
      (item) => `task ${task.id} · ${item.target}: ${errorText(item.error) ?? `item ${item.status}`}`,
    ),
  ]);
  if (failures.length > 0) {
    lines.push('', `<details><summary>Failures (${formatCount(failures.length)})</summary>`, '');
    for (const failure of failures.slice(0, MAX_LISTED_FAILURES)) lines.push(`- ${markdownCell(failure)}`);
    if (failures.length > MAX_LISTED_FAILURES)
      lines.push(
        `- … and ${formatCount(failures.length - MAX_LISTED_FAILURES)} more${options.ephemeral ? '' : ': `taskctl show ID --items-status failed`'}`,
      );
    lines.push('', '</details>');
  }
  return `${lines.join('\n')}\n\n`;
}

/** One `::error` annotation: its title and message, before escaping. */
interface Annotation {
  title: string;
  message: string;
}

/** A kind of annotation, and how the overflow warning names those of its kind that did not fit. */
interface AnnotationKind {
  /** A task's annotations of this kind, in order: none, one, or one per failed item. */
  of: (task: Task) => Annotation[];
  /** The warning's words for `count` annotations of this kind not shown. */
  notShown: (count: number) => string;
  /** The command that shows what a task's hidden annotations would have said; none for a failed task. */
  where?: (id: number) => string;
}

/**
 * The one place the limit applies: the kinds' annotations in order (each kind over all tasks) as `::error` commands
 * while fewer than `limit` are written; past it, each is counted against its kind and task, and one `::warning` says
 * how many of each kind were left out and, unless `see` drops it (a one-off sandbox), where to see them.
 */
function annotateWithin(
  tasks: readonly Task[],
  kinds: readonly AnnotationKind[],
  limit: number,
  see: (command: string) => string,
): string[] {
  const lines: string[] = [];
  const left = kinds.map((kind) => ({ kind, byTask: new Map<number, number>() }));
  for (const { kind, byTask } of left) {
    for (const task of tasks) {
      for (const { title, message } of kind.of(task)) {
        if (lines.length < limit) lines.push(`::error title=${escapeProperty(title)}::${escapeData(message)}`);
        else byTask.set(task.id, (byTask.get(task.id) ?? 0) + 1);
      }
    }
  }
  const hidden = left.filter(({ byTask }) => byTask.size > 0);
  if (hidden.length === 0) return lines;
  const what = hidden
    .map(({ kind, byTask }) => kind.notShown([...byTask.values()].reduce((a, b) => a + b, 0)))
    .join(' and ');
  const where = hidden
    .flatMap(({ kind, byTask }) => (kind.where === undefined ? [] : [...byTask.keys()].map(kind.where)))
    .join('; ');
  lines.push(
    `::warning title=${escapeProperty('taskctl: more failures')}::${escapeData(`${what} not annotated (GitHub shows ${limit} error annotations per step)${where ? see(where) : ''}`)}`,
  );
  return lines;
}

/**
 * `::error` commands: failed tasks first, then one for each finished task that does not list all its items (how many,
 * as JUnit's `items_not_listed` testcase), then one for each task whose counts disagree with its items, then failed
 * items, at most MAX_ERROR_ANNOTATIONS; the rest as one `::warning` with their count and where to see them.
 */
export function githubAnnotations(
  tasks: readonly Task[],
  limit = MAX_ERROR_ANNOTATIONS,
  options: GithubReportOptions = {},
): string[] {
  const see = (command: string) => (options.ephemeral ? '' : `. See: ${command}`);
  // Never seen is not a success (the summary counts them failed); what the service sent is `show -o json`, as the
  // wait's hint says: `--items-status failed` lists none of them.
  const asSent = (id: number) => `taskctl show ${id} -o json`;
  const failedTasks: AnnotationKind = {
    of: (task) =>
      ended(task)
        ? [
            {
              title: `taskctl: task ${task.id} ${task.status} (${task.service})`,
              message: `${task.error_message ?? 'no reason given'}${see(`taskctl show ${task.id}`)}`,
            },
          ]
        : [],
    notShown: (count) => counted(count, 'failed task'),
  };
  const notListed: AnnotationKind = {
    of: (task) => {
      const unlisted = unlistedItems(task);
      if (unlisted === undefined) return [];
      const what = `${counted(unlisted.count, 'item')} not listed`;
      const one = unlisted.count === 1;
      const why = `the ${formatCount(unlisted.count)} not listed ${one ? 'was' : 'were'} never seen, so ${one ? 'it counts' : 'they count'} as failed`;
      return [
        {
          title: `taskctl: task ${task.id} has ${what} (${task.service})`,
          message: `${unlisted.note}; ${why}${see(asSent(task.id))}`,
        },
      ];
    },
    notShown: (count) => `${counted(count, 'task')} with items not listed`,
    where: asSent,
  };
  const contradicted: AnnotationKind = {
    of: (task) =>
      [itemsContradictionNote(task) ?? []].flat().map((contradiction) => ({
        title: `taskctl: task ${task.id} counts disagree (${task.service})`,
        message: `${contradiction}${see(asSent(task.id))}`,
      })),
    notShown: (count) => `${counted(count, 'task')} whose counts disagree`,
    where: asSent,
  };
  const failedItems: AnnotationKind = {
    of: (task) =>
      notCompleted(task).map((item) => ({
        title: `taskctl: task ${task.id} item ${item.status} (${task.service})`,
        message: `${item.target}: ${errorText(item.error) ?? `item ${item.status}`}`,
      })),
    notShown: (count) => counted(count, 'failed item'),
    where: (id) => `taskctl show ${id} --items-status failed`,
  };
  return annotateWithin(tasks, [failedTasks, notListed, contradicted, failedItems], limit, see);
}
